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
    public static func user(forToken token: String, in store: any PersonalStorage) throws -> String? {
        user(forToken: token, among: try store.activeTokenHashes())
    }

    /// The check over hashes already read (a server keeps a `Table` and rereads after a change).
    public static func user(forToken token: String, among hashes: [(hash: String, user: String)]) -> String? {
        Table(hashes).user(forToken: token)
    }

    /// Active token hashes as digests, ready for the check: what a server keeps between requests.
    public struct Table: Sendable {
        /// The 32 bytes of each SHA-256, one after another; `users[i]` owns digest i.
        private let digests: [UInt8]
        private let users: [String]

        public init(_ hashes: [(hash: String, user: String)]) {
            var digests: [UInt8] = []
            var users: [String] = []
            for (h, user) in hashes {
                guard let bytes = Self.bytes(hex: h) else { continue }
                digests += bytes
                users.append(user)
            }
            self.digests = digests
            self.users = users
        }

        public var count: Int { users.count }

        /// The user `token` names, or nil: its SHA-256 against every digest, each compared in constant
        /// time and all of them always compared.
        public func user(forToken token: String) -> String? {
            let presented = SHA256.hash(data: Array(token.utf8))
            var found = -1
            presented.withUnsafeBytes { p in
                let (p0, p1, p2, p3) = (
                    p.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                    p.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                    p.loadUnaligned(fromByteOffset: 16, as: UInt64.self),
                    p.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                )
                digests.withUnsafeBytes { d in
                    for i in 0..<users.count {
                        let o = i * 32
                        let diff =
                            (d.loadUnaligned(fromByteOffset: o, as: UInt64.self) ^ p0)
                            | (d.loadUnaligned(fromByteOffset: o + 8, as: UInt64.self) ^ p1)
                            | (d.loadUnaligned(fromByteOffset: o + 16, as: UInt64.self) ^ p2)
                            | (d.loadUnaligned(fromByteOffset: o + 24, as: UInt64.self) ^ p3)
                        // Branch-free: 0 when equal, all ones otherwise; keep i when equal.
                        let differs = Int(truncatingIfNeeded: (diff | (0 &- diff)) >> 63) &* -1
                        found = (found & differs) | (i & ~differs)
                    }
                }
            }
            return found >= 0 ? users[found] : nil
        }

        private static func bytes(hex: String) -> [UInt8]? {
            let u = Array(hex.utf8)
            guard u.count == 64 else { return nil }
            func nibble(_ c: UInt8) -> UInt8? {
                switch c {
                case 48...57: c - 48
                case 97...102: c - 87
                case 65...70: c - 55
                default: nil
                }
            }
            var out: [UInt8] = []
            out.reserveCapacity(32)
            for i in stride(from: 0, to: 64, by: 2) {
                guard let hi = nibble(u[i]), let lo = nibble(u[i + 1]) else { return nil }
                out.append(hi << 4 | lo)
            }
            return out
        }
    }

    /// Equal bytes, in time that depends on the lengths only.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var d: UInt8 = 0
        for i in a.indices { d |= a[i] ^ b[i] }
        return d == 0
    }

    /// Registers `name` and returns its token (shown once); throws when the name is taken or invalid.
    public static func addUser(_ name: String, store: any PersonalStorage, now: Int64) throws -> String {
        _ = try PersonalLayer.user(name)
        let token = newToken()
        guard try store.addUser(name: name, tokenHash: hash(token), at: now) else {
            throw UsageError("user \(name) exists (nearby user remove \(name) first)")
        }
        return token
    }
}
