//! The exact DQL text the server sends to the Grail Query API: the problems query (incremental
//! or reconciling, per scope), the notification business-events query, the connection test,
//! the alerting-profile catalog and the profile-field health check, plus the incremental
//! lookback rule. User and upstream text enters a query only through [`dql_string`], as one
//! escaped double-quoted literal; the one exception is a custom matcher, which must already
//! have passed `scope::validate_matcher`. This module refuses to run queries, read answers or
//! choose when a query runs.

use super::scope::Scope;

/// `maxResultRecords` sent with every query, and the `limit` of every record query.
pub const MAX_RESULT_RECORDS: usize = 10_000;
/// Shortest incremental lookback (minutes).
pub const MIN_INCREMENTAL_LOOKBACK_MINUTES: u32 = 10;
/// Longest incremental lookback (minutes): 24 h; anything older is the reconciliation's job.
pub const MAX_INCREMENTAL_LOOKBACK_MINUTES: u32 = 24 * 60;
/// Minutes added to the time since the last success so no problem falls between two polls.
pub const LOOKBACK_OVERLAP_MINUTES: u32 = 5;

/// The projection every problems query ends with; `problem::normalize_problem` reads it.
const PROBLEM_FIELDS: &str = "fields problemId=event.id, displayId=display_id, title=event.name, \
status=event.status, severity=event.category, impactLevel=dt.davis.impact_level, startTime=event.start, \
endTime=event.end, rootCause=root_cause.smartscape_entity, rootCauseEntityName=root_cause_entity_name, \
affectedEntities=smartscape.affected_entities, affectedEntityIds=affected_entity_ids, \
affectedEntityNames=affected_entity_names, affectedEntityTypes=affected_entity_types, \
relatedEntities=smartscape.related_entities, alertingProfiles=labels.alerting_profile";

/// How far back a query reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookback {
    /// The last N minutes (incremental polls); at least 1.
    Minutes(u32),
    /// The last 365 days (full reconciliation).
    Reconcile,
}

impl Lookback {
    /// The `from:` option (`from:-365d`, `from:-15m`).
    pub fn from_option(self) -> String {
        match self {
            Lookback::Minutes(minutes) => format!("from:-{}m", minutes.max(1)),
            Lookback::Reconcile => "from:-365d".to_string(),
        }
    }
}

/// `s` as one DQL double-quoted string literal: `\` `"` and line breaks are escaped (`\\`
/// `\"` `\n` `\r` `\t`), every other control character and the Unicode line and paragraph
/// separators as `\uXXXX`. The result never contains a raw line break or an unescaped quote,
/// so no text can leave the literal. This is the only way user text enters a query.
pub fn dql_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if super::is_forbidden_char(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The scope's filter command (without the leading `| `), or `None` for every problem.
fn scope_filter(lookback: Lookback, scope: &Scope) -> Option<String> {
    match scope {
        Scope::All => None,
        Scope::AlertingProfiles(names) => {
            let names: Vec<String> = names.iter().map(|n| dql_string(n)).collect();
            Some(format!("filter iAny(in(labels.alerting_profile[], array({})))", names.join(", ")))
        }
        Scope::CustomMatcher(matcher) => Some(format!(
            "filter event.id in [ fetch events, {} | filter event.kind == \"DAVIS_PROBLEM\" | filter ({matcher}) | fields event.id ]",
            lookback.from_option()
        )),
    }
}

fn problems_commands(lookback: Lookback, scope: &Scope) -> Vec<String> {
    let mut commands = vec![
        format!("fetch dt.davis.problems, {}", lookback.from_option()),
        "dedup event.id, sort:{timestamp desc}".to_string(),
        "filter not(dt.davis.is_duplicate)".to_string(),
    ];
    commands.extend(scope_filter(lookback, scope));
    commands
}

fn join_commands(commands: Vec<String>) -> String {
    commands.join("\n| ")
}

/// The problems query of one sync: the latest state of each non-duplicate problem in the
/// lookback and scope, newest first, at most [`MAX_RESULT_RECORDS`].
pub fn problems_query(lookback: Lookback, scope: &Scope) -> String {
    let mut commands = problems_commands(lookback, scope);
    commands.push(PROBLEM_FIELDS.to_string());
    commands.push("sort startTime desc".to_string());
    commands.push(format!("limit {MAX_RESULT_RECORDS}"));
    join_commands(commands)
}

/// One page of a reconciliation that must see every problem (custom scope): the same records
/// as [`problems_query`], but in problem-id order after `cursor` (the last page's last id), so
/// pages can be read until one is short.
pub fn problems_page_query(lookback: Lookback, scope: &Scope, cursor: Option<&str>) -> String {
    let mut commands = problems_commands(lookback, scope);
    if let Some(cursor) = cursor {
        commands.push(format!("filter event.id > {}", dql_string(cursor)));
    }
    commands.push(PROBLEM_FIELDS.to_string());
    commands.push("sort problemId asc".to_string());
    commands.push(format!("limit {MAX_RESULT_RECORDS}"));
    join_commands(commands)
}

/// Minutes an incremental poll reads back: the time since the last success (rounded up) plus
/// [`LOOKBACK_OVERLAP_MINUTES`], at least [`MIN_INCREMENTAL_LOOKBACK_MINUTES`] and at most
/// [`MAX_INCREMENTAL_LOOKBACK_MINUTES`]; the maximum when there was no success yet. A last
/// success in the future (clock change) counts as just now.
pub fn incremental_lookback_minutes(now_ms: i64, last_success_ms: Option<i64>) -> u32 {
    let Some(last) = last_success_ms else {
        return MAX_INCREMENTAL_LOOKBACK_MINUTES;
    };
    let elapsed_ms = now_ms.saturating_sub(last).max(0);
    let elapsed_minutes = elapsed_ms / 60_000 + i64::from(elapsed_ms % 60_000 != 0);
    let minutes = elapsed_minutes.saturating_add(LOOKBACK_OVERLAP_MINUTES as i64);
    minutes.clamp(MIN_INCREMENTAL_LOOKBACK_MINUTES as i64, MAX_INCREMENTAL_LOOKBACK_MINUTES as i64) as u32
}

/// The connection test: counts problems of the last two hours (proves the URL, the token and
/// its `storage:events:read` scope).
pub fn connection_test_query() -> String {
    "fetch dt.davis.problems, from:-2h\n| summarize count = count()".to_string()
}

/// The `noc.notification` business events of the NOC workflow: the newest notification per
/// problem with its execution id, in problem-id order after `cursor` (paging).
pub fn notifications_query(lookback: Lookback, cursor: Option<&str>) -> String {
    let mut commands = vec![
        format!("fetch bizevents, {}", lookback.from_option()),
        "filter event.type == \"noc.notification\" and event.provider == \"noc-workflow\"".to_string(),
        "filter isNotNull(execution_id) and isNotNull(problem.event_id)".to_string(),
        "dedup problem.event_id, sort:{timestamp desc}".to_string(),
        "fields problemId=problem.event_id, executionId=execution_id, notificationStatus=problem.status, \
notificationTime=timestamp"
            .to_string(),
    ];
    if let Some(cursor) = cursor {
        commands.push(format!("filter problemId > {}", dql_string(cursor)));
    }
    commands.push("sort problemId asc".to_string());
    commands.push(format!("limit {MAX_RESULT_RECORDS}"));
    join_commands(commands)
}

/// The alerting profiles seen on problems of the last year, with how many problems carry each
/// (the Settings picker's catalog).
pub fn alerting_profile_catalog_query() -> String {
    join_commands(vec![
        "fetch dt.davis.problems, from:-365d".to_string(),
        "filter isNotNull(labels.alerting_profile)".to_string(),
        "expand labels.alerting_profile".to_string(),
        "summarize problems = count(), by:{profile = labels.alerting_profile}".to_string(),
        "sort profile asc".to_string(),
        "limit 1000".to_string(),
    ])
}

/// Whether problems carry the alerting-profile label at all: the total count and the count
/// with the label over the last year (a profile scope on an environment without the label
/// would silently match nothing).
pub fn profile_field_health_query() -> String {
    join_commands(vec![
        "fetch dt.davis.problems, from:-365d".to_string(),
        "summarize total = count(), withProfile = countIf(isNotNull(labels.alerting_profile))".to_string(),
    ])
}

#[cfg(test)]
#[path = "dql_tests.rs"]
mod tests;
