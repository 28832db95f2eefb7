import ArgumentParser
import Foundation
import NearbyBench
import NearbyKit

/// `nearby bench personal`: the personal layer's costs on a cache (`PersonalBench`).
struct BenchPersonalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "personal",
        abstract: "Time personal queries, backup and restore, and the token check on a cache.",
        discussion: """
            Writes two users into the cache's personal tables (replacing their data: use a copy of the \
            cache): --user with --bookmarks, --ratings, --memos and --visits on places drawn over the \
            whole cache, and --rater with --rated-near ratings among the places within 20 km of Seoul \
            City Hall. Then, one thread, each query --runs times (its latency the median), one JSON \
            line per measurement: loading a user's data (what the server reads for each personal \
            request); each workload circle plain, with the rarest content type as a category filter, \
            and bookmarked (p50ToCategory: the ratio of the p50s); sorted by -rating,distance within \
            20 km of the workload's centres within 10 km of City Hall, first page of 30, with and \
            without --min-rating 1; each user's backup restored into a fresh cache and backed up again \
            (identical: the same bytes); the token check among 20 users. scripts/bench-personal.sh \
            runs it on the 1M workload and adds the HTTP figures.

              nearby bench personal --db /tmp/personal/w1m.sqlite --queries /tmp/w1m.queries.tsv
            """
    )

    @Option(help: "The cache (its personal tables are written).")
    var db: String

    @Option(help: "Workload queries TSV (qid lat lon radius_m limit).")
    var queries: String

    @Option(help: "Answer only the first N queries of the file (0 = all).")
    var first: Int = 1_000

    @Option(help: "Engine: snapshot (the server's default), memory or sqlite.")
    var engine: EngineKind = .snapshot

    @Option(help: "Runs of each query; its latency is their median.")
    var runs: Int = 5

    @Option(help: "The user with items spread over the cache.")
    var user = "bench"
    @Option(help: "That user's bookmarks.") var bookmarks = 2_000
    @Option(help: "That user's ratings.") var ratings = 500
    @Option(help: "That user's memos.") var memos = 200
    @Option(help: "That user's visited places.") var visits = 300

    @Option(help: "The user with ratings near Seoul City Hall.")
    var rater = "bench-rater"
    @Option(help: "That user's ratings, among the places within 20 km of City Hall.")
    var ratedNear = 10_000

    @Option(help: "Seed of the users' draws.")
    var seed: UInt64 = 2026

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        guard first >= 0 else { throw ValidationError("--first must be at least 0") }
        guard engine != .postgis else { throw ValidationError("--engine: snapshot, memory or sqlite") }
        for n in [bookmarks, ratings, memos, visits, ratedNear] where n < 0 {
            throw ValidationError("item counts must be at least 0")
        }
        guard user != rater else { throw ValidationError("--user and --rater must differ") }
    }

    func run() throws {
        var list = try Workload.readQueries(path: queries)
        if first > 0 { list = Array(list.prefix(first)) }
        var o = PersonalBench.Options()
        o.user = user
        o.bookmarks = bookmarks
        o.ratings = ratings
        o.memos = memos
        o.visits = visits
        o.rater = rater
        o.ratedNear = ratedNear
        o.runs = runs
        o.seed = seed
        // Each line as it is measured (unbuffered), for a pipe to show progress.
        try PersonalBench.run(path: db, engineKind: engine, queries: list, options: o) { line in
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
    }
}
