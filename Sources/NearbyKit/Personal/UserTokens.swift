import Crypto
import Foundation
import NearbyCore
import NearbyStore

/// Users and their access tokens. A token is 256 random bits (`SystemRandomNumberGenerator`, the
/// system's cryptographic generator) written as `nby_` and 43 base64url characters; it is shown once
/// and stored only as its SHA-256 (`user_tokens.hash`, lowercase hex). `user(forToken:)` is the check a
/// server calls: the hash of what was presented against every stored hash of a user not revoked, each
/// compared in constant time and all of them always compared, so neither timing nor the answer tells
/// whether a user exists.
public enum UserTokens {
    public static let prefix = "nby_"

    /// A new random token.
    public static func newToken() -> String {
        var rng = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        for _ in 0..<4 { withUnsafeBytes(of: rng.next() as UInt64) { bytes += $0 } }
        let b64 = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return prefix + b64
    }

    /// SHA-256 of the token's UTF-8, lowercase hex.
    public static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The user a token names, or nil (unknown, malformed, or the user is revoked).
    public static func user(forToken token: String, in cache: PlaceCache) throws -> String? {
        user(forToken: token, among: try cache.activeTokenHashes())
    }

    /// The check over hashes already read (a server keeps them and rereads after a change).
    public static func user(forToken token: String, among hashes: [(hash: String, user: String)]) -> String? {
        let presented = Array(hash(token).utf8)
        var found: String?
        for (h, user) in hashes where constantTimeEqual(presented, Array(h.utf8)) { found = user }
        return found
    }

    /// Equal bytes, in time that depends on the lengths only.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var d: UInt8 = 0
        for i in a.indices { d |= a[i] ^ b[i] }
        return d == 0
    }

    /// Registers `name` and returns its token (shown once); throws when the name is taken or invalid.
    public static func addUser(_ name: String, cache: PlaceCache, now: Int64) throws -> String {
        _ = try PersonalLayer.user(name)
        let token = newToken()
        guard try cache.addUser(name: name, tokenHash: hash(token), at: now) else {
            throw UsageError("user \(name) exists (nearby user remove \(name) first)")
        }
        return token
    }
}
