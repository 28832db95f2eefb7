-- Nearby's PostgreSQL/PostGIS schema, version 6: titlekey (KoreanCollation.sortKey) sorts a Han ideograph
-- without a Hangul reading as ICU's ko collation does, by radical and then stroke count (HanOrder), not
-- by code point (𠀀 U+20000 between 丄 U+4E04 and 丌 U+4E0C). PostGISStore.migrate recomputes the key of
-- every title with a Han code point in this migration's transaction; other keys are unchanged.
COMMENT ON COLUMN places.titlekey IS 'KoreanCollation.sortKey(title), Hanja by their Hangul reading, other Han by radical and stroke (schema 6)';
