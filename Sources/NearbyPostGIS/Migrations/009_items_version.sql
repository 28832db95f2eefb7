-- Nearby's PostgreSQL/PostGIS schema, version 9: a version of the users' items, as
-- user_tokens_version is one of users and tokens.
--   user_items_version  one row bumped by every statement that changes user_bookmarks, user_ratings,
--                  user_memos or user_visits (not user_history: a query reads no search): a server
--                  keeps users' data between queries while it holds (PostGISStore.itemsVersion), and
--                  it moves with the commit that changed them, whichever server or command wrote.
-- Every statement may run again (a database marked with an older version is migrated once more).
CREATE TABLE IF NOT EXISTS user_items_version(one boolean PRIMARY KEY DEFAULT true CHECK (one), version bigint NOT NULL);
INSERT INTO user_items_version VALUES (true, 0) ON CONFLICT DO NOTHING;
CREATE OR REPLACE FUNCTION nearby_bump_items_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE user_items_version SET version = version + 1;
    RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER user_bookmarks_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON user_bookmarks
    FOR EACH STATEMENT EXECUTE FUNCTION nearby_bump_items_version();
CREATE OR REPLACE TRIGGER user_ratings_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON user_ratings
    FOR EACH STATEMENT EXECUTE FUNCTION nearby_bump_items_version();
CREATE OR REPLACE TRIGGER user_memos_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON user_memos
    FOR EACH STATEMENT EXECUTE FUNCTION nearby_bump_items_version();
CREATE OR REPLACE TRIGGER user_visits_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON user_visits
    FOR EACH STATEMENT EXECUTE FUNCTION nearby_bump_items_version();
