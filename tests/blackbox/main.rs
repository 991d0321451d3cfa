//! Relay's black-box tests, one test binary (`cargo test -p relay --test blackbox`; one file per
//! area, `cargo test -p relay --test blackbox records::` runs one). Each test starts the real
//! `relay` binary as a child process through `support` (the `relay-test-support` crate in
//! `tests/support`), so the tests share no server, data directory or environment: a test that
//! needs process-wide state of its own re-runs itself as a child process (`support::child_test`,
//! `support::run_in_netns`). One binary links the server once instead of once per area.

mod alert_html;
mod alert_threads;
mod auth;
mod backup;
mod backup_crash;
mod branding;
mod control;
mod device;
mod dynatrace;
mod import;
mod lifecycle;
mod metrics;
mod migration;
mod never_logged;
mod no_multicast;
mod offline_client;
mod offline_replay;
mod oncall_history;
mod openapi;
mod oversize;
mod presence;
mod privileged;
mod radar;
mod realtime;
mod records;
mod server_secrets;
mod spreadsheet;
mod status_feeds;
mod web_gateway;
mod web_protected;
mod wiki;
