//! Relay's test support, for the black-box tests (`tests/blackbox`), the benches
//! (`tests/bench`) and the soak (`tests/soak`): one server harness over the real `relay` binary
//! ([`Relay`], [`Relay::builder`]), its one-shot subcommands and child-test runs including
//! network-namespace ones ([`process`]), HTTP sign-ins ([`web`]), paired devices and signed
//! commands ([`privileged`]), record samples ([`samples`]), and the backup, Wiki, hostile-input
//! and bench-measurement helpers. A dev-only crate (never a dependency of shipped code), so
//! everything here is public API and nothing is included by path into each test binary.

pub mod backup;
pub mod bench;
pub mod hostile;
pub mod privileged;
pub mod process;
pub mod relay;
pub mod samples;
pub mod web;
pub mod wiki;

pub use privileged::{pair, pairing_code, reauth, signed_command, signed_envelope, Device};
pub use process::{admin_cli, assert_in_test_netns, child_test, relay_bin, relay_cli, run_in_netns, test_path};
pub use relay::{db_path, Relay, RelayBuilder, CLOSED_UPSTREAM, PASSPHRASE};
pub use samples::{invalid, sample, sample_update, COLLECTIONS, PARTLY_WRITABLE, SERVER_OWNED};
pub use web::{api_token, client, client_from, web_session, web_sign_in, WebSession};
