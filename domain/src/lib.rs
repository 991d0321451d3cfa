//! Relay's pure domain: the collections Relay manages and their validation rules, the
//! PocketBase filter and sort languages, the `~` contains-search rules, token-bucket rate
//! limiting, log redaction, timestamp formatting, the backup rules (archive names, manifest,
//! health file, retention gate, pruning, restore journal), the typed privileged commands with
//! their authorization rules, the image and logo limits (`images`), the wiki publisher's upload,
//! search query and category rules (`wiki`), the desktop updater's release, download, archive,
//! publisher-signature, state-machine and recovery rules (`updater`), and `problem`, the one
//! trait every error answered over HTTP implements; `rich_html` is the alert-body HTML allowlist;
//! `work_condition` is the shape of a subsystem's "degraded: <reason>" / "not configured";
//! `presence` says who owns a presence row and how many rows a caller may hold.
//! Nothing in this crate performs IO or async work; callers pass time in as milliseconds so every
//! rule is deterministic under test.

pub mod alert_threads;
pub mod audit;
pub mod backup;
pub mod canonical;
pub mod collections;
pub mod control;
pub mod desktop_setup;
pub mod discovery;
pub mod dynatrace;
pub mod envelope;
pub mod external_links;
pub mod filter;
pub mod images;
pub mod import;
pub mod migration;
pub mod offline;
pub mod oncall_history;
pub mod presence;
pub mod privileged_command;
pub mod problem;
pub mod radar;
pub mod ratelimit;
pub mod record;
pub mod redact;
pub mod retention;
pub mod rich_html;
pub mod roles;
pub mod search;
pub mod search_merge;
pub mod secret_policy;
pub mod server_url;
pub mod signin_guard;
pub mod sort;
pub mod spreadsheet;
pub mod stability;
pub mod status_feeds;
pub mod text;
pub mod time;
pub mod updater;
pub mod validation;
pub mod web_origin;
pub mod wiki;
pub mod windows;
pub mod work_condition;
