-- The desktop client's queue of offline writes waiting for replay (one row per record after
-- coalescing). `version` rises with every edit so a replay settles only what it sent;
-- `base_updated` and `expected_fingerprint` pin the server copy the change was made on.
CREATE TABLE pending_changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    mutation_id TEXT NOT NULL,
    collection TEXT NOT NULL,
    record_id TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('create', 'update', 'delete')),
    data TEXT,
    timestamp_ms BIGINT NOT NULL,
    base_updated TEXT NOT NULL DEFAULT '',
    expected_fingerprint TEXT NOT NULL DEFAULT '',
    version BIGINT NOT NULL DEFAULT 1,
    sync_error TEXT NOT NULL DEFAULT ''
);

CREATE UNIQUE INDEX idx_pending_changes_record ON pending_changes (collection, record_id);
