//! Registration of the desktop bridge commands: `COMMANDS` (from `registry/names.rs`, the one
//! list of command names, which `build.rs` turns into `allow-*` permissions) and `handler()`,
//! the invoke handler `main` installs. The tests keep the handler, the generated permissions,
//! `permissions/relay-bridge.toml`, `capabilities/default.json` and the UI's desktop transport
//! in agreement with that list, and drive every registered command through Tauri's mock runtime
//! to prove it refuses foreign callers. It holds no command logic.

// The binary needs only the handler; the list is for build.rs and the tests.
#[cfg(test)]
mod names;

#[cfg(test)]
pub use names::COMMANDS;

use crate::{
    admin_cmd, admin_logo_cmd, admin_wiki_cmd, backup_cmd, bridge, discovery_cmd, dynatrace_cmd, guards, laptop_cmd,
    launcher_link, offline_cmd, radar_cmd, recovery_cmd, secrets_cmd, session_cmd, setup_cmd, update_cmd,
    wiki_save_cmd,
};

/// The invoke handler: exactly the commands of `COMMANDS` (checked by `registry::tests`).
pub fn handler<R: tauri::Runtime>() -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static {
    tauri::generate_handler![
        bridge::open_external,
        bridge::open_service_desk,
        bridge::open_aux_window,
        bridge::open_dynatrace,
        secrets_cmd::connection_info,
        secrets_cmd::reveal_passphrase,
        secrets_cmd::remember_passphrase,
        secrets_cmd::forget_passphrase,
        secrets_cmd::sign_in,
        bridge::health,
        guards::stability_status,
        discovery_cmd::discover_servers,
        session_cmd::share_session,
        session_cmd::aux_session,
        setup_cmd::save_setup,
        setup_cmd::reset_setup,
        backup_cmd::backup_status,
        backup_cmd::backup_list,
        backup_cmd::backup_create,
        backup_cmd::backup_verify,
        backup_cmd::backup_restore,
        offline_cmd::offline_status,
        offline_cmd::offline_cache_put,
        offline_cmd::offline_cache_read,
        offline_cmd::offline_mutate,
        offline_cmd::offline_replay,
        offline_cmd::pending_changes,
        admin_cmd::admin_status,
        admin_cmd::admin_sign_in,
        admin_cmd::admin_confirm_password,
        admin_cmd::admin_lock,
        admin_cmd::admin_command,
        admin_logo_cmd::admin_set_logo,
        admin_logo_cmd::admin_remove_logo,
        admin_wiki_cmd::admin_wiki_upload,
        laptop_cmd::laptop_status,
        laptop_cmd::laptop_pair,
        laptop_cmd::laptop_sign_in,
        laptop_cmd::laptop_confirm_password,
        laptop_cmd::laptop_lock,
        laptop_cmd::laptop_command,
        laptop_cmd::laptop_forget,
        laptop_cmd::wiki::laptop_wiki_upload,
        wiki_save_cmd::wiki_save_pdf,
        dynatrace_cmd::clear_dynatrace_session,
        dynatrace_cmd::dynatrace_popouts,
        dynatrace_cmd::close_dynatrace,
        radar_cmd::open_radar_sign_in,
        radar_cmd::finish_radar_sign_in,
        update_cmd::update_status,
        update_cmd::update_check,
        update_cmd::update_download,
        update_cmd::update_cancel,
        update_cmd::update_prepare,
        update_cmd::update_restart,
        update_cmd::update_release_notes,
        recovery_cmd::recovery_status,
        recovery_cmd::recovery_rollback,
        recovery_cmd::recovery_repair,
        launcher_link::shell_mounted,
    ]
}

#[cfg(test)]
mod tests;
