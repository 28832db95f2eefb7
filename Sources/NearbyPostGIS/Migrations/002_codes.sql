-- Nearby's PostgreSQL/PostGIS schema, version 2: the two place fields added for KorService2 and Kakao
-- Local (the SQLite cache's schema 2 adds the same): kakaocategory, Kakao's category_group_code
-- (`--kakao-category`), and ldongsource, "coordinates" when the legal-dong codes were derived from the
-- place's position at import rather than given by the source.
ALTER TABLE places ADD COLUMN kakaocategory text, ADD COLUMN ldongsource text;
