import Foundation

/// A third-party TourAPI client: PyPI's `iflow-mcp-harimkang-mcp-korea-tourism-api` (MIT; module
/// `mcp_tourism.api_client`), run by `scripts/tourapi_client_peer.py` under `python3`. Installed with pip
/// on first use when missing: the pinned wheel without its dependencies (its `fastmcp` is for its MCP
/// server module only) and the four its client imports. A test that needs it fails loudly when it cannot
/// be had (never skips).
public enum PythonTourAPIClient {
    /// The client's version the test is written against.
    public static let version = "0.1.7"
    static let imports = "import httpx, cachetools, tenacity, ratelimit, mcp_tourism.api_client"

    private static let ready: Result<Void, PythonVectorTiles.Failure> = {
        if (try? PythonVectorTiles.run(["-c", imports])) != nil { return .success(()) }
        _ = try? PythonVectorTiles.run([
            "-m", "pip", "install", "--quiet", "--no-deps", "iflow-mcp-harimkang-mcp-korea-tourism-api==\(version)",
        ])
        _ = try? PythonVectorTiles.run([
            "-m", "pip", "install", "--quiet", "httpx", "cachetools", "tenacity", "ratelimit",
        ])
        do {
            try PythonVectorTiles.run(["-c", imports])
            return .success(())
        } catch {
            return .failure(
                PythonVectorTiles.Failure(
                    description:
                        "python3 cannot import the TourAPI client (iflow-mcp-harimkang-mcp-korea-tourism-api==\(version) "
                        + "with httpx, cachetools, tenacity, ratelimit), and pip could not install it: \(error)"))
        }
    }()

    /// Runs the plan (`scripts/tourapi_client_peer.py` describes it) and returns each call's answer by name:
    /// `ok`, `path`, then `result` (`total_count`, `num_of_rows`, `page_no`, `items`) or `error`
    /// (`type`, `message`, `status`, `body`).
    public static func run(plan: [String: Any], in folder: TempFolder) throws -> [String: [String: Any]] {
        try ready.get()
        let data = try JSONSerialization.data(withJSONObject: plan)
        let path = try folder.write("client-plan.json", data)
        let script = RepositoryData.folder.deletingLastPathComponent()
            .appendingPathComponent("scripts/tourapi_client_peer.py").path
        let output = try PythonVectorTiles.run([script, path])
        guard let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any],
            let calls = object["calls"] as? [[String: Any]]
        else {
            throw PythonVectorTiles.Failure(description: "the client printed no answers: \(output.prefix(300))")
        }
        var byName: [String: [String: Any]] = [:]
        for call in calls {
            if let name = call["name"] as? String { byName[name] = call }
        }
        return byName
    }
}
