import Foundation
import NearbyKit

/// One timed query of a bench run.
public struct BenchTask: Sendable {
    public var qid: Int
    /// knn: the k asked for.
    public var k: Int?
    /// The latency group it belongs to besides "all" ("radius=500", "k=10").
    public var group: String
    public var query: PlaceQuery

    public init(qid: Int, k: Int? = nil, group: String, query: PlaceQuery) {
        self.qid = qid
        self.k = k
        self.group = group
        self.query = query
    }
}

/// Answers every task on the engines, timing each query alone, and fills the document's groups and
/// answers. Threads take tasks round-robin (thread t answers tasks t, t+threads, ...), each with its
/// own engine from `setup.engines`. The checksum is computed after the clock stops.
public enum BenchRunner {
    public static func run(_ tasks: [BenchTask], setup: BenchSetup, repetitions: Int, answersFile: String?) throws
        -> BenchDocument
    {
        let threads = setup.engines.count
        let progress = BenchProgress(setup.document.command)
        let engines = UncheckedSendable(setup.engines)
        let results = ResultCollector(count: tasks.count)
        let start = BenchClock.nanos()
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            let engine = engines.value[t]
            var done: [(index: Int, micros: Double, answer: BenchAnswer)] = []
            do {
                for index in stride(from: t, to: tasks.count, by: threads) {
                    let task = tasks[index]
                    var times: [Double] = []
                    var answer: QueryAnswer?
                    for _ in 0..<repetitions {
                        let t0 = BenchClock.nanos()
                        // Without records: the snapshot engine then fetches none (the others answer as `run`).
                        let a = try engine.run(task.query, records: false)
                        times.append(Double(BenchClock.nanos() - t0) / 1000)
                        if answer == nil { answer = a }
                    }
                    let a = answer!
                    done.append(
                        (
                            index, LatencyStats.median(times),
                            BenchAnswer(
                                qid: task.qid, k: task.k, total: a.total ?? 0, returned: a.rows.count,
                                checksum: a.rows.hasRecords
                                    ? AnswerChecksum.of(a.rows.lazy.map(\.id)) : AnswerChecksum.of(a.rows.ids))
                        ))
                    if t == 0 && done.count % 256 == 0 {
                        progress.say("\(done.count * threads) / \(tasks.count) queries")
                    }
                }
                results.store(done)
            } catch {
                results.fail(error)
            }
        }
        let wall = Double(BenchClock.nanos() - start) / 1e9
        progress.done()
        let (micros, answers) = try results.finish()

        var doc = setup.document
        doc.seconds.queries = wall
        doc.memory.afterQueries = ResidentMemory.now()
        doc.answers = answers
        var groups = [group("all", Array(tasks.indices), micros, answers)]
        groups[0].queriesPerSecond = Double(tasks.count * repetitions) / wall
        var order: [String] = []
        var members: [String: [Int]] = [:]
        for (i, task) in tasks.enumerated() {
            if members[task.group] == nil { order.append(task.group) }
            members[task.group, default: []].append(i)
        }
        groups += order.map { group($0, members[$0]!, micros, answers) }
        doc.groups = groups
        if let answersFile { try writeAnswers(answers, to: answersFile) }
        return doc
    }

    static func group(_ name: String, _ indices: [Int], _ micros: [Double], _ answers: [BenchAnswer]) -> BenchGroup {
        let stats = LatencyStats(indices.map { micros[$0] })
        return BenchGroup(
            name: name, queries: indices.count, latencyMicros: stats,
            queriesPerSecond: stats.mean > 0 ? 1e6 / stats.mean : 0,
            totalResults: indices.reduce(0) { $0 + answers[$1].returned },
            totalMatches: indices.reduce(0) { $0 + answers[$1].total })
    }

    /// TSV `qid total returned checksum` (with a `k` column after qid when the run has k values).
    public static func writeAnswers(_ answers: [BenchAnswer], to path: String) throws {
        let withK = answers.contains { $0.k != nil }
        var text = withK ? "qid\tk\ttotal\treturned\tchecksum\n" : "qid\ttotal\treturned\tchecksum\n"
        for a in answers {
            text += withK ? "\(a.qid)\t\(a.k ?? 0)\t" : "\(a.qid)\t"
            text += "\(a.total)\t\(a.returned)\t\(a.checksum)\n"
        }
        do { try text.write(toFile: path, atomically: true, encoding: .utf8) } catch {
            throw UsageError("\(path): cannot write answers: \(error.localizedDescription)")
        }
    }
}

/// Per-task results from the worker threads, merged under a lock; the first error wins.
private final class ResultCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var micros: [Double]
    private var answers: [BenchAnswer?]
    private var error: Error?

    public init(count: Int) {
        micros = Array(repeating: 0, count: count)
        answers = Array(repeating: nil, count: count)
    }

    public func store(_ done: [(index: Int, micros: Double, answer: BenchAnswer)]) {
        lock.lock()
        defer { lock.unlock() }
        for d in done {
            micros[d.index] = d.micros
            answers[d.index] = d.answer
        }
    }

    public func fail(_ e: Error) {
        lock.lock()
        defer { lock.unlock() }
        if error == nil { error = e }
    }

    public func finish() throws -> ([Double], [BenchAnswer]) {
        lock.lock()
        defer { lock.unlock() }
        if let error { throw error }
        return (micros, answers.map { $0! })
    }
}

/// Hands values to worker threads that only read them (engines are safe for concurrent reads).
public struct UncheckedSendable<T>: @unchecked Sendable {
    public let value: T
    public init(_ value: T) { self.value = value }
}
