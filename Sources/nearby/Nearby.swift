import ArgumentParser

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
        ]
    )
}
