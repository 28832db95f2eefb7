import Foundation

/// Where the cache lives when `--db` does not say: `$NEARBY_DB`, else `$XDG_CACHE_HOME/nearby/places.sqlite`,
/// else `~/.cache/nearby/places.sqlite` (the XDG base-directory convention, per user).
public enum CachePath {
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["NEARBY_DB"], !path.isEmpty { return path }
        // XDG: a relative XDG_CACHE_HOME is invalid and must be ignored.
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache + "/nearby/places.sqlite" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.cache/nearby/places.sqlite"
    }
}
