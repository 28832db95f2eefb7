-- Nearby's PostgreSQL/PostGIS schema, version 3: TourAPI details (the SQLite cache's schema 3 adds the
-- same). pet is the pet-friendliness level of a detailPetTour2 detail (all, some, no; `--pet`),
-- petinfo and barrierfree keep the original texts of the pet and detailWithTour2 details as JSON
-- objects; pending_details holds details whose place has not been imported yet, applied when it is.
-- accessmask gains the visitor-group bits (Accessibility.placeMask: a group's bit is set where one of
-- its facilities is); the numbers are the bit masks of Accessibility.members, checked by a test.
ALTER TABLE places ADD COLUMN pet text, ADD COLUMN barrierfree text, ADD COLUMN petinfo text;
CREATE TABLE pending_details (
    id text COLLATE "C" NOT NULL, kind text NOT NULL, fields text NOT NULL, PRIMARY KEY (id, kind));
UPDATE places SET accessmask = accessmask
    | (CASE WHEN accessmask & 3283983 <> 0 THEN 4194304 ELSE 0 END)  -- physical
    | (CASE WHEN accessmask & 794928 <> 0 THEN 8388608 ELSE 0 END)  -- visual
    | (CASE WHEN accessmask & 49216 <> 0 THEN 16777216 ELSE 0 END)  -- hearing
    | (CASE WHEN accessmask & 66176 <> 0 THEN 33554432 ELSE 0 END)  -- infants
    | (CASE WHEN accessmask & 133135 <> 0 THEN 67108864 ELSE 0 END)  -- elderly
WHERE accessmask <> 0;
