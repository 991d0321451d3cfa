//! The operational collections Relay manages, described as data: each collection's name, its
//! stable PocketBase-style collection id, its fields with their kinds and limits, and its unique
//! keys. The store builds SQL from these descriptors, validation checks records against them and
//! the record API only reaches collections listed here (the allowlist).

/// System fields every record carries; they are set by the server, never by clients.
pub const SYSTEM_FIELDS: &[&str] = &["id", "created", "updated", "revision"];

/// Keys clients may send back (e.g. a whole record on update) that are ignored on write.
pub const IGNORED_INPUT_KEYS: &[&str] = &["created", "updated", "revision", "collectionId", "collectionName", "expand"];

/// Default text limit when a field names none (legacy IPC "field" limit).
pub const FIELD_LEN: usize = 1000;
/// Limit for names (legacy IPC "name" limit).
pub const NAME_LEN: usize = 500;
/// Limit for notes and comments.
pub const NOTE_LEN: usize = 10_000;
/// Limit for alert HTML bodies (`alert_history.bodyHtml`, `alert_reminders.alertBodyHtml`): room
/// for inline images as data URLs, as in the original's newest version (raised from 50,000).
pub const HTML_LEN: usize = 750_000;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum JsonShape {
    /// An array of strings, each at most `max_len` characters, at most `max_items` items.
    StringArray { max_items: usize, max_len: usize },
    /// Any JSON object, serialized size at most `max_bytes`.
    Object { max_bytes: usize },
    /// A list of JSON objects: at most `max_items`, serialized size at most `max_bytes`.
    ObjectArray { max_items: usize, max_bytes: usize },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FieldKind {
    Text {
        max_len: usize,
    },
    /// Text that must be a valid email address when non-empty.
    Email,
    Number {
        min: f64,
        max: f64,
        integer: bool,
    },
    Bool,
    /// A date-time stored in wire format (see `time`); empty means unset.
    Date,
    Select {
        values: &'static [&'static str],
    },
    Json {
        shape: JsonShape,
    },
}

impl FieldKind {
    /// SQL column type used by migrations and the store.
    pub fn sql_type(&self) -> &'static str {
        match self {
            FieldKind::Number { .. } => "REAL",
            FieldKind::Bool => "INTEGER",
            _ => "TEXT",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldSpec {
    pub name: &'static str,
    pub kind: FieldKind,
    pub required: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollectionSpec {
    pub name: &'static str,
    pub id: &'static str,
    pub fields: &'static [FieldSpec],
    /// Fields with a UNIQUE index in the database.
    pub unique: &'static [&'static str],
    /// Who may create, update and delete records through the record API. Server-owned
    /// collections are readable by clients but written only by their actor.
    pub writes: Writes,
    /// Which records clients may read through the record API and realtime.
    pub reads: Reads,
}

/// Read access to a collection's records through the record API and realtime (the server's own
/// actors read everything through their own queries).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// Every record is visible to every signed-in client.
    All,
    /// Only records whose text `field` equals `value` are visible (e.g. active Wiki documents):
    /// lists and views never return the others, and realtime delivers a change that leaves a
    /// record invisible as a deletion carrying only its id.
    FieldEquals { field: &'static str, value: &'static str },
}

impl Reads {
    /// Whether a record (as JSON) is visible to clients.
    pub fn admits(self, record: &serde_json::Value) -> bool {
        match self {
            Reads::All => true,
            Reads::FieldEquals { field, value } => record.get(field).and_then(serde_json::Value::as_str) == Some(value),
        }
    }
}

/// Write access to a collection through the ordinary record API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writes {
    /// Any signed-in client may create, update and delete (subject to validation).
    Clients,
    /// Clients create and update but never delete (e.g. a Dynatrace problem's addressed state:
    /// the record outlives every toggle); deletes answer 403.
    CreateUpdate,
    /// Clients only append (e.g. Dynatrace problem notes); updates and deletes answer 403.
    AppendOnly,
    /// Only the server writes it (e.g. `client_presence`, written by the heartbeat route with the
    /// server clock); record API writes answer 403.
    ServerOnly,
}

/// One kind of client write, for [`Writes::permits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteOp {
    Create,
    Update,
    Delete,
}

impl Writes {
    /// Whether a client may perform `op` on the collection through the record API (or replay it
    /// from the offline queue).
    pub fn permits(self, op: WriteOp) -> bool {
        match self {
            Writes::Clients => true,
            Writes::CreateUpdate => op != WriteOp::Delete,
            Writes::AppendOnly => op == WriteOp::Create,
            Writes::ServerOnly => false,
        }
    }
}

impl CollectionSpec {
    pub fn field(&self, name: &str) -> Option<&'static FieldSpec> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Whether `name` may be used in filters and sorts: a declared field or a system field.
    pub fn is_queryable(&self, name: &str) -> bool {
        SYSTEM_FIELDS.contains(&name) || self.field(name).is_some()
    }
}

const fn text(name: &'static str, max_len: usize) -> FieldSpec {
    FieldSpec { name, kind: FieldKind::Text { max_len }, required: false }
}
const fn required_text(name: &'static str, max_len: usize) -> FieldSpec {
    FieldSpec { name, kind: FieldKind::Text { max_len }, required: true }
}
const fn number(name: &'static str, min: f64, max: f64, integer: bool) -> FieldSpec {
    FieldSpec { name, kind: FieldKind::Number { min, max, integer }, required: false }
}
const fn boolean(name: &'static str) -> FieldSpec {
    FieldSpec { name, kind: FieldKind::Bool, required: false }
}
const fn date(name: &'static str, required: bool) -> FieldSpec {
    FieldSpec { name, kind: FieldKind::Date, required }
}
const fn select(name: &'static str, values: &'static [&'static str], required: bool) -> FieldSpec {
    FieldSpec { name, kind: FieldKind::Select { values }, required }
}
const fn string_array(name: &'static str, max_items: usize, max_len: usize) -> FieldSpec {
    FieldSpec { name, kind: FieldKind::Json { shape: JsonShape::StringArray { max_items, max_len } }, required: false }
}

pub const SEVERITIES: &[&str] = &["ISSUE", "MAINTENANCE", "INFO", "RESOLVED"];
pub const REMINDER_STATUSES: &[&str] = &["pending", "done", "dismissed"];
pub const NOTE_ENTITY_TYPES: &[&str] = &["contact", "server"];
pub const PRESENCE_MODES: &[&str] = &["client"];
/// Standalone note colors; any other stored value is presented as amber by the UI.
pub const NOTE_COLORS: &[&str] = &["amber", "blue", "green", "red", "purple", "slate"];

const TAGS: FieldSpec = string_array("tags", 20, 50);
const SORT_ORDER: FieldSpec = number("sortOrder", -1e9, 1e9, false);

pub static CONTACTS: CollectionSpec = CollectionSpec {
    name: "contacts",
    id: "pbc_contacts",
    fields: &[
        required_text("name", NAME_LEN),
        FieldSpec { name: "email", kind: FieldKind::Email, required: false },
        text("phone", FIELD_LEN),
        text("title", FIELD_LEN),
    ],
    unique: &[],
    writes: Writes::Clients,
    reads: Reads::All,
};

pub static SERVERS: CollectionSpec = CollectionSpec {
    name: "servers",
    id: "pbc_servers",
    fields: &[
        required_text("name", NAME_LEN),
        text("businessArea", FIELD_LEN),
        text("lob", FIELD_LEN),
        text("comment", NOTE_LEN),
        text("owner", FIELD_LEN),
        text("contact", FIELD_LEN),
        text("os", FIELD_LEN),
    ],
    unique: &[],
    writes: Writes::Clients,
    reads: Reads::All,
};

pub static ONCALL: CollectionSpec = CollectionSpec {
    name: "oncall",
    id: "pbc_oncall",
    fields: &[
        required_text("team", NAME_LEN),
        text("role", FIELD_LEN),
        text("name", NAME_LEN),
        text("contact", FIELD_LEN),
        text("timeWindow", FIELD_LEN),
        SORT_ORDER,
        text("teamId", NAME_LEN),
    ],
    unique: &[],
    writes: Writes::Clients,
    reads: Reads::All,
};

pub static BRIDGE_GROUPS: CollectionSpec = CollectionSpec {
    name: "bridge_groups",
    id: "pbc_bridge_groups",
    fields: &[required_text("name", NAME_LEN), string_array("contacts", 200, 320)],
    unique: &[],
    writes: Writes::Clients,
    reads: Reads::All,
};

pub static BRIDGE_HISTORY: CollectionSpec = CollectionSpec {
    name: "bridge_history",
    id: "pbc_bridge_history",
    fields: &[
        text("note", NOTE_LEN),
        string_array("groups", 500, NAME_LEN),
        string_array("contacts", 500, 320),
        number("recipientCount", 0.0, 100_000.0, true),
    ],
    unique: &[],
    writes: Writes::Clients,
    reads: Reads::All,
};

pub static ALERT_HISTORY: CollectionSpec = CollectionSpec {
    name: "alert_history",
    id: "pbc_alert_history",
    fields: &[
        select("severity", SEVERITIES, false),
        text("subject", NOTE_LEN),
        text("bodyHtml", HTML_LEN),
        text("sender", FIELD_LEN),
        text("recipient", FIELD_LEN),
        boolean("pinned"),
        text("label", NAME_LEN),
        // Alert threads (`crate::alert_threads`): the thread and the send's number in it are
        // server-assigned on create; the event times (instants) and the zone they were entered in.
        text("threadId", 15),
        number("updateNumber", 0.0, crate::alert_threads::MAX_UPDATE_NUMBER as f64, true),
        date("eventStart", false),
        date("eventEnd", false),
        text("timeZone", 100),
    ],
    unique: &[],
    writes: Writes::Clients,
    reads: Reads::All,
};

pub static ALERT_REMINDERS: CollectionSpec = CollectionSpec {
    name: "alert_reminders",
    id: "pbc_alert_reminders",
    fields: &[
        required_text("title", 180),
        text("note", NOTE_LEN),
        date("dueAt", true),
        select("status", REMINDER_STATUSES, true),
        date("snoozeUntil", false),
        select("severity", SEVERITIES, false),
        text("alertSubject", NOTE_LEN),
        text("alertBodyHtml", HTML_LEN),
        text("createdBy", FIELD_LEN),
        date("completedAt", false),
        date("dismissedAt", false),
    ],
    unique: &[],
    writes: Writes::Clients,
    reads: Reads::All,
};

pub static NOTES: CollectionSpec = CollectionSpec {
    name: "notes",
    id: "pbc_notes",
    fields: &[
        select("entityType", NOTE_ENTITY_TYPES, true),
        required_text("entityKey", NAME_LEN),
        text("note", NOTE_LEN),
        TAGS,
    ],
    unique: &[],
    writes: Writes::Clients,
    reads: Reads::All,
};

pub static STANDALONE_NOTES: CollectionSpec = CollectionSpec {
    name: "standalone_notes",
    id: "pbc_standalone_notes",
    fields: &[text("title", 200), text("content", NOTE_LEN), select("color", NOTE_COLORS, false), TAGS, SORT_ORDER],
    unique: &[],
    writes: Writes::Clients,
    reads: Reads::All,
};

pub static ONCALL_DISMISSALS: CollectionSpec = CollectionSpec {
    name: "oncall_dismissals",
    id: "pbc_oncall_dismissals",
    fields: &[required_text("alertType", 100), required_text("dateKey", 10)],
    unique: &[],
    writes: Writes::Clients,
    reads: Reads::All,
};

/// Offline changes the server refused because the record changed meanwhile: the server copy
/// the change would have overwritten. Written only by the offline replay route's transaction.
pub static CONFLICT_LOG: CollectionSpec = CollectionSpec {
    name: "conflict_log",
    id: "pbc_conflict_log",
    fields: &[
        required_text("collection", 100),
        required_text("recordId", 200),
        FieldSpec {
            name: "overwrittenData",
            kind: FieldKind::Json { shape: JsonShape::Object { max_bytes: 256 * 1024 } },
            required: true,
        },
        text("overwrittenBy", FIELD_LEN),
    ],
    unique: &[],
    writes: Writes::ServerOnly,
    reads: Reads::All,
};

pub static ONCALL_BOARD_SETTINGS: CollectionSpec = CollectionSpec {
    name: "oncall_board_settings",
    id: "pbc_oncall_board_settings",
    fields: &[required_text("key", 100), string_array("teamOrder", 500, NAME_LEN), boolean("locked")],
    unique: &["key"],
    writes: Writes::Clients,
    reads: Reads::All,
};

pub static CLIENT_PRESENCE: CollectionSpec = CollectionSpec {
    name: "client_presence",
    id: "pbc_client_presence",
    fields: &[
        required_text("sessionId", 200),
        required_text("hostname", 255),
        select("mode", PRESENCE_MODES, true),
        date("lastSeen", true),
    ],
    unique: &["sessionId"],
    writes: Writes::ServerOnly,
    reads: Reads::All,
};

/// Server-owned service status: one record per status-feed provider (`status_feeds` actor).
/// `items` are the last good normalized items; `error` is set while the latest poll failed;
/// `contentHash` lets the actor skip writes that would change nothing visible.
pub static CLOUD_STATUS: CollectionSpec = CollectionSpec {
    name: "cloud_status",
    id: "pbc_cloud_status",
    fields: &[
        select("provider", crate::status_feeds::PROVIDER_IDS, true),
        FieldSpec {
            name: "items",
            kind: FieldKind::Json {
                shape: JsonShape::ObjectArray {
                    max_items: crate::status_feeds::MAX_ITEMS_PER_PROVIDER,
                    max_bytes: 512 * 1024,
                },
            },
            required: false,
        },
        text("error", crate::status_feeds::MAX_ERROR_CHARS),
        date("checkedAt", false),
        date("lastSuccessAt", false),
        text("contentHash", 64),
    ],
    unique: &["provider"],
    writes: Writes::ServerOnly,
    reads: Reads::All,
};

/// Server-owned status toasts: one record per open toasted episode (`status_feeds` actor).
/// Clients toast on a realtime `create`; the record is deleted when the incident is no longer
/// active, so a recurrence is a new `create` (and a restart, which keeps the records, is not).
pub static CLOUD_STATUS_NOTICES: CollectionSpec = CollectionSpec {
    name: "cloud_status_notices",
    id: "pbc_cloud_status_notices",
    fields: &[
        required_text("episode", 600),
        select("provider", crate::status_feeds::PROVIDER_IDS, true),
        required_text("itemId", crate::status_feeds::MAX_ID_CHARS),
        select("severity", &["error", "warning"], true),
        text("title", crate::status_feeds::MAX_TITLE_CHARS),
    ],
    unique: &["episode"],
    writes: Writes::ServerOnly,
    reads: Reads::All,
};

pub const DYNATRACE_STATUSES: &[&str] = &["OPEN", "CLOSED"];
pub const DYNATRACE_SEVERITIES: &[&str] =
    &["AVAILABILITY", "CUSTOM_ALERT", "ERROR", "INFO", "MONITORING_UNAVAILABLE", "PERFORMANCE", "RESOURCE_CONTENTION"];
pub const DYNATRACE_IMPACT_LEVELS: &[&str] = &["APPLICATION", "INFRASTRUCTURE", "SERVICES", "ENVIRONMENT"];
/// Longest Dynatrace problem id Relay stores.
pub const DYNATRACE_PROBLEM_ID_LEN: usize = 200;

/// Server-owned Dynatrace problems (`dynatrace` actor), one record per problem id. The e-mail
/// subject is shown only while `emailSubjectStatus` equals `status`.
pub static DYNATRACE_PROBLEMS: CollectionSpec = CollectionSpec {
    name: "dynatrace_problems",
    id: "pbc_dynatrace_problems",
    fields: &[
        required_text("problemId", DYNATRACE_PROBLEM_ID_LEN),
        text("displayId", 100),
        text("title", 1000),
        select("status", DYNATRACE_STATUSES, true),
        select("severity", DYNATRACE_SEVERITIES, true),
        select("impactLevel", DYNATRACE_IMPACT_LEVELS, true),
        date("startTime", true),
        date("endTime", false),
        text("rootCauseId", 500),
        text("rootCauseName", 1000),
        FieldSpec {
            name: "affectedEntities",
            kind: FieldKind::Json { shape: JsonShape::ObjectArray { max_items: 100, max_bytes: 160 * 1024 } },
            required: false,
        },
        string_array("alertingProfiles", 100, 512),
        text("emailSubject", 1000),
        select("emailSubjectStatus", DYNATRACE_STATUSES, false),
        text("environmentUrl", 200),
        date("syncedAt", false),
    ],
    unique: &["problemId"],
    writes: Writes::ServerOnly,
    reads: Reads::All,
};

/// Server-owned state of the Dynatrace sync: one record, `key` = `problems`.
pub static DYNATRACE_PROBLEM_SYNC: CollectionSpec = CollectionSpec {
    name: "dynatrace_problem_sync",
    id: "pbc_dynatrace_problem_sync",
    fields: &[
        required_text("key", 50),
        select("state", &["disabled", "syncing", "ok", "error"], true),
        date("lastAttemptAt", false),
        date("lastSuccessAt", false),
        date("lastReconciledAt", false),
        date("staleSince", false),
        date("nextRetryAt", false),
        text("error", 500),
        number("consecutiveFailures", 0.0, 1e9, true),
        boolean("resultTruncated"),
        select("scopeSource", &["all", "alerting-profile", "custom-dql"], false),
        number("openCount", 0.0, 1e9, true),
    ],
    unique: &["key"],
    writes: Writes::ServerOnly,
    reads: Reads::All,
};

/// Operators' addressed flag per Dynatrace problem: created and updated by clients, never deleted.
pub static DYNATRACE_PROBLEM_STATES: CollectionSpec = CollectionSpec {
    name: "dynatrace_problem_states",
    id: "pbc_dynatrace_problem_states",
    fields: &[
        required_text("problemId", DYNATRACE_PROBLEM_ID_LEN),
        boolean("addressed"),
        date("addressedAt", false),
        text("addressedBy", 200),
    ],
    unique: &["problemId"],
    writes: Writes::CreateUpdate,
    reads: Reads::All,
};

/// Operators' notes on Dynatrace problems: append-only.
pub static DYNATRACE_PROBLEM_NOTES: CollectionSpec = CollectionSpec {
    name: "dynatrace_problem_notes",
    id: "pbc_dynatrace_problem_notes",
    fields: &[required_text("problemId", DYNATRACE_PROBLEM_ID_LEN), required_text("note", 4000), text("author", 200)],
    unique: &[],
    writes: Writes::AppendOnly,
    reads: Reads::All,
};

/// Wiki document types (`domain::wiki::DocumentType`): SOP Manual and Quick Guide.
pub const WIKI_DOCUMENT_TYPES: &[&str] = &["sop", "cheatsheet"];
pub const WIKI_LIFECYCLE_STATES: &[&str] = &["active", "trashed"];
pub const WIKI_SEARCH_STATES: &[&str] = &["pending", "ready", "failed"];
pub const WIKI_SEARCH_ERRORS: &[&str] = &["no-searchable-text", "extraction-failed", "storage-unavailable"];

/// Wiki categories (`wiki.category.*` commands): read by every client, written only by the
/// server. `systemKey` marks the built-in `uncategorized`, which cannot be deleted.
pub static WIKI_CATEGORIES: CollectionSpec = CollectionSpec {
    name: "wiki_categories",
    id: "pbc_wiki_categories",
    fields: &[
        required_text("name", crate::wiki::limits::MAX_CATEGORY_NAME_CHARS),
        required_text("normalizedName", crate::wiki::limits::MAX_CATEGORY_NAME_CHARS),
        SORT_ORDER,
        select("systemKey", &[crate::wiki::UNCATEGORIZED_KEY], false),
    ],
    unique: &["normalizedName"],
    writes: Writes::ServerOnly,
    reads: Reads::All,
};

/// Published Wiki documents (`wiki.publish` and the other `wiki.*` commands). Clients see only
/// active ones; the PDF and cover are content-addressed files named by `checksum` and
/// `coverChecksum`, served by the Wiki routes, never by the record API.
pub static WIKI_DOCUMENTS: CollectionSpec = CollectionSpec {
    name: "wiki_documents",
    id: "pbc_wiki_documents",
    fields: &[
        required_text("sourceKey", crate::wiki::limits::MAX_SOURCE_KEY_CHARS),
        required_text("categoryId", 15),
        select("documentType", WIKI_DOCUMENT_TYPES, true),
        required_text("title", crate::wiki::limits::MAX_TITLE_CHARS),
        required_text("fileName", crate::wiki::limits::MAX_FILE_NAME_CHARS),
        required_text("checksum", 64),
        number("byteSize", 0.0, crate::wiki::limits::MAX_PDF_BYTES as f64, true),
        number("pageCount", 0.0, crate::wiki::limits::MAX_PAGES as f64, true),
        FieldSpec {
            name: "outline",
            kind: FieldKind::Json {
                shape: JsonShape::ObjectArray {
                    max_items: crate::wiki::limits::MAX_OUTLINE_NODES,
                    max_bytes: 1024 * 1024,
                },
            },
            required: false,
        },
        text("coverChecksum", 64),
        select("lifecycleState", WIKI_LIFECYCLE_STATES, true),
        text("publishedByAccountId", 15),
        text("publishedByName", 200),
        date("publishedAt", false),
        date("trashedAt", false),
        text("trashedByName", 200),
        select("searchIndexState", WIKI_SEARCH_STATES, false),
        select("searchIndexError", WIKI_SEARCH_ERRORS, false),
        date("searchIndexedAt", false),
    ],
    unique: &[],
    writes: Writes::ServerOnly,
    reads: Reads::FieldEquals { field: "lifecycleState", value: "active" },
};

/// Every collection Relay manages, in a stable order.
pub static MANAGED: &[&CollectionSpec] = &[
    &CONTACTS,
    &SERVERS,
    &ONCALL,
    &BRIDGE_GROUPS,
    &BRIDGE_HISTORY,
    &ALERT_HISTORY,
    &ALERT_REMINDERS,
    &NOTES,
    &STANDALONE_NOTES,
    &ONCALL_DISMISSALS,
    &CONFLICT_LOG,
    &ONCALL_BOARD_SETTINGS,
    &CLIENT_PRESENCE,
    &CLOUD_STATUS,
    &CLOUD_STATUS_NOTICES,
    &DYNATRACE_PROBLEMS,
    &DYNATRACE_PROBLEM_SYNC,
    &DYNATRACE_PROBLEM_STATES,
    &DYNATRACE_PROBLEM_NOTES,
    &WIKI_CATEGORIES,
    &WIKI_DOCUMENTS,
    &crate::oncall_history::ONCALL_HISTORY,
];

/// Looks up a managed collection by name; anything else is not reachable.
pub fn collection(name: &str) -> Option<&'static CollectionSpec> {
    MANAGED.iter().copied().find(|c| c.name == name)
}

#[cfg(test)]
#[path = "collections_tests.rs"]
mod tests;
