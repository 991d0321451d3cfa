//! Notification e-mail subjects, the second half of a Dynatrace run: which workflow executions
//! to read (only uncached ones, newest notification first, at most 25 per run), reading them
//! (at most 4 at once, the whole batch within 10 s, tasks then the successful e-mail task's
//! input, keeping only its validated subject) and which `dynatrace_problems` records then get a
//! new `emailSubject` / `emailSubjectStatus`. The memory of read executions and written
//! subjects belongs to the actor and is forgotten on every settings change; a run whose
//! settings generation is stale writes nothing (the actor checks before applying). A subject
//! job runs at most once a minute, and not before a `Retry-After` Dynatrace asked for.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use serde_json::{json, Value};

use domain::dynatrace::dql::{notifications_query, Lookback};
use domain::dynatrace::subjects::{
    parse_notification_record, pick_email_task, subject_from_task_input, NotificationRef, TaskPick,
    MAX_CONCURRENT_EXECUTION_READS, MAX_UNCACHED_EXECUTIONS, SUBJECT_RUN_DEADLINE_MS,
};
use domain::dynatrace::{EnvironmentUrl, POLL_INTERVAL_MS};
use infra::dynatrace::GrailClient;
use infra::http::CancellationToken;

/// Most executions remembered; past it only those still notified about are kept.
pub const MAX_REMEMBERED_EXECUTIONS: usize = 20_000;

/// What the actor remembers between subject jobs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubjectMemory {
    /// Execution id -> the validated subject its e-mail task sent (`None`: no e-mail task, no
    /// successful one, no valid subject, or the execution is gone).
    pub known: HashMap<String, Option<String>>,
    /// Problem id -> (subject, status) this actor last wrote.
    pub written: HashMap<String, (String, String)>,
    pub last_run_ms: Option<i64>,
    pub retry_at_ms: Option<i64>,
}

impl SubjectMemory {
    /// Whether a subject job may run now: a minute after the last one and after any retry time.
    pub fn due(&self, now_ms: i64) -> bool {
        self.last_run_ms.is_none_or(|at| now_ms - at >= POLL_INTERVAL_MS)
            && self.retry_at_ms.is_none_or(|at| now_ms >= at)
    }

    /// Applies one job's reads, then bounds the memory to the executions still notified about.
    pub fn absorb(&mut self, job: &SubjectJob, now_ms: i64) {
        self.last_run_ms = Some(now_ms);
        self.retry_at_ms = job.retry_after_secs.map(|s| now_ms.saturating_add((s as i64).saturating_mul(1000)));
        for (execution, outcome) in &job.reads {
            if let ReadOutcome::Known(subject) = outcome {
                self.known.insert(execution.clone(), subject.clone());
            }
        }
        if self.known.len() > MAX_REMEMBERED_EXECUTIONS {
            let current: HashSet<&str> = job.notifications.iter().map(|n| n.execution_id.as_str()).collect();
            self.known.retain(|id, _| current.contains(id.as_str()));
        }
    }
}

/// How reading one execution ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadOutcome {
    /// Final: the validated subject, or none at all.
    Known(Option<String>),
    /// An e-mail task has not finished; read again on a later job.
    Pending,
    /// Dynatrace asked to wait this long.
    RateLimited(u64),
    /// Any other failure; read again on a later job.
    Failed,
}

/// What one subject job fetched (applied by the actor only if its generation is current).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubjectJob {
    pub notifications: Vec<NotificationRef>,
    pub reads: Vec<(String, ReadOutcome)>,
    pub retry_after_secs: Option<u64>,
}

/// One subject to store on a problem record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubjectWrite {
    pub problem_id: String,
    pub subject: String,
    pub status: String,
}

impl SubjectWrite {
    pub fn body(&self) -> Value {
        json!({"emailSubject": self.subject, "emailSubjectStatus": self.status})
    }
}

/// The executions to read this job: not read before, newest notification first, at most
/// [`MAX_UNCACHED_EXECUTIONS`].
pub fn executions_to_read(notifications: &[NotificationRef], known: &HashMap<String, Option<String>>) -> Vec<String> {
    let mut newest_first: Vec<&NotificationRef> = notifications.iter().collect();
    newest_first.sort_by(|a, b| b.time_ms.cmp(&a.time_ms).then_with(|| a.execution_id.cmp(&b.execution_id)));
    let mut seen = HashSet::new();
    newest_first
        .into_iter()
        .filter(|n| !known.contains_key(&n.execution_id) && seen.insert(n.execution_id.as_str()))
        .take(MAX_UNCACHED_EXECUTIONS)
        .map(|n| n.execution_id.clone())
        .collect()
}

/// The subjects to write: each notified problem whose execution has a known subject that
/// differs (text or status) from what was last written.
pub fn subject_writes(notifications: &[NotificationRef], memory: &SubjectMemory) -> Vec<SubjectWrite> {
    notifications
        .iter()
        .filter_map(|n| {
            let subject = memory.known.get(&n.execution_id)?.as_ref()?;
            let status = n.status.as_str().to_string();
            let unchanged = memory.written.get(&n.problem_id).is_some_and(|(s, st)| s == subject && *st == status);
            (!unchanged).then(|| SubjectWrite { problem_id: n.problem_id.clone(), subject: subject.clone(), status })
        })
        .collect()
}

/// Reads the notifications of `lookback`, then the executions not in `known` (bounded in
/// count, concurrency and time). `None` when the notifications query failed (the problems
/// sync is not affected).
pub async fn run_job(
    client: &GrailClient,
    environment: &EnvironmentUrl,
    token: &str,
    lookback: Lookback,
    known: &HashMap<String, Option<String>>,
    cancel: &CancellationToken,
) -> Option<SubjectJob> {
    let dql = notifications_query(lookback, None);
    let result = match client.query(environment, token, &dql, cancel).await {
        Ok(result) => result,
        Err(e) => {
            tracing::debug!(error = %e, "dynatrace notification subjects: the notifications query failed");
            return None;
        }
    };
    let notifications: Vec<NotificationRef> = result.records.iter().filter_map(parse_notification_record).collect();
    let ids = executions_to_read(&notifications, known);
    let deadline = tokio::time::sleep(Duration::from_millis(SUBJECT_RUN_DEADLINE_MS));
    tokio::pin!(deadline);
    let mut reads = stream::iter(ids)
        .map(|id| async move {
            let outcome = read_execution(client, environment, token, &id, cancel).await;
            (id, outcome)
        })
        .buffer_unordered(MAX_CONCURRENT_EXECUTION_READS);
    let mut job = SubjectJob { notifications, ..Default::default() };
    loop {
        tokio::select! {
            _ = &mut deadline => break,
            next = reads.next() => match next {
                Some((id, outcome)) => {
                    if let ReadOutcome::RateLimited(secs) = outcome {
                        job.retry_after_secs = Some(job.retry_after_secs.unwrap_or(0).max(secs));
                    }
                    job.reads.push((id, outcome));
                }
                None => break,
            }
        }
    }
    Some(job)
}

/// Tasks, then (one successful e-mail task) its input's subject.
async fn read_execution(
    client: &GrailClient,
    environment: &EnvironmentUrl,
    token: &str,
    execution_id: &str,
    cancel: &CancellationToken,
) -> ReadOutcome {
    let failed = |e: infra::dynatrace::client::QueryError| match e.retry_after_secs() {
        Some(secs) => ReadOutcome::RateLimited(secs),
        None => ReadOutcome::Failed,
    };
    let tasks = match client.execution_tasks(environment, token, execution_id, cancel).await {
        Ok(Some(tasks)) => tasks,
        Ok(None) => return ReadOutcome::Known(None),
        Err(e) => return failed(e),
    };
    match pick_email_task(&tasks) {
        TaskPick::Pending => ReadOutcome::Pending,
        TaskPick::NoEmailTask | TaskPick::Failed => ReadOutcome::Known(None),
        TaskPick::Succeeded { task_name } => {
            match client.task_input(environment, token, execution_id, &task_name, cancel).await {
                Ok(Some(input)) => ReadOutcome::Known(subject_from_task_input(&input)),
                Ok(None) => ReadOutcome::Known(None),
                Err(e) => failed(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::dynatrace::problem::ProblemStatus;

    fn note(problem: &str, execution: &str, time_ms: i64, status: ProblemStatus) -> NotificationRef {
        NotificationRef { problem_id: problem.into(), execution_id: execution.into(), status, time_ms }
    }

    #[test]
    fn at_most_25_uncached_executions_are_read_newest_first() {
        let notes: Vec<NotificationRef> =
            (0..30).map(|i| note(&format!("P{i}"), &format!("e{i}"), i as i64, ProblemStatus::Open)).collect();
        let mut known = HashMap::new();
        known.insert("e29".to_string(), None);
        let ids = executions_to_read(&notes, &known);
        assert_eq!(ids.len(), MAX_UNCACHED_EXECUTIONS);
        assert_eq!(ids[0], "e28", "the newest uncached first");
        assert!(!ids.contains(&"e29".to_string()), "a read execution is not read again");
        assert!(!ids.contains(&"e3".to_string()), "the oldest wait for a later job");
    }

    #[test]
    fn one_execution_notifying_twice_is_read_once() {
        let notes = vec![note("P1", "e1", 1, ProblemStatus::Open), note("P2", "e1", 2, ProblemStatus::Open)];
        assert_eq!(executions_to_read(&notes, &HashMap::new()), ["e1"]);
    }

    #[test]
    fn only_known_changed_subjects_are_written_with_the_notification_status() {
        let notes = vec![
            note("P1", "e1", 1, ProblemStatus::Open),
            note("P2", "e2", 2, ProblemStatus::Closed),
            note("P3", "e3", 3, ProblemStatus::Open),
            note("P4", "e4", 4, ProblemStatus::Open),
        ];
        let mut memory = SubjectMemory::default();
        memory.known.insert("e1".into(), Some("Checkout down".into()));
        memory.known.insert("e2".into(), Some("DB slow".into()));
        memory.known.insert("e3".into(), None);
        memory.known.insert("e4".into(), Some("Same".into()));
        memory.written.insert("P4".into(), ("Same".into(), "OPEN".into()));
        memory.written.insert("P2".into(), ("DB slow".into(), "OPEN".into()));
        let writes = subject_writes(&notes, &memory);
        assert_eq!(
            writes,
            vec![
                SubjectWrite { problem_id: "P1".into(), subject: "Checkout down".into(), status: "OPEN".into() },
                SubjectWrite { problem_id: "P2".into(), subject: "DB slow".into(), status: "CLOSED".into() },
            ]
        );
    }

    #[test]
    fn jobs_run_once_a_minute_and_not_before_a_retry_time() {
        let mut memory = SubjectMemory::default();
        assert!(memory.due(0));
        let limited = SubjectJob { retry_after_secs: Some(120), ..Default::default() };
        memory.absorb(&limited, 1_000);
        assert!(!memory.due(61_000), "Retry-After 120 s wins over the minute");
        assert!(memory.due(121_000));
        memory.absorb(&SubjectJob::default(), 200_000);
        assert!(!memory.due(259_999));
        assert!(memory.due(260_000));
    }

    #[test]
    fn only_final_reads_are_remembered() {
        let job = SubjectJob {
            notifications: vec![],
            reads: vec![
                ("a".into(), ReadOutcome::Known(Some("S".into()))),
                ("b".into(), ReadOutcome::Pending),
                ("c".into(), ReadOutcome::Failed),
                ("d".into(), ReadOutcome::Known(None)),
            ],
            retry_after_secs: None,
        };
        let mut memory = SubjectMemory::default();
        memory.absorb(&job, 0);
        let mut ids: Vec<&String> = memory.known.keys().collect();
        ids.sort();
        assert_eq!(ids, ["a", "d"]);
    }
}
