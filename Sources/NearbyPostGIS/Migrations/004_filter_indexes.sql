-- Nearby's PostgreSQL/PostGIS schema, version 4: the columns filters and sorts run on in SQL
-- (PostGISEngine pushes them down), and why no index is made for them (at the end).
--
-- The columns are the in-memory engine's own keys, computed by the writer with the same Swift code
-- (PostGISStore.derivedValues), so SQL compares exactly what MemoryEngine compares:
--   titlekey       KoreanCollation.sortKey(title): bytea compares byte by byte, as the key is made to.
--                  A key, not a rank: a rank would change for every title after a new one.
--   createdts, modifiedts  PlaceTable.timestamp (yyyyMMddHHmmss as a number, 0 when missing).
--   eventstartday, eventendday  PlaceTable.day of eventstart, and of eventend or else eventstart.
--   titlefold      KeywordMatcher.fold(title): the keyword filter is a substring (or, for a keyword
--                  with lone initial consonants, a regular expression) of it.
--   idkey          the id order (PlaceTable.idPrecedes) as text in byte order: 'A', the length of the
--                  digits without leading zeros in ten digits, those digits, ' ', the id for an id of
--                  ASCII digits; 'B' and the id for any other. The tie-break of every sort.
-- Rows already there get them from PostGISStore.migrate, in this migration's transaction.
ALTER TABLE places
    ADD COLUMN titlekey bytea NOT NULL DEFAULT '\x',
    ADD COLUMN createdts bigint NOT NULL DEFAULT 0,
    ADD COLUMN modifiedts bigint NOT NULL DEFAULT 0,
    ADD COLUMN eventstartday integer NOT NULL DEFAULT 0,
    ADD COLUMN eventendday integer NOT NULL DEFAULT 0,
    ADD COLUMN titlefold text NOT NULL DEFAULT '',
    ADD COLUMN idkey text COLLATE "C" NOT NULL DEFAULT '';
--
-- Indexes: none beyond version 1's, by measurement on the 1M workload (BENCHMARKS.md, "PostGIS
-- engine", 2026-11-25 evening). A btree on (modifiedts DESC, idkey) or (createdts DESC, idkey) reads
-- an arrange C or D page in under a millisecond against 0.4-0.6 s for the top-N sort of a sequential
-- scan, but costs 1.2-1.3 s of the first import each (the import went from 1.39x to 1.54x of COPY +
-- index by hand with both, over the 1.5x target), while every page also counts its filter's rows
-- (0.2-0.3 s over 1M rows, index or not). A database serving mostly such pages can add them; the
-- engine's statements use them unchanged, and a first import rebuilds whatever indexes exist:
--   CREATE INDEX places_modified ON places (modifiedts DESC, idkey);
--   CREATE INDEX places_created ON places (createdts DESC, idkey);
