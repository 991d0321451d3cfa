//! Which problems the sync keeps ([`Scope`]: all, some alerting profiles, or a custom DQL
//! matcher) and the validation of every administrator-entered Dynatrace setting other than the
//! environment URL: alerting profile names, the matcher, the workflow id and the platform
//! token. The matcher is the one piece of administrator text that becomes DQL syntax, so
//! [`validate_matcher`] admits only a single per-event filter expression: no pipes, comments,
//! subqueries, query commands, template markers, control characters, single quotes or
//! backticks, and balanced strings and parentheses. This module refuses to build queries
//! (that is `dql`) and never echoes a refused value in an error.

use super::environment::ConfigError;
use super::is_forbidden_char;
use serde_json::{json, Value};

/// Most alerting profiles one scope may name.
pub const MAX_ALERTING_PROFILES: usize = 50;
/// Longest alerting profile name accepted (characters).
pub const MAX_PROFILE_NAME_CHARS: usize = 200;
/// Longest custom matcher accepted (characters, after trimming).
pub const MAX_MATCHER_CHARS: usize = 2_000;
/// Longest workflow id accepted.
pub const MAX_WORKFLOW_ID_CHARS: usize = 64;
/// Platform token length bounds (characters, after trimming).
pub const MIN_TOKEN_CHARS: usize = 16;
pub const MAX_TOKEN_CHARS: usize = 2_048;

/// DQL commands that start or join another query; refused as standalone words in a matcher.
const QUERY_COMMAND_WORDS: [&str; 6] = ["fetch", "lookup", "join", "data", "append", "load"];

/// Which problems the sync keeps. A custom matcher wins over alerting profiles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Every problem of the environment.
    All,
    /// Problems carrying at least one of these alerting profile labels (validated names).
    AlertingProfiles(Vec<String>),
    /// Problems whose Davis event matches this expression (passed [`validate_matcher`]).
    CustomMatcher(String),
}

impl Scope {
    /// The scope as `dynatrace_problem_sync.scopeSource` names it.
    pub fn source(&self) -> &'static str {
        match self {
            Scope::All => "all",
            Scope::AlertingProfiles(_) => "alerting-profile",
            Scope::CustomMatcher(_) => "custom-dql",
        }
    }

    /// The scope from saved settings: a non-blank matcher wins (profiles are then ignored),
    /// otherwise at least one profile name selects those profiles, otherwise everything.
    pub fn from_settings(profile_names: &[String], matcher: Option<&str>) -> Result<Scope, ConfigError> {
        if let Some(matcher) = matcher.filter(|m| !m.trim().is_empty()) {
            return validate_matcher(matcher).map(Scope::CustomMatcher);
        }
        let names = validate_profile_names(profile_names)?;
        Ok(if names.is_empty() { Scope::All } else { Scope::AlertingProfiles(names) })
    }

    /// The scope as `dynatrace.status` answers it: `{"kind": "all"}`,
    /// `{"kind": "alerting-profile", "profiles": [..]}` or `{"kind": "custom-dql", "matcher": ".."}`.
    pub fn to_json(&self) -> Value {
        match self {
            Scope::All => json!({ "kind": self.source() }),
            Scope::AlertingProfiles(names) => json!({ "kind": self.source(), "profiles": names }),
            Scope::CustomMatcher(matcher) => json!({ "kind": self.source(), "matcher": matcher }),
        }
    }
}

/// Alerting profile names as saved: each trimmed, blanks dropped, duplicates (case-sensitive)
/// dropped keeping the first, at most [`MAX_ALERTING_PROFILES`] names of at most
/// [`MAX_PROFILE_NAME_CHARS`] characters without control characters.
pub fn validate_profile_names(names: &[String]) -> Result<Vec<String>, ConfigError> {
    let mut kept: Vec<String> = Vec::new();
    for name in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        if name.chars().any(is_forbidden_char) {
            return Err(ConfigError::InvalidAlertingProfileName);
        }
        if name.chars().count() > MAX_PROFILE_NAME_CHARS {
            return Err(ConfigError::AlertingProfileNameTooLong);
        }
        if !kept.iter().any(|k| k == name) {
            kept.push(name.to_string());
        }
    }
    if kept.len() > MAX_ALERTING_PROFILES {
        return Err(ConfigError::TooManyAlertingProfiles);
    }
    Ok(kept)
}

/// A custom DQL matcher, trimmed, if it is a single per-event filter expression of
/// 1..=[`MAX_MATCHER_CHARS`] characters. DQL strings are double-quoted with backslash escapes;
/// outside them the matcher may not contain `|`, `//` or `/*`, `[` or `]`, `'` or `` ` ``, or
/// the words fetch, lookup, join, data, append or load (any case). Anywhere it may not contain
/// control characters, `{{`, `{%` or `"""`. Strings and parentheses must be balanced.
pub fn validate_matcher(raw: &str) -> Result<String, ConfigError> {
    let refuse = |reason: &'static str| Err(ConfigError::InvalidMatcher { reason });
    let matcher = raw.trim();
    if matcher.is_empty() {
        return refuse("it is empty");
    }
    if matcher.chars().count() > MAX_MATCHER_CHARS {
        return refuse("it is longer than 2000 characters");
    }
    if matcher.chars().any(is_forbidden_char) {
        return refuse("it contains line breaks, tabs or other control characters");
    }
    if matcher.contains("{{") || matcher.contains("{%") {
        return refuse("it contains template markers");
    }
    if matcher.contains("\"\"\"") {
        return refuse("triple-quoted strings are not supported");
    }
    match scan_matcher(matcher) {
        Some(reason) => refuse(reason),
        None => Ok(matcher.to_string()),
    }
}

/// The first structural problem of a matcher, reading it as DQL does: string literals are
/// skipped (with their backslash escapes), everything else is checked.
fn scan_matcher(matcher: &str) -> Option<&'static str> {
    let mut in_string = false;
    let mut escaped = false;
    let mut depth = 0usize;
    let mut word = String::new();
    let mut chars = matcher.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' || c == '.' {
            word.push(c);
            continue;
        }
        if let Some(reason) = refused_word(&std::mem::take(&mut word)) {
            return Some(reason);
        }
        match c {
            '"' => in_string = true,
            '|' => return Some("pipes are not allowed; write one filter expression"),
            '/' if matches!(chars.peek(), Some('/' | '*')) => return Some("comments are not allowed"),
            '[' | ']' => return Some("subqueries and brackets are not allowed"),
            '\'' | '`' => return Some("only double-quoted strings are allowed"),
            '(' => depth += 1,
            ')' if depth == 0 => return Some("parentheses are not balanced"),
            ')' => depth -= 1,
            _ => {}
        }
    }
    if let Some(reason) = refused_word(&word) {
        return Some(reason);
    }
    if in_string {
        return Some("a string is not closed");
    }
    if depth != 0 {
        return Some("parentheses are not balanced");
    }
    None
}

fn refused_word(word: &str) -> Option<&'static str> {
    QUERY_COMMAND_WORDS
        .iter()
        .any(|k| word.eq_ignore_ascii_case(k))
        .then_some("query commands (fetch, lookup, join, data, append, load) are not allowed")
}

/// A workflow id (the Automation API's UUID), trimmed: 1..=64 of `[A-Za-z0-9-]`.
pub fn validate_workflow_id(raw: &str) -> Result<String, ConfigError> {
    let id = raw.trim();
    let valid =
        (1..=MAX_WORKFLOW_ID_CHARS).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if valid {
        Ok(id.to_string())
    } else {
        Err(ConfigError::InvalidWorkflowId)
    }
}

/// A platform token (`dt0s16.XXXX.YYYY`), trimmed: [`MIN_TOKEN_CHARS`]..=[`MAX_TOKEN_CHARS`]
/// printable ASCII characters without spaces.
pub fn validate_token(raw: &str) -> Result<String, ConfigError> {
    let token = raw.trim();
    let valid =
        (MIN_TOKEN_CHARS..=MAX_TOKEN_CHARS).contains(&token.len()) && token.bytes().all(|b| b.is_ascii_graphic());
    if valid {
        Ok(token.to_string())
    } else {
        Err(ConfigError::InvalidToken)
    }
}

#[cfg(test)]
#[path = "scope_tests.rs"]
mod tests;
