-- Nearby's PostgreSQL/PostGIS schema, version 1 (PostGISStore applies the files of this folder in
-- order, each in the transaction that sets nearby_meta.schemaVersion to its number).
--
-- places: one row per place; every Place field under its JSON name in lower case (PostgreSQL folds
--   unquoted names), accessibility as the tag list joined with ',' (NULL when empty) so it round-trips,
--   accessmask the bitmask of its known tags for SQL filters, and geom the point (lon, lat) in
--   EPSG:4326 for the GiST index every spatial prefilter uses. lat/lon stay as float8: the engine
--   refines with them, exactly, never with geom.
-- nearby_meta: schemaVersion; generation (bumped by every write that changes a row, part of every
--   cursor's fingerprint); cursorKey0/cursorKey1 (the random key that signs page cursors).
CREATE EXTENSION IF NOT EXISTS postgis;

CREATE TABLE nearby_meta(key text PRIMARY KEY, value bigint NOT NULL);

CREATE TABLE places(
    id text COLLATE "C" PRIMARY KEY,
    title text NOT NULL,
    lat float8 NOT NULL CHECK (lat BETWEEN -90 AND 90),
    lon float8 NOT NULL CHECK (lon BETWEEN -180 AND 180),
    category integer NOT NULL,
    created text, modified text COLLATE "C", areacode text, sigungucode text, addr text, tel text,
    image text, cat1 text, cat2 text, cat3 text, eventstart text, eventend text,
    accessibility text, accessmask integer NOT NULL DEFAULT 0,
    ldongregncd text, ldongsigngucd text, lclssystm1 text, lclssystm2 text, lclssystm3 text,
    geom geometry(Point, 4326) NOT NULL
);
CREATE INDEX places_geom ON places USING gist (geom);

INSERT INTO nearby_meta VALUES ('generation', 0);
