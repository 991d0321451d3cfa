//! Read-only Automation API reads: a workflow definition (`GET <env>/platform/automation/v1/
//! workflows/<id>`, for "follow workflow DQL"), and workflow executions for notification e-mail
//! subjects (`GET …/executions/<id>/tasks` and `GET …/executions/<id>/tasks/<task>/input`), through the Grail client's outbound policy
//! (no redirects, 15 s per request, byte cap, JSON only, token only as a bearer header). Ids
//! and task names enter the URL only as escaped path segments, and an execution id must pass
//! `domain::dynatrace::is_execution_id` first. A 404 (the execution's retention ended) is
//! "nothing to read", not an error. Relay never creates, changes or runs a workflow.

use reqwest::header::{ACCEPT, AUTHORIZATION};
use serde_json::Value;
use url::Url;

use domain::dynatrace::grail::GrailError;
use domain::dynatrace::{is_execution_id, validate_workflow_id, EnvironmentUrl};

use super::client::{base_for, classify, GrailClient, QueryError};
use crate::http::{CancellationToken, HttpError};

/// An execution's task list, `None` when Dynatrace no longer has the execution (404).
pub type ExecutionTasks = Option<Value>;

impl GrailClient {
    /// `GET …/workflows/<workflow_id>` (`None` when Dynatrace has no such workflow).
    pub async fn workflow(
        &self,
        environment: &EnvironmentUrl,
        token: &str,
        workflow_id: &str,
        cancel: &CancellationToken,
    ) -> Result<Option<Value>, QueryError> {
        validate_workflow_id(workflow_id).map_err(|_| refused("not a workflow id"))?;
        let url = automation_url(environment, &["workflows", workflow_id])?;
        self.read_json(url, token, cancel).await
    }

    /// `GET …/executions/<execution_id>/tasks`.
    pub async fn execution_tasks(
        &self,
        environment: &EnvironmentUrl,
        token: &str,
        execution_id: &str,
        cancel: &CancellationToken,
    ) -> Result<ExecutionTasks, QueryError> {
        let url = execution_url(environment, execution_id, &["tasks"])?;
        self.read_json(url, token, cancel).await
    }

    /// `GET …/executions/<execution_id>/tasks/<task_name>/input`.
    pub async fn task_input(
        &self,
        environment: &EnvironmentUrl,
        token: &str,
        execution_id: &str,
        task_name: &str,
        cancel: &CancellationToken,
    ) -> Result<Option<Value>, QueryError> {
        let url = execution_url(environment, execution_id, &["tasks", task_name, "input"])?;
        self.read_json(url, token, cancel).await
    }

    async fn read_json(&self, url: Url, token: &str, cancel: &CancellationToken) -> Result<Option<Value>, QueryError> {
        let request = self
            .http()
            .get(url.as_str())
            .header(AUTHORIZATION, format!("Bearer {token}"))
            .header(ACCEPT, "application/json");
        match self.http().execute(request, cancel).await {
            Ok(answer) => serde_json::from_slice(answer.body()).map(Some).map_err(|_| GrailError::Malformed.into()),
            Err(HttpError::Status { status: 404, .. }) => Ok(None),
            Err(e) => Err(classify(e)),
        }
    }
}

/// `<base>/platform/automation/v1/executions/<execution_id>/<rest…>`, every part one escaped
/// path segment.
fn execution_url(environment: &EnvironmentUrl, execution_id: &str, rest: &[&str]) -> Result<Url, QueryError> {
    if !is_execution_id(execution_id) {
        return Err(refused("not a workflow execution id"));
    }
    if rest.iter().any(|part| part.is_empty() || part.len() > 200) {
        return Err(refused("not a task name"));
    }
    automation_url(environment, &[&["executions", execution_id], rest].concat())
}

/// `<base>/platform/automation/v1/<parts…>`, every part one escaped path segment.
fn automation_url(environment: &EnvironmentUrl, parts: &[&str]) -> Result<Url, QueryError> {
    let mut url = base_for(environment)?;
    url.path_segments_mut()
        .map_err(|_| refused("the environment URL has no path"))?
        .clear()
        .extend(["platform", "automation", "v1"])
        .extend(parts);
    Ok(url)
}

fn refused(reason: &'static str) -> QueryError {
    QueryError::Http(HttpError::InvalidUrl { origin: "<dynatrace-environment>".into(), reason })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> EnvironmentUrl {
        EnvironmentUrl::parse("https://abc12345.apps.dynatrace.com").unwrap()
    }

    #[test]
    fn ids_and_task_names_are_escaped_path_segments() {
        let url = execution_url(&env(), "exec-1_A", &["tasks", "email noc/../x?y#z", "input"]).unwrap();
        assert_eq!(url.path(), "/platform/automation/v1/executions/exec-1_A/tasks/email%20noc%2F..%2Fx%3Fy%23z/input");
        assert_eq!(url.query(), None);
        assert_eq!(url.fragment(), None);
    }

    #[tokio::test]
    async fn a_malformed_workflow_id_is_refused_before_any_request() {
        let client = GrailClient::new().unwrap();
        let cancel = CancellationToken::new();
        for bad in ["../executions", "a/b", "a?b=c", ""] {
            assert!(client.workflow(&env(), "t", bad, &cancel).await.is_err(), "{bad}");
        }
    }

    #[test]
    fn a_malformed_execution_id_is_refused_before_any_request() {
        for bad in ["", "../admin", "a/b", "a?b", &"x".repeat(129)] {
            assert!(execution_url(&env(), bad, &["tasks"]).is_err(), "{bad}");
        }
        assert!(execution_url(&env(), "ok", &["tasks", ""]).is_err());
    }
}
