/// Nearby's version (`nearby --version`), following semantic versioning; the git tag of a release is
/// this text with no prefix, so `.package(url:…, from: "0.2.0")` finds it.
public enum NearbyVersion {
    public static let current = "0.2.0"
}
