-- The desktop client's offline cache: the last server snapshot of each collection with the
-- client's own not-yet-replayed writes applied over it.
CREATE TABLE cached_records (
    collection TEXT NOT NULL,
    record_id TEXT NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (collection, record_id)
) WITHOUT ROWID;

CREATE TABLE cached_collections (
    collection TEXT NOT NULL PRIMARY KEY,
    fetched_at_ms BIGINT NOT NULL
);
