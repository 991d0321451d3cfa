//! The one list of the desktop bridge's command names. `build.rs` includes this file (`#[path]`)
//! to generate each command's `allow-*` permission, and `registry::tests` checks that the
//! handler `main` installs, `permissions/relay-bridge.toml` and the UI's desktop transport agree
//! with it. It holds names only: each command's access rule sits beside its code (a
//! `bridge::Command` const). No crate imports here: the build script compiles this file too.

/// Every command the renderer can invoke, in registration order.
pub const COMMANDS: &[&str] = &[
    "open_external",
    "open_service_desk",
    "open_aux_window",
    "open_dynatrace",
    "connection_info",
    "reveal_passphrase",
    "remember_passphrase",
    "forget_passphrase",
    "sign_in",
    "health",
    "stability_status",
    "discover_servers",
    "share_session",
    "aux_session",
    "save_setup",
    "reset_setup",
    "backup_status",
    "backup_list",
    "backup_create",
    "backup_verify",
    "backup_restore",
    "offline_status",
    "offline_cache_put",
    "offline_cache_read",
    "offline_mutate",
    "offline_replay",
    "pending_changes",
    "admin_status",
    "admin_sign_in",
    "admin_confirm_password",
    "admin_lock",
    "admin_command",
    "admin_set_logo",
    "admin_remove_logo",
    "admin_wiki_upload",
    "clear_dynatrace_session",
    "dynatrace_popouts",
    "close_dynatrace",
    "open_radar_sign_in",
    "finish_radar_sign_in",
];
