-- Nearby's PostgreSQL/PostGIS schema, version 5: titlekey (KoreanCollation.sortKey) sorts a Hanja with
-- its Hangul reading, as ICU's ko collation does (基 and 岐 as 기). PostGISStore.migrate recomputes the
-- key of every title with a Han ideograph in this migration's transaction; other keys are unchanged.
COMMENT ON COLUMN places.titlekey IS 'KoreanCollation.sortKey(title), Hanja by their Hangul reading (schema 5)';
