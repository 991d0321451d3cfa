//! IO of the Dynatrace Problems sync: the administrator's stored configuration
//! (`dynatrace_config`, revision-checked, never the token), the platform-token vault (the OS
//! secret store, or on a headless server an owner-only file with a warning), and the Grail query
//! client (`query:execute` then `query:poll`, through the one outbound HTTP policy: no
//! redirects, byte caps, per-request and overall deadlines, `Retry-After` honoured). The rules
//! themselves (URL checks, DQL, normalization, answer parsing) live in `domain::dynatrace`; this
//! module decides nothing about what a problem means. The Automation API reads of workflow
//! executions (`automation`) fetch only what a notification e-mail subject needs.

pub mod automation;
pub mod client;
pub mod config;
pub mod token;

pub use client::GrailClient;
pub use config::{load_config, save_config, ConfigStoreError, StoredConfig};
pub use token::{SecretStoreVault, TokenVault};
