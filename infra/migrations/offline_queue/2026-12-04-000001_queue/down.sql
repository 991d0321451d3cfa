DROP TABLE pending_changes;
