//! The Grail reads of one Dynatrace run beyond a single query: a reconciliation read in pages
//! (problem-id order, each page after the last id of the one before, at most
//! [`MAX_RECONCILE_PAGES`] of 10,000), so an environment with more problems than one answer holds
//! is still reconciled completely, while an answer Grail cut short for another reason (or one
//! past the page bound) is reported truncated and the run writes nothing; and the scope of a
//! followed workflow, read from its DQL query task.

use domain::dynatrace::dql::{problems_page_query, Lookback, MAX_RESULT_RECORDS};
use domain::dynatrace::grail::QueryResult;
use domain::dynatrace::scope::Scope;
use domain::dynatrace::EnvironmentUrl;
use infra::dynatrace::client::QueryError;
use infra::dynatrace::GrailClient;
use infra::http::CancellationToken;

use super::{settings, Fetch};

/// Most pages one reconciliation reads (50,000 problems).
pub const MAX_RECONCILE_PAGES: usize = 5;

/// Reads every problem of the reconciliation window in pages. `truncated` is set when a page
/// was cut short by Grail for any reason but its record limit, when a full page's last record
/// has no problem id to continue from, or when the page bound is reached.
pub async fn reconcile_pages(
    client: &GrailClient,
    environment: &EnvironmentUrl,
    token: &str,
    scope: &Scope,
    cancel: &CancellationToken,
) -> Result<QueryResult, QueryError> {
    let mut records = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_RECONCILE_PAGES {
        let dql = problems_page_query(Lookback::Reconcile, scope, cursor.as_deref());
        let page = client.query(environment, token, &dql, cancel).await?;
        let full = page.records.len() >= MAX_RESULT_RECORDS;
        let next = page.records.last().and_then(|r| r.get("problemId")).and_then(|v| v.as_str()).map(str::to_string);
        records.extend(page.records);
        match (full, next) {
            (false, _) => return Ok(QueryResult { records, truncated: page.truncated }),
            (true, Some(next)) if cursor.as_deref() != Some(next.as_str()) => cursor = Some(next),
            (true, _) => return Ok(QueryResult { records, truncated: true }),
        }
    }
    Ok(QueryResult { records, truncated: true })
}

/// Reads the followed workflow and turns its DQL query task into the matcher scope.
pub async fn followed_scope(
    client: &GrailClient,
    environment: &EnvironmentUrl,
    token: &str,
    config: &infra::dynatrace::StoredConfig,
    cancel: &CancellationToken,
) -> Result<Scope, Fetch> {
    let failed = |message: String| Fetch::Failed { message, retry_after_ms: None };
    let Some(workflow_id) = config.workflow_id.as_deref() else {
        return Err(failed("Enter the workflow whose DQL Relay should follow.".into()));
    };
    let workflow = match client.workflow(environment, token, workflow_id, cancel).await {
        Ok(Some(workflow)) => workflow,
        Ok(None) => return Err(failed("Dynatrace has no workflow with the configured id.".into())),
        Err(e) => {
            return Err(Fetch::Failed {
                retry_after_ms: e.retry_after_secs().map(|s| (s as i64).saturating_mul(1000)),
                message: settings::operator_message(&e),
            })
        }
    };
    domain::dynatrace::workflow_matcher(&workflow, config.workflow_task.as_deref())
        .map(Scope::CustomMatcher)
        .map_err(|e| failed(format!("{e}.")))
}
