-- Nearby's PostgreSQL/PostGIS schema, version 8: the personal tables, as the SQLite cache has them
-- (NearbyStore's PersonalStore.swift; PostGISPersonal.swift reads and writes these). The user is
-- user_name ("user" is a reserved word here). Imports never touch these tables and they name places
-- by id only (no foreign key): re-importing keeps every user's data, and a place that disappears keeps
-- its items, which come back with it. Times are Unix milliseconds; every item has `updated`, the time a
-- restore's merge compares.
--   users          a registered user; revoked stops its tokens, its data stays.
--   user_tokens    tokens only as the SHA-256 of their text, lowercase hex.
--   user_bookmarks a bookmark per (user, place, list), with the time it was added.
--   user_ratings   1 to 5 in steps of 0.5, one per (user, place).
--   user_memos     one memo per (user, place), created and updated.
--   user_visits    one row per (user, place, time).
--   user_history   the searches, one per (user, keyword), the newest at the top; capped by the writer.
--   user_tokens_version  one row bumped by every statement that changes users or user_tokens: a server
--                  rereads the active token hashes only when it moved.
-- Every statement may run again (a database marked with an older version is migrated once more).
CREATE TABLE IF NOT EXISTS users(
    name text COLLATE "C" PRIMARY KEY,
    revoked boolean NOT NULL DEFAULT false,
    created bigint NOT NULL,
    updated bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS user_tokens(hash text COLLATE "C" PRIMARY KEY, user_name text COLLATE "C" NOT NULL, created bigint NOT NULL);
CREATE TABLE IF NOT EXISTS user_bookmarks(
    user_name text COLLATE "C" NOT NULL, place text COLLATE "C" NOT NULL, list text COLLATE "C" NOT NULL,
    added bigint NOT NULL, updated bigint NOT NULL, PRIMARY KEY (user_name, place, list)
);
CREATE TABLE IF NOT EXISTS user_ratings(
    user_name text COLLATE "C" NOT NULL, place text COLLATE "C" NOT NULL,
    stars float8 NOT NULL CHECK (stars BETWEEN 1 AND 5 AND stars * 2 = round(stars * 2)),
    updated bigint NOT NULL, PRIMARY KEY (user_name, place)
);
CREATE TABLE IF NOT EXISTS user_memos(
    user_name text COLLATE "C" NOT NULL, place text COLLATE "C" NOT NULL, text text NOT NULL,
    created bigint NOT NULL, updated bigint NOT NULL, PRIMARY KEY (user_name, place)
);
CREATE TABLE IF NOT EXISTS user_visits(
    user_name text COLLATE "C" NOT NULL, place text COLLATE "C" NOT NULL, at bigint NOT NULL,
    updated bigint NOT NULL, PRIMARY KEY (user_name, place, at)
);
CREATE TABLE IF NOT EXISTS user_history(
    user_name text COLLATE "C" NOT NULL, keyword text COLLATE "C" NOT NULL, at bigint NOT NULL,
    updated bigint NOT NULL, PRIMARY KEY (user_name, keyword)
);
CREATE INDEX IF NOT EXISTS user_tokens_user ON user_tokens (user_name);

CREATE TABLE IF NOT EXISTS user_tokens_version(one boolean PRIMARY KEY DEFAULT true CHECK (one), version bigint NOT NULL);
INSERT INTO user_tokens_version VALUES (true, 0) ON CONFLICT DO NOTHING;
CREATE OR REPLACE FUNCTION nearby_bump_tokens_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE user_tokens_version SET version = version + 1;
    RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER users_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION nearby_bump_tokens_version();
CREATE OR REPLACE TRIGGER user_tokens_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON user_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION nearby_bump_tokens_version();
