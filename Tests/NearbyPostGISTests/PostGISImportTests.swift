import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyPostGIS

/// `nearby import --pg` gives the SQLite cache's counts, `file:line` errors and places, import after import.
@Suite struct PostGISImportTests {
    static func jsonl(_ places: [Place], extra: [String] = []) -> String {
        var out: [UInt8] = []
        for p in places {
            PlaceJSON.append(p, to: &out)
            out.append(0x0A)
        }
        return String(decoding: out, as: UTF8.self) + extra.map { $0 + "\n" }.joined()
    }

    /// Imports `files` into a cache and a database; returns both summaries, errors and exports.
    static func importBoth(_ files: [String], cache: PlaceCache, store: PostGISStore) throws
        -> (sqlite: String, pg: String, sqliteErrors: [String], pgErrors: [String])
    {
        var sqliteErrors: [String] = []
        var pgErrors: [String] = []
        var importer = Importer()
        importer.onRejected = { sqliteErrors.append($0.description) }
        let a = try importer.importFiles(files, into: cache).json()
        importer.onRejected = { pgErrors.append($0.description) }
        let b = try importer.importFiles(files, into: store).json()
        return (a, b, sqliteErrors, pgErrors)
    }

    static func exports(_ cache: PlaceCache, _ store: PostGISStore) throws -> ([Place], [Place]) {
        var a: [Place] = []
        var b: [Place] = []
        try cache.forEachPlaceByID { a.append($0) }
        try store.forEachPlaceByID { b.append($0) }
        return (a, b)
    }

    /// A TourAPI sync list hiding (deleting) `ids`.
    static func syncDeletes(_ ids: [String]) -> String {
        let items = ids.map {
            #"{"contentid":"\#($0)","contenttypeid":"12","title":"","mapx":"","mapy":"","showflag":"0","modifiedtime":"20250402120000"}"#
        }
        return #"{"response":{"header":{"resultCode":"0000"},"body":{"items":{"item":["# + items.joined(separator: ",")
            + "]}}}}"
    }

    /// A first import goes straight into the empty `places` (`PostGISWriter`); repeats of an id, a
    /// delete before an id's upsert and deletes after still give the cache's counts and places, and
    /// the indexes are there after.
    @Test func firstImportWithRepeatsAndDeletesEqualsTheCache() throws {
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        let cluster = try PostgresCluster.shared()
        let url = try cluster.makeDatabase()
        let store = try PostGISStore(url: url, readOnly: false)
        let indexes = "SELECT string_agg(indexdef, '; ' ORDER BY indexname) FROM pg_indexes WHERE tablename = 'places'"
        let before = try cluster.psql(indexes, url: url)
        var g = QuerySampler(seed: 8)
        let places = g.places(40)
        var a = places[3]
        a.title = "A"
        a.modified = "29990101000000"
        var b = places[3]
        b.title = "B"
        b.modified = "28880101000000"  // older than A: kept out
        var c = places[5]
        c.title = "C"
        let files = [
            try dir.write("before.json", Self.syncDeletes([places[9].id, "absent"])),
            try dir.write("places.jsonl", Self.jsonl(places + [a, b, c, places[7]])),
            try dir.write("after.json", Self.syncDeletes([places[11].id, places[3].id])),
        ]
        let r = try Self.importBoth(files, cache: cache, store: store)
        #expect(r.sqlite == r.pg, "\(r.sqlite)\n\(r.pg)")
        #expect(r.pg.contains("\"deleted\":2") && r.pg.contains("\"inserted\":40"), "\(r.pg)")
        let e = try Self.exports(cache, store)
        #expect(e.0 == e.1 && e.1.count == 38)
        #expect(e.1.first { $0.id == places[5].id }?.title == "C")
        #expect(try cluster.psql(indexes, url: url) == before && before.contains("places_geom"))
    }

    /// The derived columns (`004_filter_indexes.sql`) are the same whether a row came through the
    /// binary COPY (`PostGISStore.appendDerived`) or a statement with text parameters
    /// (`derivedValues`: an id written three times in one import is folded and written by statement):
    /// ids of digits with and without leading zeros and of other text, titles whose fold grows, has
    /// characters outside the BMP or combining marks, dates missing or of a day only.
    @Test func derivedColumnsAreTheSameThroughCopyAndStatements() throws {
        let dir = try TempFolder()
        let cluster = try PostgresCluster.shared()
        var g = QuerySampler(seed: 13)
        var places = g.places(8)
        let ids = ["007", "12", "0", "abc-1", "한글", "9".padding(toLength: 12, withPad: "1", startingAt: 0), "x\\y", ""]
        let titles = ["Straße ＡＢＣ", "😀 여행 𠀀", "Cafe\u{301} e\u{301}", "ㄱㅏ 가", "ﬁ ǅ Ⅻ", "", "İstanbul", "ß"]
        for i in places.indices {
            places[i].id = ids[i].isEmpty ? "e\(i)" : ids[i]
            places[i].title = titles[i].isEmpty ? "t" : titles[i]
        }
        places[1].created = nil
        places[2].modified = nil
        places[3].eventStart = "20250101"
        places[3].eventEnd = nil
        places[4].accessibility = ["wheelchair", "braille-block"]
        let columns = "id, accessmask, titlekey, createdts, modifiedts, eventstartday, eventendday, titlefold, idkey"
        var rows: [String] = []
        var rejected: [String] = []
        var importer = Importer()
        importer.onRejected = { rejected.append($0.description) }
        for copies in [1, 3] {
            var records: [Place] = []
            for p in places {
                for n in 0..<copies {
                    var q = p
                    q.tel = "0\(n)"
                    records.append(q)
                }
            }
            let url = try cluster.makeDatabase()
            _ = try importer.importFiles(
                [try dir.write("p\(copies).jsonl", Self.jsonl(records))], into: PostGISStore(url: url, readOnly: false))
            rows.append(try cluster.psql("SELECT \(columns) FROM places ORDER BY id", url: url))
        }
        #expect(rejected.isEmpty, "\(rejected)")
        #expect(rows[0] == rows[1] && rows[0].split(separator: "\n").count == places.count, "\(rows[0])\n\(rows[1])")
        let url = try cluster.makeDatabase()
        _ = try Importer().importFiles(
            [try dir.write("one.jsonl", Self.jsonl(places))], into: PostGISStore(url: url, readOnly: false))
        let store = try PostGISStore(url: url)
        for p in places {
            let stored = try cluster.psql(
                "SELECT \(columns) FROM places WHERE id = '\(p.id.replacingOccurrences(of: "'", with: "''"))'", url: url
            )
            let values = PostGISStore.derivedValues(p)
            #expect(
                stored.trimmingCharacters(in: .newlines) == ([p.id] + values).joined(separator: "|"),
                "\(stored) \(values)")
        }
        #expect(try store.count() == places.count)
    }

    @Test func sameCountsErrorsAndPlacesAsTheCache() throws {
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        let store = try PostGISStore(url: try PostgresCluster.shared().makeDatabase(), readOnly: false)
        var g = QuerySampler(seed: 3)
        var places = g.places(300)
        // COPY must carry: tabs, newlines, backslashes, quotes, Korean, an empty string.
        places[1].title = "탭\t줄\n바꿈 \\N 백\\슬래시 \"따옴표\""
        places[2].addr = ""
        places[3].accessibility = ["parking", "wheelchair"]
        let first = try dir.write(
            "first.jsonl",
            Self.jsonl(
                places,
                extra: [
                    #"{"id":"bad1","title":"no lat","lon":127,"category":12}"#, "not json",
                ]))
        var r = try Self.importBoth([first], cache: cache, store: store)
        #expect(r.sqlite == r.pg)
        #expect(r.sqliteErrors == r.pgErrors && r.pgErrors.count == 2, "\(r.pgErrors)")
        var e = try Self.exports(cache, store)
        #expect(e.0 == e.1 && e.1.count == 300, "\(e.1.count) \(r.pg)")

        // Again: all unchanged.
        r = try Self.importBoth([first], cache: cache, store: store)
        #expect(r.sqlite == r.pg && r.pg.contains("\"unchanged\":300"))

        // Newer, older, identical, repeats of one id inside one file (in order), and deletes.
        var second: [Place] = []
        var newer = places[10]
        newer.title = "newer"
        newer.modified = "29990101000000"
        second.append(newer)
        var older = places[11]
        older.title = "older"
        older.modified = "19000101000000"
        if places[11].modified != nil { second.append(older) }
        second.append(places[12])
        var a = places[13]
        a.title = "A"
        a.modified = "29990101000000"
        var b = places[13]
        b.title = "B"
        b.modified = "28880101000000"  // older than A: kept out
        var c = places[13]
        c.title = "C"
        c.modified = "29990101000000"  // equal: wins
        second += [a, b, c]
        var moved = places[14]
        moved.lat += 1
        moved.modified = "29990101000000"
        second.append(moved)
        var fresh = places[15]
        fresh.id = "new-1"
        second += [fresh, fresh]
        let secondFile = try dir.write("second.jsonl", Self.jsonl(second))
        let deletes = try dir.write("sync.json", Self.syncDeletes([places[20].id, "absent", "new-1"]))
        r = try Self.importBoth([secondFile, deletes], cache: cache, store: store)
        #expect(r.sqlite == r.pg, "\(r.sqlite)\n\(r.pg)")
        #expect(r.pg.contains("\"deleted\":2"))
        e = try Self.exports(cache, store)
        #expect(e.0 == e.1)
        #expect(e.1.first { $0.id == places[13].id }?.title == "C")
    }

    /// TourAPI details (NearbyStoreTests/Fixtures/RealData): waiting before their places, merged when
    /// they arrive, kept through a re-import of the list; the same counts, places and `--accessible`
    /// group and `--pet` answers as the SQLite cache.
    @Test func detailsMergeAsInTheCache() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../NearbyStoreTests/Fixtures/RealData").standardized
        func files(_ names: String...) -> [String] { names.map { folder.appendingPathComponent($0).path } }
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        let store = try PostGISStore(url: try PostgresCluster.shared().makeDatabase(), readOnly: false)
        for batch in [
            files("detailWithTour2.json", "detailPetTour2.jsonl"), files("bare-array.json", "batch-dump.json"),
            files("bare-array.json", "detailPetTour2.jsonl"),
        ] {
            let r = try Self.importBoth(batch, cache: cache, store: store)
            #expect(r.sqlite == r.pg, "\(r.sqlite)\n\(r.pg)")
        }
        let e = try Self.exports(cache, store)
        #expect(e.0 == e.1 && e.1.count == 4)
        #expect(e.1.first { $0.id == "126508" }?.accessibility.contains("physical") == true)
        CacheSnapshot.update(cache)
        let engines: [any QueryEngine] =
            try EngineKind.overCache.map { try $0.open(cache) } + [try PostGISEngine(store: store)]
        for pairs: [(name: String, value: String)] in [
            [("accessible", "visual")], [("accessible", "elderly")], [("pet", "some,no")],
        ] {
            let q = try QueryParameters.parse(pairs + [("limit", "0")])
            let answers = try engines.map { try $0.run(q) }
            #expect(answers.allSatisfy { $0 == answers[0] } && !answers[0].places.isEmpty, "\(pairs)")
        }
    }

    /// A list record bringing its own accessibility tags but no barrier-free detail replaces a place
    /// with a merged detail: it keeps the detail and the union of the tags (`Place.keepDetails`), so it
    /// is unchanged when its tags are among the merged ones and updated when it adds one; the counts and
    /// places equal the cache's.
    @Test func listRecordWithItsOwnTagsOverMergedDetails() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../NearbyStoreTests/Fixtures/RealData").standardized
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        let store = try PostGISStore(url: try PostgresCluster.shared().makeDatabase(), readOnly: false)
        var r = try Self.importBoth(
            ["bare-array.json", "detailWithTour2.json"].map { folder.appendingPathComponent($0).path },
            cache: cache, store: store)
        #expect(r.sqlite == r.pg, "\(r.sqlite)\n\(r.pg)")
        let merged = try #require(try cache.place(id: "126508"))
        #expect(merged.barrierFree != nil && merged.accessibility.count >= 2, "\(merged.accessibility)")
        var list = merged
        list.barrierFree = nil
        list.accessibility = [merged.accessibility[0]]
        var adding = list
        adding.accessibility =
            (adding.accessibility + [try #require(Accessibility.tags.first { !merged.accessibility.contains($0) })])
            .sorted()
        for (name, record, outcome) in [("same", list, "\"unchanged\":1"), ("adding", adding, "\"updated\":1")] {
            r = try Self.importBoth([try dir.write("\(name).jsonl", Self.jsonl([record]))], cache: cache, store: store)
            #expect(r.sqlite == r.pg, "\(name): \(r.sqlite)\n\(r.pg)")
            #expect(r.pg.contains(outcome), "\(name): \(r.pg)")
            let e = try Self.exports(cache, store)
            #expect(e.0 == e.1, "\(name)")
        }
    }

    /// 003_details.sql spells the visitor-group bits as numbers: they are `Accessibility.members`' masks.
    @Test func detailsMigrationHasTheGroupBits() throws {
        let sql = try #require(try PostGISStore.migrations().first { $0.version == 3 }).sql
        for group in Accessibility.categories {
            let members = try #require(Accessibility.mask(Accessibility.members[group] ?? []))
            #expect(
                sql.contains("accessmask & \(members) <> 0 THEN \(Accessibility.bit(group)!) ELSE 0 END)  -- \(group)"),
                "\(group)")
        }
    }

    @Test func strictImportChangesNothing() throws {
        let dir = try TempFolder()
        let store = try PostGISStore(url: try PostgresCluster.shared().makeDatabase(), readOnly: false)
        var g = QuerySampler(seed: 4)
        let file = try dir.write("a.jsonl", Self.jsonl(g.places(50), extra: ["{}"]))
        let generation = try store.generation()
        #expect(throws: RecordError.self) { try Importer(strict: true).importFiles([file], into: store) }
        #expect(try store.count() == 0 && store.generation() == generation)
    }

    /// A value the COPY cannot carry (a category beyond PostgreSQL's integer) fails the import, sent
    /// on the writer's sending thread, with the place named; nothing is written and the connection
    /// is usable after.
    @Test func copyFailureChangesNothing() throws {
        let dir = try TempFolder()
        let store = try PostGISStore(url: try PostgresCluster.shared().makeDatabase(), readOnly: false)
        var g = QuerySampler(seed: 5)
        var places = g.places(5000)
        places[4321].category = 3_000_000_000
        let file = try dir.write("a.jsonl", Self.jsonl(places))
        #expect { try Importer().importFiles([file], into: store) } throws: {
            "\($0)".contains("place \(places[4321].id): category 3000000000 is out of range")
        }
        #expect(try store.count() == 0)
        places[4321].category = 12
        _ = try Importer().importFiles([try dir.write("b.jsonl", Self.jsonl(places))], into: store)
        #expect(try store.count() == 5000)
    }

    @Test func secondWriterIsBusy() throws {
        let url = try PostgresCluster.shared().makeDatabase()
        let one = try PostGISStore(url: url, readOnly: false)
        let two = try PostGISStore(url: url, readOnly: false)
        try one.write { _ in
            #expect { try two.write { _ in } } throws: { ($0 as? PostGISError)?.isBusy == true }
        }
    }

    @Test func schemaVersionIsChecked() throws {
        let cluster = try PostgresCluster.shared()
        let empty = try cluster.makeDatabase()
        #expect { try PostGISStore(url: empty) } throws: { "\($0)".contains("no Nearby schema") }
        _ = try PostGISStore(url: empty, readOnly: false)
        _ = try PostGISStore(url: empty)
        try cluster.psql("UPDATE nearby_meta SET value = 99 WHERE key = 'schemaVersion'", url: empty)
        #expect { try PostGISStore(url: empty) } throws: { "\($0)".contains("newer than this nearby understands") }
        // A version-1 database (before kakaocategory and ldongsource) is refused by readers and
        // migrated in place by a writer.
        try cluster.psql(
            "ALTER TABLE places DROP COLUMN titlekey, DROP COLUMN createdts, DROP COLUMN modifiedts, "
                + "DROP COLUMN eventstartday, DROP COLUMN eventendday, DROP COLUMN titlefold, DROP COLUMN idkey; "
                + "ALTER TABLE places DROP COLUMN kakaocategory, DROP COLUMN ldongsource, "
                + "DROP COLUMN pet, DROP COLUMN barrierfree, DROP COLUMN petinfo; DROP TABLE pending_details; "
                + "UPDATE nearby_meta SET value = 1 WHERE key = 'schemaVersion'", url: empty)
        #expect { try PostGISStore(url: empty) } throws: {
            "\($0)".contains("schema version 1; run nearby import --pg")
        }
        _ = try PostGISStore(url: empty, readOnly: false)
        #expect(try PostGISStore(url: empty).count() == 0)
        try cluster.psql("SELECT kakaocategory, ldongsource, pet, barrierfree, petinfo FROM places", url: empty)
        try cluster.psql("SELECT id, kind, fields FROM pending_details", url: empty)
        #expect { try PostGISStore(url: "postgresql://nobody:secret@127.0.0.1:1/x") } throws: {
            "\($0)".contains("cannot connect") && !"\($0)".contains("secret") && !"\($0)".contains("\t")
                && !"\($0)".contains("\n")
        }
    }
}
