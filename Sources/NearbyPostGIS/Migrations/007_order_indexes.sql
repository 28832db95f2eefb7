-- Nearby's PostgreSQL/PostGIS schema, version 7: the indexes a sorted page walks, and the row count the
-- unfiltered total reads. A first import drops every index of places and builds them all again after
-- its COPY (PostGISWriter), so they cost it one build each, not a million insertions.
--
-- Every order ends with idkey ascending (the id tie-break), so each index below is a page's whole
-- ORDER BY: `ORDER BY key, idkey LIMIT n` is an index walk that stops after n rows, and a cursor's
-- keyset condition (PostGISStore.keysetPage) is a range of it.
--   places_title_order     (titlekey, idkey): arrange A and O, sort title.
--   places_modified_order  (modifiedts DESC, idkey): arrange C and Q, sort -modified.
--   places_created_order   (createdts DESC, idkey): arrange D and R, sort -created.
--   places_category_order  (category, idkey): sort category; also the exact count of a category filter
--                          (an index-only scan of its range).
--   places_category_title, places_category_modified, places_category_created: the three arrange orders
--                          within one category (contentTypeId with arrange, the commonest list screen):
--                          a walk of the category's range alone, however rare the category.
--   places_area            (areacode, sigungucode): the area and district filters and their counts.
--   places_event           (eventendday, eventstartday) of events only: the event-period filter reads
--                          the events ending on or after its first day, not the table.
-- The opposite direction (sort modified, created, -title) walks the same index backwards, where idkey
-- runs backwards too: PostgreSQL sorts each run of equal keys by idkey as it goes (an incremental
-- sort), so such a page still reads about its own rows.
CREATE INDEX IF NOT EXISTS places_title_order ON places (titlekey, idkey);
CREATE INDEX IF NOT EXISTS places_modified_order ON places (modifiedts DESC, idkey);
CREATE INDEX IF NOT EXISTS places_created_order ON places (createdts DESC, idkey);
CREATE INDEX IF NOT EXISTS places_category_order ON places (category, idkey);
CREATE INDEX IF NOT EXISTS places_category_title ON places (category, titlekey, idkey);
CREATE INDEX IF NOT EXISTS places_category_modified ON places (category, modifiedts DESC, idkey);
CREATE INDEX IF NOT EXISTS places_category_created ON places (category, createdts DESC, idkey);
CREATE INDEX IF NOT EXISTS places_area ON places (areacode, sigungucode);
CREATE INDEX IF NOT EXISTS places_event ON places (eventendday, eventstartday) WHERE eventstartday <> 0;
--
-- placecount: the number of rows of places, kept by PostGISWriter in the transaction of every write
-- (the net of its inserts and deletes, beside the generation it bumps), so an unfiltered total reads
-- one row instead of counting a million. A trigger would keep it too, but a statement trigger sees the
-- rows through a transition table, one more copy of every row of a first import, and a row trigger
-- updates the counter once per row. Nearby is the only writer of places (the generation, which every
-- cursor checks, assumes as much); a database edited by hand can set the row again with
-- UPDATE nearby_meta SET value = (SELECT count(*) FROM places) WHERE key = 'placecount'.
INSERT INTO nearby_meta VALUES ('placecount', (SELECT count(*) FROM places))
    ON CONFLICT (key) DO UPDATE SET value = excluded.value;
