//! Relay's subsystem actors. Each subsystem lives in its own folder, owns its state and speaks
//! only typed messages; `system::start` starts them under actix supervisors on their own
//! arbiters and returns the addresses the web layer and the desktop shell talk to. The health
//! actor watches every other actor (state, last error, restarts, queue depth). The mDNS
//! `discovery` actor is not started by `system::start`; the desktop shell starts it when needed.

pub mod auth;
pub mod auth_coordinator;
pub mod discovery;
pub mod health;
pub mod presence;
pub mod privileged;
pub mod realtime;
pub mod store;
pub mod supervision;
pub mod system;
pub mod web_sessions;

pub use system::{start, Handles, RelayConfig};
