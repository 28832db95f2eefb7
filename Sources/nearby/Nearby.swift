import ArgumentParser
import Foundation

@main
struct Nearby: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearby",
        abstract: "Find cached places near a point, in the order a travel app needs them.",
        discussion: """
            Nearby keeps a cache of places (TourAPI responses, JSON lines, CSV/TSV, GeoJSON) in one \
            SQLite file and answers radius, bounding-box and nearest-neighbour queries with filters, \
            sorts and pages. Machine output goes to stdout as JSON lines; progress and errors go to stderr.
            """,
        subcommands: [
            BenchCommand.self,
            DistanceCommand.self,
            ImportCommand.self,
            ExportCommand.self,
            CarouselCommand.self,
            QueryCommand.self,
            GenerateCommand.self,
            WhereCommand.self,
            RegionCommand.self,
        ]
    )

    /// Usage errors exit with 2 (the convention of Unix tools and of this project's docs), not
    /// ArgumentParser's default 64 (EX_USAGE). Runtime failures print one line named after the command
    /// (`nearby export: PATH: cannot open the cache: ...`, as the commands' own messages are) and exit 1.
    static func main() {
        var name = "nearby"
        do {
            var command = try parseAsRoot()
            if !(command is Nearby), let sub = type(of: command).configuration.commandName { name += " " + sub }
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                let message = fullMessage(for: error)
                if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
                Foundation.exit(2)
            }
            if code == .failure && !(error is ExitCode) {
                FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
                Foundation.exit(code.rawValue)
            }
            exit(withError: error)
        }
    }
}
