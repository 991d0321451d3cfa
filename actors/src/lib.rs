//! Relay's subsystem actors. Each subsystem lives in its own folder, owns its state and speaks
//! only typed messages; the `kit` gives every one of them the same constructor context, health
//! reporting and supervision. `system::start_server` starts the server-side subsystems (store,
//! realtime, metrics, auth, web sessions, presence, privileged) under actix supervisors on their own
//! arbiters and returns the addresses the web layer and the desktop shell talk to;
//! `system::start_client` starts the client-mode ones (the sign-in coordinator). The health
//! actor watches every other actor (state, last error, restarts, queue depth and its recent
//! history); the metrics actor renders them with request counts for Prometheus. The mDNS
//! `discovery` actor is started by the desktop shell only when it is needed, and the `updater`
//! actor belongs to the desktop alone (`system::start_desktop_updater`), never to `relay serve`.

pub mod auth;
pub mod auth_coordinator;
pub mod backup;
pub mod branding;
pub mod control;
pub mod discovery;
pub mod dynatrace;
pub mod health;
pub mod kit;
pub mod metrics;
pub mod offline_replay;
pub mod presence;
pub mod privileged;
pub mod radar;
pub mod realtime;
pub mod spreadsheet;
pub mod status_feeds;
pub mod store;
pub mod system;
#[cfg(test)]
pub(crate) mod testkit;
pub mod updater;
pub mod web_sessions;
pub mod wiki;

pub use system::{start_client, start_from_data_dir, start_server, ClientHandles, Handles, RelayConfig};
