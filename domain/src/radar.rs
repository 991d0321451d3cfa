//! The Dispatcher Radar as Relay shows it: the validated `RadarSnapshot` (overall colour,
//! dispatchers with their queues, PAPA depths, service metrics, XCenter counts, the page's
//! clock, when it was last read, whether the operator must sign in again, and the last error),
//! the limits that bound it, and the rules for a failed read: the previous snapshot is kept
//! with the error set (a stale marker), a sign-in page keeps it with `signInRequired`, and a
//! page with no recognisable signal at all is an error, never a guessed empty board. A snapshot
//! that needs a sign-in or carries an error makes the Radar subsystem degraded (`condition`). The page
//! itself is parsed in `infra::radar`; the fixed dashboard address lives in
//! `infra::http::endpoints` and is never taken from a client.

use serde::{Deserialize, Serialize};

use crate::work_condition::{ConditionCode, WorkCondition};

/// Most dispatchers, queues per dispatcher, PAPA rows and metrics kept from one page.
pub const MAX_DISPATCHERS: usize = 64;
pub const MAX_QUEUES: usize = 64;
pub const MAX_PAPA: usize = 64;
pub const MAX_METRICS: usize = 64;
/// Longest name, label or value kept (characters).
pub const MAX_TEXT_CHARS: usize = 200;
/// Longest error message kept (characters).
pub const MAX_ERROR_CHARS: usize = 300;
/// The error of a page that carries no Radar signal.
pub const UNRECOGNISED_PAGE: &str = "Unrecognised Radar page";
/// How often the server reads the page (the dashboard's own meta-refresh).
pub const REFRESH_INTERVAL_MS: i64 = 60_000;
/// Manual refreshes per logical web session per minute.
pub const MANUAL_REFRESHES_PER_MINUTE: u32 = 12;

/// A status colour as the dashboard paints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusColor {
    Green,
    Yellow,
    Red,
    Magenta,
    #[default]
    Unknown,
}

impl StatusColor {
    /// The colour named by a class token or a CSS colour word (`green`, `ok`, `warning`...).
    pub fn from_token(token: &str) -> Option<StatusColor> {
        match token.trim().to_ascii_lowercase().as_str() {
            "green" | "ok" | "good" | "normal" | "success" => Some(StatusColor::Green),
            "yellow" | "amber" | "warn" | "warning" | "pending" => Some(StatusColor::Yellow),
            "red" | "error" | "critical" | "danger" | "bad" => Some(StatusColor::Red),
            "magenta" | "purple" | "fuchsia" => Some(StatusColor::Magenta),
            _ => None,
        }
    }

    /// The first colour named among whitespace-separated class tokens.
    pub fn from_classes(classes: &str) -> StatusColor {
        classes.split_whitespace().find_map(StatusColor::from_token).unwrap_or_default()
    }

    /// How bad a colour is, for the sidebar indicator and toasts (unknown ranks below yellow).
    pub fn rank(self) -> u8 {
        match self {
            StatusColor::Green => 0,
            StatusColor::Unknown => 1,
            StatusColor::Yellow => 2,
            StatusColor::Red => 3,
            StatusColor::Magenta => 4,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueDepth {
    pub name: String,
    pub depth: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Dispatcher {
    pub name: String,
    pub tone: StatusColor,
    pub last_schedule_date: String,
    pub last_pub_sub_date: String,
    pub queues: Vec<QueueDepth>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Metric {
    pub label: String,
    /// `None` when the cell carries a label but no figure.
    pub value: Option<String>,
    pub tone: StatusColor,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct XCenterCounts {
    pub ok: Option<i64>,
    pub pending: Option<i64>,
}

/// What clients receive: only this validated shape ever leaves the server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RadarSnapshot {
    pub color: StatusColor,
    pub dispatchers: Vec<Dispatcher>,
    pub papa: Vec<QueueDepth>,
    pub metrics: Vec<Metric>,
    pub xcenter: XCenterCounts,
    pub current_time: Option<String>,
    /// When the page was last read successfully (epoch ms; 0 = never).
    pub last_updated: i64,
    pub sign_in_required: bool,
    pub error: Option<String>,
}

impl RadarSnapshot {
    /// Whether a parsed page carried any Radar signal (a colour, dispatchers, metrics or
    /// XCenter counts). A page without one is not a Radar page.
    pub fn has_signal(&self) -> bool {
        self.color != StatusColor::Unknown
            || !self.dispatchers.is_empty()
            || !self.metrics.is_empty()
            || self.xcenter.ok.is_some()
            || self.xcenter.pending.is_some()
    }

    /// The snapshot after a successful read at `now_ms`; a page without signal becomes a
    /// failure with [`UNRECOGNISED_PAGE`] on top of `previous`.
    pub fn accept(parsed: RadarSnapshot, previous: &RadarSnapshot, now_ms: i64) -> RadarSnapshot {
        if !parsed.has_signal() {
            return RadarSnapshot::failed(previous, UNRECOGNISED_PAGE);
        }
        RadarSnapshot { last_updated: now_ms, sign_in_required: false, error: None, ..parsed }
    }

    /// `previous` kept, marked stale with `error` (bounded, one line).
    pub fn failed(previous: &RadarSnapshot, error: &str) -> RadarSnapshot {
        RadarSnapshot { error: Some(crate::text::one_line(error, MAX_ERROR_CHARS)), ..previous.clone() }
    }

    /// `previous` kept; the operator must sign in again on the server PC.
    pub fn sign_in_required(previous: &RadarSnapshot) -> RadarSnapshot {
        RadarSnapshot {
            sign_in_required: true,
            error: Some("Sign in to the Radar on the Relay server PC.".into()),
            ..previous.clone()
        }
    }

    /// The Radar subsystem's condition after a read: degraded while a sign-in is needed (naming
    /// both ways to sign in on the server PC) or reads fail; `None` once a board was read.
    pub fn condition(&self) -> Option<WorkCondition> {
        if self.sign_in_required {
            return Some(WorkCondition::new(ConditionCode::SignInNeeded, SIGN_IN_NEEDED));
        }
        let error = self.error.as_deref()?;
        Some(WorkCondition::new(ConditionCode::ReadsFailing, &format!("Radar reads failing: {error}")))
    }
}

/// The reason shown in System health while the server has no working Radar session.
pub const SIGN_IN_NEEDED: &str = "Sign-in needed: the server has no working Radar session. On the server PC run `relay radar --data-dir DATA sign-in`, or use the Radar tab's sign-in window in the Relay desktop app there.";

/// A count as the page prints it (`1,204`, `-3`); anything else is not a count.
pub fn parse_count(text: &str) -> Option<i64> {
    let t = text.trim();
    let (negative, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    if digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit() || b == b',')
        || !digits.bytes().any(|b| b.is_ascii_digit())
    {
        return None;
    }
    let value: i64 = digits.replace(',', "").parse().ok()?;
    Some(if negative { -value } else { value })
}

/// Text cut to [`MAX_TEXT_CHARS`] with whitespace collapsed.
pub fn bounded_text(text: &str) -> String {
    crate::text::one_line(text, MAX_TEXT_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_parse_only_digit_groups() {
        assert_eq!(parse_count(" 1,204 "), Some(1204));
        assert_eq!(parse_count("-3"), Some(-3));
        assert_eq!(parse_count("0"), Some(0));
        for bad in ["", "-", ",", "12a", "1.5", "n/a", "--3"] {
            assert_eq!(parse_count(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn sign_in_and_failed_reads_are_degraded_and_a_board_is_not() {
        let good = RadarSnapshot::accept(
            RadarSnapshot { color: StatusColor::Green, ..Default::default() },
            &RadarSnapshot::default(),
            1,
        );
        assert_eq!(good.condition(), None);
        let signin = RadarSnapshot::sign_in_required(&good).condition().unwrap();
        assert_eq!(signin.code, ConditionCode::SignInNeeded);
        assert!(signin.reason.contains("`relay radar --data-dir DATA sign-in`"), "{}", signin.reason);
        let failed = RadarSnapshot::failed(&good, "timed out").condition().unwrap();
        assert_eq!(
            (failed.code, failed.reason.as_str()),
            (ConditionCode::ReadsFailing, "Radar reads failing: timed out")
        );
    }

    #[test]
    fn colours_come_from_class_tokens() {
        assert_eq!(StatusColor::from_classes("statusBar green"), StatusColor::Green);
        assert_eq!(StatusColor::from_classes("cardServices Red"), StatusColor::Red);
        assert_eq!(StatusColor::from_classes("statusBar"), StatusColor::Unknown);
        assert!(StatusColor::Magenta.rank() > StatusColor::Red.rank());
    }

    #[test]
    fn a_failed_read_keeps_the_previous_board_marked_stale() {
        let good = RadarSnapshot { color: StatusColor::Green, ..Default::default() };
        let now = RadarSnapshot::accept(good.clone(), &RadarSnapshot::default(), 1_000);
        assert_eq!((now.last_updated, now.error.as_deref()), (1_000, None));
        let failed = RadarSnapshot::failed(&now, "connect\ntimed out");
        assert_eq!(failed.color, StatusColor::Green);
        assert_eq!(failed.last_updated, 1_000);
        assert_eq!(failed.error.as_deref(), Some("connect timed out"));
        let signin = RadarSnapshot::sign_in_required(&now);
        assert!(signin.sign_in_required && signin.color == StatusColor::Green);
        let unrecognised = RadarSnapshot::accept(RadarSnapshot::default(), &now, 2_000);
        assert_eq!(unrecognised.error.as_deref(), Some(UNRECOGNISED_PAGE));
        assert_eq!(unrecognised.last_updated, 1_000, "an unrecognised page is not an update");
        let again = RadarSnapshot::accept(good, &signin, 3_000);
        assert!(!again.sign_in_required && again.error.is_none());
    }
}
