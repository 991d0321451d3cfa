//! What a subsystem says about its *work*, beyond "the actor is alive": degraded (its work is
//! failing: feeds that cannot be read, no Radar session, a failing Dynatrace sync, backups
//! failing or overdue) or not configured (not in use). A condition is a code from a small fixed
//! set (safe as a metrics label), a reason in plain words (never a label: it is free text, and the
//! health actor redacts and bounds it before anyone sees it) and, where the subsystem counts units
//! of work, how many of how many are failing. Each subsystem builds its own condition next to its
//! rules; this module holds only the shape. Pure: no IO, no clock.

use serde::Serialize;

/// Longest reason kept (characters; one line). The health actor bounds it again after redaction.
pub const MAX_REASON_CHARS: usize = 300;

/// Why a subsystem is not simply running. A closed set: it is a metrics label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ConditionCode {
    /// Status feeds that could not be read (failing of total feeds).
    FeedsFailing,
    /// The Radar has no working session on the server PC.
    SignInNeeded,
    /// Radar reads fail (network, an unrecognised page).
    ReadsFailing,
    /// The subsystem is not set up, so not in use: informational, not a fault.
    NotConfigured,
    /// Dynatrace syncs fail.
    SyncFailing,
    /// Backups fail (consecutive failed attempts).
    BackupFailing,
    /// The newest restore point is older than a daily backup allows, or none was ever made.
    BackupOverdue,
}

impl ConditionCode {
    pub const ALL: [ConditionCode; 7] = [
        ConditionCode::FeedsFailing,
        ConditionCode::SignInNeeded,
        ConditionCode::ReadsFailing,
        ConditionCode::NotConfigured,
        ConditionCode::SyncFailing,
        ConditionCode::BackupFailing,
        ConditionCode::BackupOverdue,
    ];

    /// The stable name (JSON and the metrics label).
    pub fn as_str(self) -> &'static str {
        match self {
            ConditionCode::FeedsFailing => "feeds_failing",
            ConditionCode::SignInNeeded => "sign_in_needed",
            ConditionCode::ReadsFailing => "reads_failing",
            ConditionCode::NotConfigured => "not_configured",
            ConditionCode::SyncFailing => "sync_failing",
            ConditionCode::BackupFailing => "backup_failing",
            ConditionCode::BackupOverdue => "backup_overdue",
        }
    }

    /// Whether the subsystem's work is failing (everything but "not configured", which means
    /// the subsystem is not in use).
    pub fn is_degraded(self) -> bool {
        self != ConditionCode::NotConfigured
    }
}

/// A subsystem's condition: the code, the reason in words and, where it counts units of work,
/// `failing` of `total`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WorkCondition {
    pub code: ConditionCode,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failing: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u32>,
}

impl WorkCondition {
    /// A condition with `reason` cut to one line of [`MAX_REASON_CHARS`].
    pub fn new(code: ConditionCode, reason: &str) -> WorkCondition {
        WorkCondition { code, reason: crate::text::one_line(reason, MAX_REASON_CHARS), failing: None, total: None }
    }

    /// The same, counting `failing` units of work out of `total`.
    pub fn counting(mut self, failing: u32, total: u32) -> WorkCondition {
        self.failing = Some(failing);
        self.total = Some(total);
        self
    }

    pub fn is_degraded(&self) -> bool {
        self.code.is_degraded()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_one_bounded_line_and_counts_are_optional() {
        let long = format!("first\nsecond {}", "x".repeat(1000));
        let c = WorkCondition::new(ConditionCode::FeedsFailing, &long).counting(3, 17);
        assert!(!c.reason.contains('\n') && c.reason.chars().count() <= MAX_REASON_CHARS, "{}", c.reason);
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(
            (json["code"].as_str(), json["failing"].as_u64(), json["total"].as_u64()),
            (Some("feeds_failing"), Some(3), Some(17))
        );
        let plain = serde_json::to_value(WorkCondition::new(ConditionCode::SignInNeeded, "no session")).unwrap();
        assert!(plain.get("failing").is_none() && plain.get("total").is_none(), "{plain}");
    }

    #[test]
    fn only_not_configured_is_not_degraded_and_every_code_has_its_json_name() {
        for code in ConditionCode::ALL {
            assert_eq!(code.is_degraded(), code != ConditionCode::NotConfigured);
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
        }
    }
}
