import Foundation

/// The independent decoder: PyPI's `mapbox-vector-tile` (Mapbox's reference protobuf schema), run by
/// `python3`. Installed with pip on first use when missing; a test that needs it fails loudly when it
/// cannot be had (never skips).
public enum PythonVectorTiles {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private static let ready: Result<Void, Failure> = {
        if (try? run(["-c", "import mapbox_vector_tile"])) != nil { return .success(()) }
        _ = try? run(["-m", "pip", "install", "--quiet", "mapbox-vector-tile"])
        if (try? run(["-c", "import mapbox_vector_tile"])) != nil { return .success(()) }
        return .failure(
            Failure(
                description: "python3 cannot import mapbox_vector_tile, and `pip install mapbox-vector-tile` failed"))
    }()

    /// Each file's layers as the decoder reads them: `{path: {layer: {"extent", "features": [{"id",
    /// "type", "properties", "geometry"}]}}}`, coordinates in tile pixels with y down.
    public static func decode(files: [String]) throws -> [String: [String: Any]] {
        try ready.get()
        let script = """
            import json, sys, mapbox_vector_tile
            out = {}
            for path in sys.argv[1:]:
                data = open(path, 'rb').read()
                tile = mapbox_vector_tile.decode(data, default_options={'y_coord_down': True}) if data else {}
                out[path] = {name: {'extent': layer['extent'], 'features': [
                    {'id': f.get('id'), 'type': f['geometry']['type'], 'properties': f['properties'],
                     'geometry': f['geometry']['coordinates']} for f in layer['features']]}
                    for name, layer in tile.items()}
            print(json.dumps(out, ensure_ascii=False))
            """
        let output = try run(["-c", script] + files)
        guard let json = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: [String: Any]] else {
            throw Failure(description: "the decoder printed no JSON object: \(output.prefix(300))")
        }
        return json
    }

    /// Runs `python3 ARGS` and returns its stdout; throws with stderr when it fails.
    @discardableResult
    public static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Both pipes drained at once: a full stderr pipe would block the child while stdout is read.
        final class Box: @unchecked Sendable { var data = Data() }
        let stderrBox = Box()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            stderrBox.data = err.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        let stderr = stderrBox.data
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description:
                    "python3 \(arguments.first ?? "") failed: \(String(decoding: stderr, as: UTF8.self).suffix(600))")
        }
        return String(decoding: stdout, as: UTF8.self)
    }
}
