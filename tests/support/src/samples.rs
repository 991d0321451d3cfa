//! Record bodies for every managed collection (a valid create, a valid update and the field it
//! changes, an invalid create) and the collection lists by who may write them, as the black-box
//! record and offline tests use them. Only data: no server, no requests.

use serde_json::{json, Value};

/// A valid create body for every managed collection.
pub fn sample(collection: &str) -> Value {
    match collection {
        "contacts" => {
            json!({"name": "Ada Lovelace", "email": "ada@example.com", "phone": "555-1234", "title": "NOC"})
        }
        "servers" => {
            json!({"name": "db-01", "businessArea": "Core", "lob": "IT", "owner": "ada@example.com", "os": "Linux"})
        }
        "oncall" => {
            json!({"team": "Network", "role": "Primary", "name": "Ada", "contact": "555-1234", "timeWindow": "24/7", "sortOrder": 0, "teamId": "network"})
        }
        "bridge_groups" => json!({"name": "DBAs", "contacts": ["ada@example.com"]}),
        "bridge_history" => {
            json!({"note": "outage", "groups": ["DBAs"], "contacts": ["ada@example.com"], "recipientCount": 1})
        }
        "alert_history" => {
            json!({"severity": "ISSUE", "subject": "VPN down", "bodyHtml": "<p>x</p>", "pinned": true, "label": "VPN"})
        }
        "alert_reminders" => {
            json!({"title": "Send update", "dueAt": "2026-12-02T15:00:00Z", "status": "pending", "severity": "INFO"})
        }
        "notes" => {
            json!({"entityType": "contact", "entityKey": "ada@example.com", "note": "on leave", "tags": ["hr"]})
        }
        "standalone_notes" => {
            json!({"title": "Runbook", "content": "- step", "color": "blue", "tags": ["ops"], "sortOrder": 1})
        }
        "oncall_dismissals" => json!({"alertType": "monday-weekly", "dateKey": "2026-12-02"}),
        "conflict_log" => {
            json!({"collection": "contacts", "recordId": "abc", "overwrittenData": {"name": "old"}, "overwrittenBy": "client"})
        }
        "oncall_board_settings" => {
            json!({"key": "primary", "teamOrder": ["network"], "locked": false})
        }
        "client_presence" => {
            json!({"sessionId": "sess-1", "hostname": "noc-1", "mode": "client", "lastSeen": "2026-12-02T12:00:00Z"})
        }
        "cloud_status" => json!({"provider": "aws", "items": [], "error": "forged"}),
        "cloud_status_notices" => {
            json!({"episode": "aws:forged", "provider": "aws", "itemId": "forged", "severity": "error", "title": "Fake outage"})
        }
        "dynatrace_problems" => {
            json!({"problemId": "forged-1", "title": "Forged", "status": "OPEN", "severity": "ERROR", "impactLevel": "SERVICES", "startTime": "2026-12-02T12:00:00Z"})
        }
        "dynatrace_problem_sync" => json!({"key": "problems", "state": "ok"}),
        "wiki_categories" => json!({"name": "Forged", "normalizedName": "forged", "sortOrder": 1}),
        "wiki_documents" => json!({"sourceKey": "forged", "categoryId": "wikiuncategoriz", "documentType": "sop",
            "title": "Forged runbook", "fileName": "forged.pdf", "checksum": "ab".repeat(32), "byteSize": 10,
            "pageCount": 1, "lifecycleState": "active"}),
        "dynatrace_problem_states" => {
            json!({"problemId": "-123_456V2", "addressed": true, "addressedAt": "2026-12-02T12:00:00Z", "addressedBy": "noc-1"})
        }
        "dynatrace_problem_notes" => {
            json!({"problemId": "-123_456V2", "note": "Called the DB team", "author": "noc-1"})
        }
        "oncall_history" => {
            json!({"recordId": "forged000000000", "action": "create", "team": "Network", "stateAfter": {"name": "Mallory"}})
        }
        other => panic!("no sample for {other}"),
    }
}

/// A valid update body and the field it changes, for every managed collection.
pub fn sample_update(collection: &str) -> (Value, &'static str) {
    match collection {
        "contacts" => (json!({"title": "Lead"}), "title"),
        "servers" => (json!({"os": "Windows"}), "os"),
        "oncall" => (json!({"role": "Backup"}), "role"),
        "bridge_groups" => (json!({"name": "DBA team"}), "name"),
        "bridge_history" => (json!({"recipientCount": 2}), "recipientCount"),
        "alert_history" => (json!({"pinned": false}), "pinned"),
        "alert_reminders" => (json!({"status": "done"}), "status"),
        "notes" => (json!({"note": "back"}), "note"),
        "standalone_notes" => (json!({"color": "red"}), "color"),
        "oncall_dismissals" => (json!({"dateKey": "2026-12-03"}), "dateKey"),
        "conflict_log" => (json!({"overwrittenBy": "server"}), "overwrittenBy"),
        "oncall_board_settings" => (json!({"locked": true}), "locked"),
        "dynatrace_problem_states" => (json!({"addressed": false}), "addressed"),
        other => panic!("no update for {other}"),
    }
}

/// An invalid create body for every managed collection.
pub fn invalid(collection: &str) -> Value {
    match collection {
        "contacts" => json!({"email": "not-an-email"}),
        "servers" => json!({"name": ""}),
        "oncall" => json!({"team": "x", "sortOrder": "abc"}),
        "bridge_groups" => json!({"name": "g", "contacts": "ada@example.com"}),
        "bridge_history" => json!({"recipientCount": -1}),
        "alert_history" => json!({"severity": "CRITICAL"}),
        "alert_reminders" => json!({"title": "t", "dueAt": "soon", "status": "pending"}),
        "notes" => json!({"entityType": "router", "entityKey": "x"}),
        "standalone_notes" => json!({"title": "x".repeat(201)}),
        "oncall_dismissals" => json!({"alertType": "", "dateKey": "2026-12-02"}),
        "conflict_log" => json!({"collection": "c", "recordId": "r", "overwrittenData": [1, 2]}),
        "oncall_board_settings" => json!({"key": "primary", "locked": "maybe"}),
        other => panic!("no invalid sample for {other}"),
    }
}

/// The collections clients may write through the record API.
pub const COLLECTIONS: &[&str] = &[
    "contacts",
    "servers",
    "oncall",
    "bridge_groups",
    "bridge_history",
    "alert_history",
    "alert_reminders",
    "notes",
    "standalone_notes",
    "oncall_dismissals",
    "oncall_board_settings",
];

/// Collections clients may read but only the server writes (record-API writes answer 403).
pub const SERVER_OWNED: &[&str] = &[
    "conflict_log",
    "client_presence",
    "cloud_status",
    "cloud_status_notices",
    "dynatrace_problems",
    "dynatrace_problem_sync",
    "wiki_categories",
    "wiki_documents",
    "oncall_history",
];

/// Collections clients write only partly: the Dynatrace addressed state (create and update,
/// never delete) and the append-only problem notes (create only).
pub const PARTLY_WRITABLE: &[&str] = &["dynatrace_problem_states", "dynatrace_problem_notes"];
