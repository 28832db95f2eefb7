import Dispatch
import NearbyCore
import NearbyRegions
import NearbyStore

/// The one import path: files (or places already in memory) into the cache, in ONE transaction.
///
/// Records stream from the reader straight to the writer; nothing is collected, so an import's memory
/// does not grow with its size (the input itself is mapped and given back as it is read, see
/// `InputFile`). Every command that fills a cache — `nearby import`, the default cache, the bench's
/// temporary cache — comes through here.
public struct Importer {
    /// Read every input as this format instead of detecting it.
    public var format: ImportFormat?
    /// Read every input in this text encoding instead of detecting it.
    public var encoding: TextEncoding?
    /// Stop at the first bad record; nothing changes.
    public var strict = false
    /// The largest record read (`PlaceParser.defaultMaxRecordBytes` by default): a larger one stops
    /// the import, and nothing changes.
    public var maxRecordBytes = PlaceParser.defaultMaxRecordBytes
    /// Told about each bad record that was skipped (not in strict mode).
    public var onRejected: (RecordError) -> Void = { _ in }
    /// Told what is going on, for a progress line.
    public var onProgress: (String) -> Void = { _ in }
    /// Told when each step of a cache import begins (reading an input, committing, writing the index
    /// snapshot) and when it is done: `nearby import --verbose` times the steps with it.
    public var onStep: (String) -> Void = { _ in }
    /// Told, once, when the index snapshot could not be brought up to date (the import still counts).
    public var onWarning: (String) -> Void = { _ in }
    /// When set, the region index it loads checks every imported place's legal-dong codes against its
    /// coordinates (`RegionIndex.checkCodes`): a place without `lDongRegnCd`/`lDongSignguCd`
    /// gets them derived, marked `lDongSource` `coordinates`; a place whose codes name another region is
    /// kept as given and reported to `onCodeWarning`. Places at sea or abroad are left as they are.
    /// A loader, not an index: the index lives for the write only, so its memory (tens of MB) is given
    /// back before the snapshot is written. When it fails, `onWarning` says so and codes are left alone.
    public var regions: (() throws -> RegionIndex)?
    /// Told about each place whose codes disagree with its coordinates (`file:line: lDongRegnCd: …`).
    public var onCodeWarning: (RecordError) -> Void = { _ in }
    /// The language of the records read (a TourAPI language service's answers): each record's id becomes
    /// the language's cached id (`en:264337`, also for deletes and details) and each content type its
    /// Korean number (`TourLanguage`). Korean (the default) keeps records as they are.
    public var language = TourLanguage.ko

    public init(format: ImportFormat? = nil, strict: Bool = false) {
        self.format = format
        self.strict = strict
    }

    /// Imports `paths` (`-` is standard input) into `cache` in one transaction and says what it did.
    /// Throws (and changes nothing) when an input cannot be read or is in no supported format, when
    /// the cache is busy or fails, and in strict mode at the first bad record.
    public func importFiles(_ paths: [String], into cache: PlaceCache) throws -> ImportSummary {
        // Files are opened before the write begins, so a missing one changes nothing; standard input
        // is read in its turn (a producer may still be writing it while earlier inputs are imported).
        let opened = try paths.map { path in path == "-" ? nil : try open(path) }
        // Loaded before the write lock is taken (so the lock is held no longer than the write) and
        // dropped once the records are written, before the commit's R*Tree load and the snapshot.
        var regions = loadRegions()
        let feed = SnapshotFeed()
        let summary = try cache.write(feeding: feed) { writer in
            var summary = ImportSummary()
            for input in opened {
                summary.files.append(try importFile(try input ?? open("-"), into: writer, regions: regions))
            }
            regions = nil
            step("updating the spatial index and committing")
            summary.counts = writer.counts
            summary.counts.rejected = summary.files.reduce(0) { $0 + $1.rejected }
            return summary
        }
        step("writing the index snapshot")
        CacheSnapshot.update(cache, feed: feed, report: onWarning)
        onStep("done")
        return summary
    }

    /// Imports `paths` into another database in one transaction (PostgreSQL/PostGIS: NearbyPostGIS's
    /// `PostGISStore.write` and `PostGISWriter.apply`, joined where both modules are linked): the same
    /// reading, records, counts and `file:line` errors as into a cache; only the writer differs.
    /// `write` runs its body with the database's writer inside its transaction; `apply` is called
    /// after the last record, before the counts are read.
    public func importFiles<Writer: PlaceSink>(
        _ paths: [String], write: ((Writer) throws -> ImportSummary) throws -> ImportSummary,
        apply: (Writer) throws -> Void
    ) throws -> ImportSummary {
        let opened = try paths.map { path in path == "-" ? nil : try open(path) }
        let regions = loadRegions()
        return try withoutActuallyEscaping(apply) { apply in
            try write { writer in
                var summary = ImportSummary()
                for input in opened {
                    summary.files.append(
                        try importFile(try input ?? open("-"), into: writer, regions: regions))
                }
                onProgress("applying the records and committing")
                try apply(writer)
                summary.counts = writer.counts
                summary.counts.rejected = summary.files.reduce(0) { $0 + $1.rejected }
                return summary
            }
        }
    }

    /// Imports documents already in memory (the pages and details a sync fetched, each named for
    /// messages) into `cache` in one transaction, as `importFiles` imports files; `alongside` runs in the
    /// same transaction after the last record (a sync saves its checkpoint there, so a page and the
    /// checkpoint after it commit together). The index snapshot is left alone: a sync applies many
    /// such writes and updates it once at the end (`CacheSnapshot.update`).
    public func importDocuments(
        _ documents: [(name: String, bytes: [UInt8])], into cache: PlaceCache,
        alongside: (PlaceCacheWriter) throws -> Void = { _ in }
    ) throws -> ImportSummary {
        let opened = try documents.map { try InputFile(name: $0.name, bytes: $0.bytes, format: format) }
        let regions = loadRegions()
        return try cache.write { writer in
            var summary = ImportSummary()
            for input in opened { summary.files.append(try importFile(input, into: writer, regions: regions)) }
            try alongside(writer)
            summary.counts = writer.counts
            summary.counts.rejected = summary.files.reduce(0) { $0 + $1.rejected }
            return summary
        }
    }

    /// Writes `places` (already valid, e.g. generated) into `cache` in one transaction.
    public func importPlaces<S: Sequence<Place>>(_ places: S, into cache: PlaceCache) throws -> WriteCounts {
        try cache.write { writer in
            for place in places { try writer.upsert(place) }
            return writer.counts
        }
    }

    /// Opens an input, checking a non-regular one as it is read (`InputFile`).
    private func open(_ path: String) throws -> InputFile {
        try InputFile(path: path, format: format, encoding: encoding, maxRecordBytes: maxRecordBytes)
    }

    private func step(_ text: String) {
        onStep(text)
        onProgress(text)
    }

    private func loadRegions() -> RegionIndex? {
        do { return try regions?() } catch {
            onWarning("region codes are neither derived nor checked: \(error)")
            return nil
        }
    }

    private func importFile(_ input: InputFile, into writer: some PlaceSink, regions: RegionIndex?) throws
        -> ImportSummary.File
    {
        var records = 0
        var rejected = 0
        var batch: [LineRecord] = []
        batch.reserveCapacity(Self.batchSize)
        // Records go in batches: a batch's region lookups run on another thread (`RegionLookups`) while
        // the next batch is parsed and the previous one written, in input order, with its warnings.
        var inFlight: (records: [LineRecord], lookups: RegionLookups?)?
        func write(_ records: [LineRecord], _ checks: [RegionCodeCheck?]?) throws {
            for (n, item) in records.enumerated() {
                switch item.record {
                case .upsert(var place):
                    if let check = checks?[n] { apply(check, to: &place, file: input.name, line: item.line) }
                    try writer.upsert(place)
                case .delete(let id): try writer.delete(id: id)
                case .detail(let detail): try writer.detail(detail)
                }
            }
        }
        func send() throws {
            let next = batch.isEmpty ? nil : (batch, regions.map { RegionLookups($0, batch) })
            batch = []
            batch.reserveCapacity(Self.batchSize)
            if let (records, lookups) = inFlight { try write(records, lookups?.results()) }
            inFlight = next
        }
        step("\(input.name): reading")
        let format = try PlaceParser.read(
            input.bytes, file: input.name, format: input.format, encoding: encoding, strict: strict,
            maxRecordBytes: maxRecordBytes,
            emit: { item in
                batch.append(language == .ko ? item : Self.record(item, in: language))
                if batch.count == Self.batchSize { try send() }
                records += 1
                if records % 100_000 == 0 { onProgress("\(input.name): \(records) records") }
            },
            reject: { error in
                rejected += 1
                onRejected(error)
            },
            consumed: { input.consumed(upTo: $0) })
        try send()  // the last batch goes in flight, the one before it is written
        try send()  // and then the last
        return ImportSummary.File(name: input.name, format: format, records: records, rejected: rejected)
    }

    /// `item` of a language service's answer as the cache keeps it: the language's id, the Korean content type.
    static func record(_ item: LineRecord, in language: TourLanguage) -> LineRecord {
        var item = item
        switch item.record {
        case .upsert(var place):
            place.id = language.storedID(place.id)
            place.category = language.storedContentType(place.category)
            item.record = .upsert(place)
        case .delete(let id): item.record = .delete(id: language.storedID(id))
        case .detail(var detail):
            detail.id = language.storedID(detail.id)
            item.record = .detail(detail)
        }
        return item
    }

    /// Records per batch: a few hundred KB of places, enough that handing a batch to another thread
    /// costs nothing measurable.
    static let batchSize = 4096

    private func apply(_ check: RegionCodeCheck, to place: inout Place, file: String, line: Int) {
        switch check {
        case .derived(let regn, let signgu):
            place.lDongRegnCd = regn
            place.lDongSignguCd = signgu
            place.lDongSource = "coordinates"
        case .disagrees(_, _, let message):
            onCodeWarning(
                RecordError(
                    file: file, line: line, field: "lDongRegnCd", reason: "warning: \(message); imported as given"))
        case .agrees, .unknownLocation: break
        }
    }
}

/// `RegionIndex.checkCodes` for every place of a batch, on a thread of its own (the index is
/// read-only): after parsing and writing, the lookups are the largest part of an import's work, and the
/// writer is single-threaded. Nil for records that are not places.
private final class RegionLookups: @unchecked Sendable {
    // @unchecked: `checks` is written by the lookup task before it leaves `group`, read after `wait`.
    private let group = DispatchGroup()
    private var checks: [RegionCodeCheck?] = []

    init(_ regions: RegionIndex, _ batch: [LineRecord]) {
        DispatchQueue.global().async(group: group) { [self] in
            checks = batch.map { item in
                guard case .upsert(let p) = item.record else { return nil }
                return regions.checkCodes(
                    lat: p.lat, lon: p.lon, lDongRegnCd: p.lDongRegnCd, lDongSignguCd: p.lDongSignguCd)
            }
        }
    }

    /// The lookups' answers, in the batch's order, once they are done.
    func results() -> [RegionCodeCheck?] {
        group.wait()
        return checks
    }
}

/// What one import did: the cache's counts and, per input, its format and records read and rejected.
public struct ImportSummary: Sendable {
    public struct File: Sendable {
        public var name: String
        public var format: ImportFormat
        public var records: Int
        public var rejected: Int
    }

    public var counts = WriteCounts()
    public var files: [File] = []

    /// The one JSON line `nearby import` prints.
    public func json() -> String {
        let c = counts
        var out = Array(
            """
            {"inserted":\(c.inserted),"updated":\(c.updated),"unchanged":\(c.unchanged),"older":\(c.older),\
            "deleted":\(c.deleted),"rejected":\(c.rejected),"pending":\(c.pending),"files":[
            """.utf8)
        for (i, file) in files.enumerated() {
            out.append(contentsOf: (i == 0 ? "{\"file\":" : ",{\"file\":").utf8)
            JSONWriter.appendString(file.name, to: &out)
            out.append(
                contentsOf: """
                    ,"format":"\(file.format.rawValue)","records":\(file.records),"rejected":\(file.rejected)}
                    """.utf8)
        }
        out.append(contentsOf: "]}".utf8)
        return String(decoding: out, as: UTF8.self)
    }
}
