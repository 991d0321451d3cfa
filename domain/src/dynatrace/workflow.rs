//! "Follow workflow DQL": turning the DQL query task of an administrator's Dynatrace workflow
//! into the custom matcher the problems query uses. [`workflow_matcher`] reads the workflow
//! definition (Automation API), requires an active event trigger, picks the one active
//! `execute-dql-query` task, and accepts only a static `fetch events` query whose commands
//! before any `fields`/`sort`/`limit`/`summarize` are all `filter`s; their expressions become
//! the matcher, which must still pass `scope::validate_matcher`. It refuses templates, other
//! sources, absolute or computed timeframes and every other command, and never modifies or
//! runs the workflow. Error messages are fixed text, apart from the list of task names the
//! administrator must choose from.

use super::clean_text;
use super::scope::validate_matcher;
use serde_json::Value;
use thiserror::Error;

/// The Automation action of a DQL query task.
pub const DQL_QUERY_ACTION: &str = "dynatrace.automations:execute-dql-query";
/// Longest workflow query read (characters).
pub const MAX_WORKFLOW_QUERY_CHARS: usize = 100_000;
/// Longest task-name list put into an error (characters).
pub const MAX_TASK_NAMES_CHARS: usize = 300;
/// Commands after which the rest of the query does not select events.
const PROJECTION_COMMANDS: [&str; 4] = ["fields", "sort", "limit", "summarize"];

/// Why a workflow's query cannot be followed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WorkflowDqlError {
    #[error("The workflow has no active event trigger")]
    NoActiveEventTrigger,
    #[error("The workflow has no active DQL query task with a query")]
    NoQueryTask,
    #[error("The workflow has no active DQL query task with that name; its DQL query tasks are: {names}")]
    TaskNotFound { names: String },
    #[error("The workflow has several DQL query tasks; choose one of: {names}")]
    AmbiguousTask { names: String },
    #[error("The workflow query is longer than 100,000 characters")]
    QueryTooLong,
    #[error("The workflow query uses templates or triple-quoted strings; only a static query can be followed")]
    DynamicQuery,
    #[error("The workflow query has an unclosed string, identifier or comment")]
    UnclosedText,
    #[error("The workflow query must start with fetch events, with only relative from: and to: options")]
    UnsupportedSource,
    #[error("Only filter commands may come before fields, sort, limit or summarize in the workflow query")]
    UnsupportedCommand,
    #[error("The workflow query has no filter to follow")]
    NoFilter,
    #[error("The workflow query's filter is not accepted: {reason}")]
    MatcherRejected { reason: &'static str },
}

impl WorkflowDqlError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            WorkflowDqlError::NoActiveEventTrigger => "no_active_event_trigger",
            WorkflowDqlError::NoQueryTask => "no_query_task",
            WorkflowDqlError::TaskNotFound { .. } => "task_not_found",
            WorkflowDqlError::AmbiguousTask { .. } => "ambiguous_task",
            WorkflowDqlError::QueryTooLong => "query_too_long",
            WorkflowDqlError::DynamicQuery => "dynamic_query",
            WorkflowDqlError::UnclosedText => "unclosed_text",
            WorkflowDqlError::UnsupportedSource => "unsupported_source",
            WorkflowDqlError::UnsupportedCommand => "unsupported_command",
            WorkflowDqlError::NoFilter => "no_filter",
            WorkflowDqlError::MatcherRejected { .. } => "matcher_rejected",
        }
    }
}

/// The matcher of `workflow`'s DQL query task (`task_name`, or the only suitable one): the
/// single filter's expression, or `(f1) and (f2) …` for several. See the module doc.
pub fn workflow_matcher(workflow: &Value, task_name: Option<&str>) -> Result<String, WorkflowDqlError> {
    let trigger_active = workflow.pointer("/trigger/eventTrigger/isActive").and_then(Value::as_bool);
    if trigger_active != Some(true) {
        return Err(WorkflowDqlError::NoActiveEventTrigger);
    }
    let query = selected_query(workflow, task_name.map(str::trim).filter(|n| !n.is_empty()))?;
    if query.chars().count() > MAX_WORKFLOW_QUERY_CHARS {
        return Err(WorkflowDqlError::QueryTooLong);
    }
    if query.contains("{{") || query.contains("{%") || query.contains("\"\"\"") {
        return Err(WorkflowDqlError::DynamicQuery);
    }
    let commands = split_commands(query)?;
    let (source, rest) = commands.split_first().ok_or(WorkflowDqlError::UnsupportedSource)?;
    if !is_supported_source(source) {
        return Err(WorkflowDqlError::UnsupportedSource);
    }
    let mut filters: Vec<&str> = Vec::new();
    for command in rest {
        let word_end = command.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(command.len());
        let (word, argument) = command.split_at(word_end);
        if PROJECTION_COMMANDS.contains(&word) {
            break;
        }
        if word != "filter" || argument.trim().is_empty() {
            return Err(WorkflowDqlError::UnsupportedCommand);
        }
        filters.push(argument.trim());
    }
    let matcher = match filters.as_slice() {
        [] => return Err(WorkflowDqlError::NoFilter),
        [only] => only.to_string(),
        several => several.iter().map(|f| format!("({f})")).collect::<Vec<_>>().join(" and "),
    };
    validate_matcher(&matcher).map_err(|e| match e {
        super::ConfigError::InvalidMatcher { reason } => WorkflowDqlError::MatcherRejected { reason },
        _ => WorkflowDqlError::MatcherRejected { reason: "it is not a valid matcher" },
    })
}

/// The query of the chosen task: tasks with [`DQL_QUERY_ACTION`], not `active: false`, with a
/// string `input.query`; the one named `task_name`, or the only one.
fn selected_query<'a>(workflow: &'a Value, task_name: Option<&str>) -> Result<&'a str, WorkflowDqlError> {
    let suitable: Vec<(&str, &str)> = workflow
        .get("tasks")
        .and_then(Value::as_object)
        .map(|tasks| {
            tasks
                .iter()
                .filter(|(_, task)| task.get("action").and_then(Value::as_str) == Some(DQL_QUERY_ACTION))
                .filter(|(_, task)| task.get("active").and_then(Value::as_bool) != Some(false))
                .filter_map(|(name, task)| Some((name.as_str(), task.pointer("/input/query")?.as_str()?)))
                .collect()
        })
        .unwrap_or_default();
    let names = || task_names(suitable.iter().map(|(name, _)| *name));
    match (task_name, suitable.as_slice()) {
        (_, []) => Err(WorkflowDqlError::NoQueryTask),
        (Some(wanted), _) => suitable
            .iter()
            .find(|(name, _)| *name == wanted)
            .map(|(_, query)| *query)
            .ok_or_else(|| WorkflowDqlError::TaskNotFound { names: names() }),
        (None, [(_, query)]) => Ok(query),
        (None, _) => Err(WorkflowDqlError::AmbiguousTask { names: names() }),
    }
}

/// Task names joined with ", ", cleaned and cut to [`MAX_TASK_NAMES_CHARS`].
fn task_names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let joined = names.map(|n| clean_text(n, MAX_TASK_NAMES_CHARS)).collect::<Vec<_>>().join(", ");
    clean_text(&joined, MAX_TASK_NAMES_CHARS)
}

/// The query's commands, split on `|` outside strings, backtick identifiers and comments;
/// comments are dropped and whitespace outside strings becomes single spaces.
fn split_commands(query: &str) -> Result<Vec<String>, WorkflowDqlError> {
    let mut commands = Vec::new();
    let mut current = String::new();
    let mut chars = query.chars().peekable();
    let push_space = |current: &mut String| {
        if !current.is_empty() && !current.ends_with(' ') {
            current.push(' ');
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                current.push(c);
                loop {
                    let next = chars.next().ok_or(WorkflowDqlError::UnclosedText)?;
                    current.push(next);
                    match next {
                        '\\' => current.push(chars.next().ok_or(WorkflowDqlError::UnclosedText)?),
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '`' => {
                current.push(c);
                loop {
                    let next = chars.next().ok_or(WorkflowDqlError::UnclosedText)?;
                    current.push(next);
                    if next == '`' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                while chars.peek().is_some_and(|n| *n != '\n') {
                    chars.next();
                }
                push_space(&mut current);
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut previous = ' ';
                loop {
                    let next = chars.next().ok_or(WorkflowDqlError::UnclosedText)?;
                    if previous == '*' && next == '/' {
                        break;
                    }
                    previous = next;
                }
                push_space(&mut current);
            }
            '|' => commands.push(std::mem::take(&mut current).trim_end().to_string()),
            c if c.is_whitespace() => push_space(&mut current),
            c => current.push(c),
        }
    }
    commands.push(current.trim_end().to_string());
    Ok(commands)
}

/// `fetch events` with at most one `from:` and one `to:` option, each a relative duration
/// (`-?\d+[smhdw]`).
fn is_supported_source(source: &str) -> bool {
    let Some(arguments) = source.strip_prefix("fetch ") else {
        return false;
    };
    let mut parts = arguments.split(',').map(str::trim);
    if parts.next() != Some("events") {
        return false;
    }
    let mut seen: Vec<&str> = Vec::new();
    parts.all(|option| {
        let Some((name, value)) = option.split_once(':') else {
            return false;
        };
        let name = name.trim();
        let fresh = (name == "from" || name == "to") && !seen.contains(&name);
        seen.push(name);
        fresh && is_relative_duration(value.trim())
    })
}

fn is_relative_duration(value: &str) -> bool {
    let digits_and_unit = value.strip_prefix('-').unwrap_or(value);
    let Some(digits) = digits_and_unit.strip_suffix(['s', 'm', 'h', 'd', 'w']) else {
        return false;
    };
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
#[path = "workflow_tests.rs"]
mod tests;
