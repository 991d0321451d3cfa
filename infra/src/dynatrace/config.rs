//! The stored Dynatrace configuration: one row of `relay_dynatrace_config` holding the typed settings
//! as JSON and the revision every change must name. A change whose expected revision is not
//! the stored one is refused without writing; a row that does not parse reads as "not
//! configured" (fail closed) and is replaced by the next change. The platform token is never
//! stored here: only the environment it was entered for, so a token can never be sent to an
//! environment other than the one an administrator entered it for.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use serde::{Deserialize, Serialize};

/// The administrator's settings, as stored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StoredConfig {
    /// Normalized `https://<id>.apps.dynatrace.com`, already validated.
    pub environment_url: Option<String>,
    #[serde(default)]
    pub alerting_profiles: Vec<String>,
    #[serde(default)]
    pub matcher: Option<String>,
    #[serde(default)]
    pub workflow_id: Option<String>,
    /// The scope comes from the workflow's DQL query task (then `matcher` is `None`).
    #[serde(default)]
    pub follow_workflow: bool,
    /// The DQL query task to follow (`None`: the workflow's only one).
    #[serde(default)]
    pub workflow_task: Option<String>,
    /// The environment the stored token was entered for; `None` when no token is stored.
    #[serde(default)]
    pub token_environment: Option<String>,
}

impl StoredConfig {
    /// Whether a token is stored for the configured environment (and only then may one be used).
    pub fn token_usable(&self) -> bool {
        self.environment_url.is_some() && self.token_environment == self.environment_url
    }

    /// Whether a sync can run: an environment and a token entered for it.
    pub fn is_complete(&self) -> bool {
        self.token_usable()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigStoreError {
    #[error("the Dynatrace settings changed meanwhile; reload and try again")]
    StaleRevision,
    #[error("database error: {0}")]
    Db(#[from] diesel::result::Error),
}

#[derive(QueryableByName)]
struct Row {
    #[diesel(sql_type = BigInt)]
    revision: i64,
    #[diesel(sql_type = Text)]
    config: String,
}

/// The stored settings and their revision (`0` and defaults when nothing is stored, or when
/// the stored row does not parse).
pub fn load_config(conn: &mut SqliteConnection) -> Result<(i64, StoredConfig), diesel::result::Error> {
    let rows: Vec<Row> =
        diesel::sql_query("SELECT revision, config FROM relay_dynatrace_config WHERE key = 'dynatrace'").load(conn)?;
    Ok(match rows.into_iter().next() {
        Some(row) => match serde_json::from_str::<StoredConfig>(&row.config) {
            Ok(config) => (row.revision, config),
            Err(_) => {
                tracing::warn!("the stored Dynatrace settings do not parse; treating Dynatrace as not configured");
                (row.revision, StoredConfig::default())
            }
        },
        None => (0, StoredConfig::default()),
    })
}

/// Stores `config` when the stored revision is `expected`; returns the new revision. Run it
/// inside the caller's transaction so the check and the write are one step.
pub fn save_config(
    conn: &mut SqliteConnection,
    expected: i64,
    config: &StoredConfig,
    updated: &str,
) -> Result<i64, ConfigStoreError> {
    let (current, _) = load_config(conn)?;
    if current != expected {
        return Err(ConfigStoreError::StaleRevision);
    }
    let next = current + 1;
    let json = serde_json::to_string(config).map_err(|_| diesel::result::Error::RollbackTransaction)?;
    diesel::sql_query(
        "INSERT INTO relay_dynatrace_config (key, revision, config, updated) VALUES ('dynatrace', ?, ?, ?) \
         ON CONFLICT(key) DO UPDATE SET revision = excluded.revision, config = excluded.config, updated = excluded.updated",
    )
    .bind::<BigInt, _>(next)
    .bind::<Text, _>(json)
    .bind::<Text, _>(updated)
    .execute(conn)?;
    Ok(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn() -> SqliteConnection {
        use diesel_migrations::MigrationHarness;
        let mut mem = SqliteConnection::establish(":memory:").unwrap();
        mem.run_pending_migrations(crate::db::MIGRATIONS).unwrap();
        mem
    }

    fn env(url: &str) -> Option<String> {
        Some(url.to_string())
    }

    #[test]
    fn nothing_stored_reads_as_revision_zero_and_not_configured() {
        let mut c = conn();
        let (revision, config) = load_config(&mut c).unwrap();
        assert_eq!((revision, config.is_complete()), (0, false));
    }

    #[test]
    fn a_change_needs_the_stored_revision_and_a_stale_one_writes_nothing() {
        let mut c = conn();
        let first = StoredConfig { environment_url: env("https://abc12345.apps.dynatrace.com"), ..Default::default() };
        assert_eq!(save_config(&mut c, 0, &first, "t1").unwrap(), 1);
        let second = StoredConfig { alerting_profiles: vec!["NOC".into()], ..first.clone() };
        assert!(matches!(save_config(&mut c, 0, &second, "t2"), Err(ConfigStoreError::StaleRevision)));
        assert_eq!(load_config(&mut c).unwrap(), (1, first));
        assert_eq!(save_config(&mut c, 1, &second, "t3").unwrap(), 2);
        assert_eq!(load_config(&mut c).unwrap(), (2, second));
    }

    #[test]
    fn a_token_is_usable_only_for_the_environment_it_was_entered_for() {
        let a = env("https://aaa11111.apps.dynatrace.com");
        let b = env("https://bbb22222.apps.dynatrace.com");
        let entered = StoredConfig { environment_url: a.clone(), token_environment: a.clone(), ..Default::default() };
        assert!(entered.token_usable());
        let moved = StoredConfig { environment_url: b, ..entered.clone() };
        assert!(!moved.token_usable(), "a token never follows a changed URL");
        assert!(!StoredConfig { token_environment: None, ..entered }.token_usable());
    }

    #[test]
    fn a_damaged_row_fails_closed() {
        let mut c = conn();
        diesel::sql_query(
            "INSERT INTO relay_dynatrace_config (key, revision, config, updated) VALUES ('dynatrace', 4, '{\"tokenEnvironment\": 5}', 't')",
        )
        .execute(&mut c)
        .unwrap();
        let (revision, config) = load_config(&mut c).unwrap();
        assert_eq!((revision, config), (4, StoredConfig::default()));
    }
}
