//! Release notes of Settings → About: the answer of `release::RELEASE_HISTORY_URL` (a JSON array of
//! GitHub release objects) turned into at most [`MAX_NOTES_RELEASES`] [`ReleaseNote`]s. Only
//! the first [`MAX_NOTES_RELEASES`] entries are looked at, and of those only published,
//! non-draft, non-prerelease `v<MAJOR.MINOR.PATCH>` releases are kept, newest version first,
//! one per version. A title is at most [`MAX_NOTE_TITLE_CHARS`] characters; `published_at` is
//! kept only in GitHub's RFC 3339 shape; a body has `\r\n` turned into `\n`, every control
//! character other than `\n` and `\t` removed, and is cut on a UTF-8 boundary to at most
//! [`MAX_NOTE_BODY_BYTES`] (ending in [`TRUNCATED_MARKER`] when cut). A body stays Markdown
//! text: nothing is HTML-unescaped or rendered here (the renderer shows a small Markdown subset
//! as text nodes). The whole answer is bounded by [`MAX_HISTORY_JSON_BYTES`] through the same
//! HTTP-facts rule as discovery ([`check_json_response`]). [`notes_cache_json`] and
//! [`parse_notes_cache`] are the cache file's format, which is read back through the same rules.
//! It performs no IO.

use serde::Serialize;
use serde_json::{json, Value};
use thiserror::Error;

use super::release::{check_json_response, DiscoveryError, HttpFacts};
use super::version::Version;

/// Largest release-history answer read (declared and counted), and largest cache file.
pub const MAX_HISTORY_JSON_BYTES: u64 = 512 * 1024;
/// Most releases looked at and kept (the history URL asks for this many).
pub const MAX_NOTES_RELEASES: usize = 20;
/// Longest title kept (characters).
pub const MAX_NOTE_TITLE_CHARS: usize = 200;
/// Largest body kept (UTF-8 bytes, including [`TRUNCATED_MARKER`]).
pub const MAX_NOTE_BODY_BYTES: usize = 16 * 1024;
/// Appended to a body that was cut.
pub const TRUNCATED_MARKER: &str = "\n\n…(truncated)";

/// One release's notes as Settings → About shows them (as text, never as HTML).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseNote {
    pub version: Version,
    /// The release name, or the tag when it has none; at most [`MAX_NOTE_TITLE_CHARS`].
    pub title: String,
    /// GitHub's `published_at` (RFC 3339) when it has that shape.
    pub published_at: Option<String>,
    /// Markdown text, bounded and without control characters other than `\n` and `\t`.
    pub body: String,
}

/// A release-history answer (or cache file) that yields no notes at all.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReleaseNotesError {
    #[error("{0}")]
    Http(DiscoveryError),
    #[error("The release history is larger than Relay accepts.")]
    TooLarge,
    #[error("The release history is not valid JSON.")]
    InvalidJson,
    #[error("The release history is not a list of releases.")]
    NotAList,
    #[error("The release-notes cache is malformed.")]
    CacheMalformed,
}

impl ReleaseNotesError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            ReleaseNotesError::Http(error) => error.code(),
            ReleaseNotesError::TooLarge => "release_history_too_large",
            ReleaseNotesError::InvalidJson => "release_history_invalid_json",
            ReleaseNotesError::NotAList => "release_history_not_a_list",
            ReleaseNotesError::CacheMalformed => "release_notes_cache_malformed",
        }
    }
}

/// The whole decision on one history answer: the HTTP facts (status 200, JSON, at most
/// [`MAX_HISTORY_JSON_BYTES`]), then the body (which must be the bytes read).
pub fn evaluate_release_history(facts: &HttpFacts<'_>, body: &[u8]) -> Result<Vec<ReleaseNote>, ReleaseNotesError> {
    check_json_response(facts, MAX_HISTORY_JSON_BYTES).map_err(|error| match error {
        DiscoveryError::TooLarge => ReleaseNotesError::TooLarge,
        other => ReleaseNotesError::Http(other),
    })?;
    if body.len() as u64 > MAX_HISTORY_JSON_BYTES {
        return Err(ReleaseNotesError::TooLarge);
    }
    let value: Value = serde_json::from_slice(body).map_err(|_| ReleaseNotesError::InvalidJson)?;
    parse_release_history(&value)
}

/// The notes of a JSON array of GitHub release objects (entries that do not qualify are
/// skipped; anything but an array is refused).
pub fn parse_release_history(value: &Value) -> Result<Vec<ReleaseNote>, ReleaseNotesError> {
    let items = value.as_array().ok_or(ReleaseNotesError::NotAList)?;
    let mut notes: Vec<ReleaseNote> =
        items.iter().take(MAX_NOTES_RELEASES).filter_map(release_note_from_json).collect();
    notes.sort_by_key(|note| std::cmp::Reverse(note.version));
    notes.dedup_by_key(|note| note.version);
    Ok(notes)
}

/// One release's notes, or `None` for a draft, a prerelease, a tag that is not `v<version>`
/// or an object without the fields' types.
pub fn release_note_from_json(release: &Value) -> Option<ReleaseNote> {
    let release = release.as_object()?;
    if release.get("draft") != Some(&Value::Bool(false)) || release.get("prerelease") != Some(&Value::Bool(false)) {
        return None;
    }
    let version = Version::parse_tag(release.get("tag_name")?.as_str()?).ok()?;
    let title = match release.get("name") {
        Some(Value::String(name)) => clean_title(name),
        Some(Value::Null) | None => String::new(),
        Some(_) => return None,
    };
    let title = if title.is_empty() { version.tag() } else { title };
    let published_at = match release.get("published_at") {
        Some(Value::String(text)) => Some(text).filter(|text| is_rfc3339(text)).cloned(),
        Some(Value::Null) | None => None,
        Some(_) => return None,
    };
    let body = match release.get("body") {
        Some(Value::String(body)) => clean_body(body),
        Some(Value::Null) | None => String::new(),
        Some(_) => return None,
    };
    Some(ReleaseNote { version, title, published_at, body })
}

fn clean_title(name: &str) -> String {
    let text: String = name.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    text.trim().chars().take(MAX_NOTE_TITLE_CHARS).collect::<String>().trim_end().to_owned()
}

/// `\r\n` → `\n`, control characters other than `\n` and `\t` removed, then cut on a UTF-8
/// boundary to at most [`MAX_NOTE_BODY_BYTES`] including [`TRUNCATED_MARKER`].
pub fn clean_body(body: &str) -> String {
    let mut text: String =
        body.replace("\r\n", "\n").chars().filter(|c| !c.is_control() || *c == '\n' || *c == '\t').collect();
    if text.len() > MAX_NOTE_BODY_BYTES {
        let mut cut = MAX_NOTE_BODY_BYTES - TRUNCATED_MARKER.len();
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str(TRUNCATED_MARKER);
    }
    text
}

/// GitHub's timestamp shape: `YYYY-MM-DDTHH:MM:SS`, optional fraction, then `Z` or `±HH:MM`.
pub fn is_rfc3339(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() < 20 || b.len() > 40 {
        return false;
    }
    let digits = |range: std::ops::Range<usize>| b[range].iter().all(u8::is_ascii_digit);
    let head = digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && matches!(b[10], b'T' | b't')
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19);
    if !head {
        return false;
    }
    let mut rest = &b[19..];
    if let Some(fraction) = rest.strip_prefix(b".") {
        let n = fraction.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        rest = &fraction[n..];
    }
    match rest {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => [h1, h2, m1, m2].iter().all(|c| c.is_ascii_digit()),
        _ => false,
    }
}

/// The cache file's JSON: when the notes were fetched and each note in GitHub's field names,
/// so [`parse_notes_cache`] reads it back through [`parse_release_history`].
pub fn notes_cache_json(notes: &[ReleaseNote], fetched_at_ms: i64) -> Value {
    let releases: Vec<Value> = notes
        .iter()
        .map(|note| {
            json!({
                "tag_name": note.version.tag(),
                "name": note.title,
                "published_at": note.published_at,
                "body": note.body,
                "draft": false,
                "prerelease": false,
            })
        })
        .collect();
    json!({ "fetched_at_ms": fetched_at_ms, "releases": releases })
}

/// Reads a cache file back (at most [`MAX_HISTORY_JSON_BYTES`], the same rules as an answer).
pub fn parse_notes_cache(bytes: &[u8]) -> Result<(Vec<ReleaseNote>, i64), ReleaseNotesError> {
    if bytes.len() as u64 > MAX_HISTORY_JSON_BYTES {
        return Err(ReleaseNotesError::TooLarge);
    }
    let value: Value = serde_json::from_slice(bytes).map_err(|_| ReleaseNotesError::CacheMalformed)?;
    let fetched_at_ms = value.get("fetched_at_ms").and_then(Value::as_i64).ok_or(ReleaseNotesError::CacheMalformed)?;
    let releases = value.get("releases").ok_or(ReleaseNotesError::CacheMalformed)?;
    let notes = parse_release_history(releases).map_err(|_| ReleaseNotesError::CacheMalformed)?;
    Ok((notes, fetched_at_ms))
}

#[cfg(test)]
#[path = "notes_tests.rs"]
mod tests;
