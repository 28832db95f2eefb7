-- Nearby's PostgreSQL/PostGIS schema, version 4: the columns filters and sorts run on in SQL
-- (PostGISEngine pushes them down); their indexes are at the end.
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
-- The indexes sorted pages walk on these columns are version 7's (007_order_indexes.sql).
