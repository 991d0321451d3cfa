//! The Dynatrace settings commands (`dynatrace.*`) inside the privileged pipeline: they arrive
//! authorized (Owner or Administrator), with the settings revision already checked, and run in
//! the pipeline's transaction. Every value is validated by `domain::dynatrace` before anything
//! is stored. The token goes to the vault and never into the database, an answer or a log; the
//! stored settings remember which environment it was entered for, and changing the environment
//! removes it, so a token is never sent anywhere an administrator did not enter it for.

use std::sync::Arc;

use actix::Recipient;
use diesel::sqlite::SqliteConnection;
use serde_json::{json, Value};

use domain::dynatrace::scope::{validate_matcher, validate_profile_names, validate_token, validate_workflow_id};
use domain::dynatrace::EnvironmentUrl;
use domain::secret_policy::SecretStorage;
use infra::dynatrace::{load_config, save_config, ConfigStoreError, StoredConfig, TokenVault};
use infra::secret_store::SecretStoreError;

use super::error::PrivError;
use crate::dynatrace::SettingsChanged;

/// What the privileged service needs to carry out `dynatrace.*` commands.
#[derive(Clone)]
pub struct DynatraceHooks {
    pub vault: Arc<dyn TokenVault>,
    /// Told after a committed change (the sync restarts under the new settings).
    pub changed: Option<Recipient<SettingsChanged>>,
}

fn invalid(e: impl ToString) -> PrivError {
    PrivError::Invalid(e.to_string())
}

fn stored(e: ConfigStoreError) -> PrivError {
    match e {
        ConfigStoreError::StaleRevision => PrivError::StaleRevision,
        ConfigStoreError::Db(e) => e.into(),
    }
}

fn vault_error(e: SecretStoreError) -> PrivError {
    match e {
        SecretStoreError::PlaintextRefused => PrivError::Invalid(
            "this packaged build keeps the token only in the OS secret store, which is unavailable".into(),
        ),
        SecretStoreError::Timeout => PrivError::Invalid("the OS secret store did not answer in time".into()),
        SecretStoreError::HeldByCredential => PrivError::Invalid(e.to_string()),
        _ => {
            tracing::error!(error = %e, "the Dynatrace token could not be stored");
            PrivError::Internal
        }
    }
}

/// The stored settings revision (`0` when none).
pub fn revision(conn: &mut SqliteConnection) -> Result<i64, PrivError> {
    Ok(load_config(conn)?.0)
}

/// `dynatrace.status`: never the token, only whether one is stored for this environment.
pub fn status(conn: &mut SqliteConnection, hooks: &DynatraceHooks) -> Result<Value, PrivError> {
    let (revision, config) = load_config(conn)?;
    Ok(status_json(revision, &config, hooks))
}

fn status_json(revision: i64, config: &StoredConfig, hooks: &DynatraceHooks) -> Value {
    let configured = config.token_usable();
    let storage = configured.then(|| match hooks.vault.storage() {
        SecretStorage::OsSecretStore => "os_store",
        SecretStorage::OwnerOnlyFile => "owner_only_file",
        SecretStorage::MemoryOnly => "memory_only",
    });
    let scope = match (&config.matcher, config.alerting_profiles.is_empty()) {
        _ if config.follow_workflow => json!({"kind": "workflow", "task": config.workflow_task}),
        (Some(m), _) => json!({"kind": "custom-dql", "matcher": m}),
        (None, false) => json!({"kind": "alerting-profile", "profiles": config.alerting_profiles}),
        (None, true) => json!({"kind": "all"}),
    };
    json!({
        "revision": revision,
        "environmentUrl": config.environment_url,
        "token": if configured { "configured" } else { "not_configured" },
        "tokenStorage": storage,
        "scope": scope,
        "workflowId": config.workflow_id,
    })
}

/// The validated form of a `dynatrace.configure` payload.
pub struct Configure<'a> {
    pub environment_url: Option<&'a str>,
    pub alerting_profiles: &'a [String],
    pub matcher: Option<&'a str>,
    pub workflow_id: Option<&'a str>,
    pub follow_workflow: bool,
    pub workflow_task: Option<&'a str>,
}

fn non_empty(s: Option<&str>) -> Option<&str> {
    s.map(str::trim).filter(|s| !s.is_empty())
}

/// `dynatrace.configure`.
pub fn configure(
    conn: &mut SqliteConnection,
    hooks: &DynatraceHooks,
    change: Configure<'_>,
    updated: &str,
) -> Result<Value, PrivError> {
    let environment = non_empty(change.environment_url).map(EnvironmentUrl::parse).transpose().map_err(invalid)?;
    let profiles = validate_profile_names(change.alerting_profiles).map_err(invalid)?;
    let matcher = non_empty(change.matcher).map(validate_matcher).transpose().map_err(invalid)?;
    let workflow_id = non_empty(change.workflow_id).map(validate_workflow_id).transpose().map_err(invalid)?;
    let workflow_task = non_empty(change.workflow_task).map(validate_task_name).transpose()?;
    if change.follow_workflow && workflow_id.is_none() {
        return Err(PrivError::Invalid("enter the workflow id to follow its DQL".into()));
    }
    if change.follow_workflow && matcher.is_some() {
        return Err(PrivError::Invalid("follow the workflow's DQL or enter a matcher, not both".into()));
    }
    let (revision, current) = load_config(conn)?;
    let environment_url = environment.map(|e| e.as_str().to_string());
    let moved = environment_url != current.environment_url;
    let token_environment = if moved { None } else { current.token_environment.clone() };
    if moved && current.token_environment.is_some() {
        hooks.vault.delete().map_err(vault_error)?;
    }
    let next = StoredConfig {
        environment_url,
        alerting_profiles: profiles,
        matcher,
        workflow_id,
        follow_workflow: change.follow_workflow,
        workflow_task: workflow_task.filter(|_| change.follow_workflow),
        token_environment,
    };
    let revision = save_config(conn, revision, &next, updated).map_err(stored)?;
    Ok(status_json(revision, &next, hooks))
}

/// A workflow task name: 1..=100 printable characters (it becomes one escaped URL-free match
/// against the workflow's task keys, never a path or query part).
fn validate_task_name(name: &str) -> Result<String, PrivError> {
    let ok = name.chars().count() <= 100 && !name.chars().any(char::is_control);
    ok.then(|| name.to_string()).ok_or_else(|| PrivError::Invalid("the workflow task name is not valid".into()))
}

/// `dynatrace.setToken`: only for a configured environment.
pub fn set_token(
    conn: &mut SqliteConnection,
    hooks: &DynatraceHooks,
    token: &str,
    updated: &str,
) -> Result<Value, PrivError> {
    let token = validate_token(token).map_err(invalid)?;
    let (revision, current) = load_config(conn)?;
    let Some(environment) = current.environment_url.clone() else {
        return Err(PrivError::Invalid("enter the environment URL before the token".into()));
    };
    hooks.vault.set(&token).map_err(vault_error)?;
    let next = StoredConfig { token_environment: Some(environment), ..current };
    let revision = save_config(conn, revision, &next, updated).map_err(stored)?;
    Ok(status_json(revision, &next, hooks))
}

/// `dynatrace.removeToken`.
pub fn remove_token(conn: &mut SqliteConnection, hooks: &DynatraceHooks, updated: &str) -> Result<Value, PrivError> {
    let (revision, current) = load_config(conn)?;
    hooks.vault.delete().map_err(vault_error)?;
    let next = StoredConfig { token_environment: None, ..current };
    let revision = save_config(conn, revision, &next, updated).map_err(stored)?;
    Ok(status_json(revision, &next, hooks))
}
