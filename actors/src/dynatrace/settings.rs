//! Where the Dynatrace actor reads its settings and token from (the store's pool and the token
//! vault, behind [`SettingsSource`] so tests can swap them), how the stored sync record seeds
//! the actor's memory after a restart, and the plain-words texts of query failures operators
//! see. The token leaves this module only towards the Grail client.

use std::sync::Arc;

use serde_json::Value;

use domain::dynatrace::grail::GrailError;
use domain::time::parse_datetime;
use infra::db::DbPool;
use infra::dynatrace::client::QueryError;
use infra::dynatrace::{load_config, StoredConfig, TokenVault};
use infra::http::HttpError;

use super::plan::SyncMemory;

/// The settings and the token (when one is stored for the configured environment).
pub trait SettingsSource: Send + Sync + 'static {
    /// Blocking: runs on a blocking thread. Errors are operator texts.
    fn read(&self) -> Result<(StoredConfig, Option<String>), String>;
}

/// The production source: `relay_dynatrace_config` through the pool, the token from the vault.
pub struct Settings {
    pool: DbPool,
    vault: Arc<dyn TokenVault>,
}

impl Settings {
    pub fn new(pool: DbPool, vault: Arc<dyn TokenVault>) -> Settings {
        Settings { pool, vault }
    }
}

impl SettingsSource for Settings {
    fn read(&self) -> Result<(StoredConfig, Option<String>), String> {
        let mut conn = self.pool.get().map_err(|_| "Relay could not read the Dynatrace settings.".to_string())?;
        let (_, config) =
            load_config(&mut conn).map_err(|_| "Relay could not read the Dynatrace settings.".to_string())?;
        drop(conn);
        if !config.token_usable() {
            return Ok((config, None));
        }
        let token = self
            .vault
            .get()
            .map_err(|_| "Relay could not read the Dynatrace token from the secret store.".to_string())?;
        Ok((config, token))
    }
}

fn date(record: &Value, field: &str) -> Option<i64> {
    record[field].as_str().filter(|s| !s.is_empty()).and_then(|s| parse_datetime(s).ok())
}

/// The memory a stored sync record implies (so a restart neither forgets a backoff nor skips a
/// due reconciliation).
pub fn memory_from_record(record: &Value) -> SyncMemory {
    SyncMemory {
        last_success_ms: date(record, "lastSuccessAt"),
        last_reconciled_ms: date(record, "lastReconciledAt"),
        consecutive_failures: record["consecutiveFailures"].as_f64().unwrap_or(0.0).clamp(0.0, 1e6) as u32,
        stale_since_ms: date(record, "staleSince"),
        reconcile_pending: false,
    }
}

/// What an operator reads when a query failed: fixed texts, never a URL, token or answer.
pub fn operator_message(e: &QueryError) -> String {
    match e {
        QueryError::Grail(g) => match g {
            GrailError::RateLimited { retry_after_secs } => {
                format!("Dynatrace asked Relay to slow down; retrying in {retry_after_secs} s.")
            }
            other => other.to_string(),
        },
        QueryError::Http(h) => match h {
            HttpError::Timeout { .. } => "Dynatrace did not answer in time.".into(),
            HttpError::Connect { .. } => "Relay cannot reach the Dynatrace environment.".into(),
            HttpError::RedirectRefused { .. } => {
                "Dynatrace answered with a redirect, which Relay does not follow.".into()
            }
            HttpError::TooLarge { .. } => "Dynatrace's answer was larger than Relay accepts.".into(),
            HttpError::BadContentType { .. } | HttpError::Decode { .. } => {
                "Dynatrace's answer was not in the expected format.".into()
            }
            HttpError::Status { status, .. } => format!("Dynatrace answered with status {status}."),
            _ => "The request to Dynatrace failed.".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_texts_never_carry_the_origin() {
        let origin = "https://secret-env.apps.dynatrace.com".to_string();
        let errors = [
            QueryError::Http(HttpError::Timeout { origin: origin.clone() }),
            QueryError::Http(HttpError::Connect { origin: origin.clone() }),
            QueryError::Http(HttpError::Status { origin: origin.clone(), status: 500 }),
            QueryError::Http(HttpError::Transport { origin: origin.clone() }),
            QueryError::Grail(GrailError::TokenRejected),
        ];
        for e in errors {
            let text = operator_message(&e);
            assert!(!text.contains("secret-env"), "{text}");
            assert!(!text.is_empty());
        }
    }

    #[test]
    fn a_stored_record_restores_backoff_and_the_reconciliation_time() {
        let record = serde_json::json!({
            "lastSuccessAt": "2026-12-04 10:00:00.000Z",
            "lastReconciledAt": "2026-12-04 09:00:00.000Z",
            "consecutiveFailures": 3,
            "staleSince": "",
        });
        let memory = memory_from_record(&record);
        assert_eq!(memory.consecutive_failures, 3);
        assert!(memory.last_reconciled_ms.unwrap() < memory.last_success_ms.unwrap());
        assert_eq!(memory.stale_since_ms, None);
    }
}
