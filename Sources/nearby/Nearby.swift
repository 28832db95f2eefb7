import ArgumentParser
import Foundation
import NearbyBench
import NearbyKit

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
        version: NearbyVersion.current,
        subcommands: [
            BenchCommand.self,
            DistanceCommand.self,
            ImportCommand.self,
            ExportCommand.self,
            CarouselCommand.self,
            QueryCommand.self,
            ClustersCommand.self,
            GenerateCommand.self,
            CheckCommand.self,
            ServeCommand.self,
            SyncCommand.self,
            ReplayCommand.self,
            WhereCommand.self,
            RegionCommand.self,
            TilesCommand.self,
            BookmarkCommand.self,
            RateCommand.self,
            MemoCommand.self,
            VisitCommand.self,
            HistoryCommand.self,
            UserCommand.self,
            BackupCommand.self,
            RestoreCommand.self,
        ]
    )

    /// The one place errors become messages and exit codes. Every message starts with the command
    /// (`nearby query: …`). The project's errors exit with their kind's code (`ErrorKind.exitCode`:
    /// usage 2, the Unix convention and this project's docs, other failures 1); a request error names
    /// its parameter as a flag (`--radius: …`). ArgumentParser's own usage errors exit 2 too, not its
    /// 64; `--help` and `--version` exit 0; any other error exits 1.
    static func main() {
        let name = commandName(CommandLine.arguments.dropFirst())
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as ExitCode {
            Foundation.exit(error.rawValue)
        } catch let error as any NearbyError {
            let message = (error as? RequestError).map { UsageError($0).description } ?? error.description
            fail(name, message, code: error.kind.exitCode)
        } catch {
            switch exitCode(for: error) {
            case .success: exit(withError: error)  // --help, --version
            case .validationFailure:
                fail(name, message(for: error), code: ErrorKind.usage.exitCode)
            default:
                fail(name, "\(error)", code: ErrorKind(of: error).exitCode)
            }
        }
    }

    /// `nearby` and the subcommands named in `arguments` (`nearby bench radius`).
    static func commandName(_ arguments: ArraySlice<String>) -> String {
        var name = "nearby"
        var command: ParsableCommand.Type = Nearby.self
        for argument in arguments {
            guard let sub = command.configuration.subcommands.first(where: { $0.configuration.commandName == argument })
            else { break }
            name += " " + argument
            command = sub
        }
        return name
    }

    private static func fail(_ name: String, _ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data("\(name): \(message)\n".utf8))
        Foundation.exit(code)
    }
}
