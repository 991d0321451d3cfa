//! When backups make the backup subsystem degraded, from the dashboard summary and the time:
//! failing while consecutive attempts fail (with the fixed failure text, never a path), overdue
//! once the newest restore point is older than [`OVERDUE_AFTER_MS`] (a daily backup plus two
//! hours for the retry ladder's first rungs), or when none was made although the server has been
//! watching for that long. A server that just started with no backup yet is not degraded: its
//! first cycle runs minutes after start. Pure: the actor passes `now_ms`.

use super::health::BackupSummary;
use super::schedule::DAILY_MS;
use crate::work_condition::{ConditionCode, WorkCondition};

/// A restore point older than this is overdue.
pub const OVERDUE_AFTER_MS: i64 = DAILY_MS + 2 * 60 * 60 * 1000;

/// The backup subsystem's condition at `now_ms`; `watching_since_ms` is when this server began
/// keeping backups (its start).
pub fn backup_condition(summary: &BackupSummary, now_ms: i64, watching_since_ms: i64) -> Option<WorkCondition> {
    if summary.failures > 0 {
        let text = summary.last_failure.unwrap_or("The last backup failed.");
        let attempts =
            if summary.failures == 1 { "1 attempt".to_string() } else { format!("{} attempts", summary.failures) };
        return Some(WorkCondition::new(
            ConditionCode::BackupFailing,
            &format!("Backups failing ({attempts} in a row): {text}"),
        ));
    }
    match summary.restore_point_at_ms {
        Some(at) if now_ms.saturating_sub(at) > OVERDUE_AFTER_MS => Some(WorkCondition::new(
            ConditionCode::BackupOverdue,
            &format!("Backup overdue: the newest restore point is {} old.", age_words(now_ms - at)),
        )),
        None if now_ms.saturating_sub(watching_since_ms) > OVERDUE_AFTER_MS => Some(WorkCondition::new(
            ConditionCode::BackupOverdue,
            "Backup overdue: no backup has been made since the server started.",
        )),
        _ => None,
    }
}

/// "30 hours", "3 days".
fn age_words(ms: i64) -> String {
    let hours = ms / 3_600_000;
    if hours < 48 {
        format!("{hours} hours")
    } else {
        format!("{} days", hours / 24)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: i64 = 1_800_000_000_000;
    const HOUR: i64 = 3_600_000;

    fn summary(restore_point_at_ms: Option<i64>, failures: u32, last_failure: Option<&'static str>) -> BackupSummary {
        BackupSummary {
            restore_point_at_ms,
            last_verified_at_ms: restore_point_at_ms,
            last_failure,
            failures,
            retention_allowed: failures == 0,
            busy: false,
        }
    }

    #[test]
    fn a_fresh_restore_point_or_a_fresh_start_is_not_degraded() {
        assert_eq!(backup_condition(&summary(Some(T), 0, None), T + 25 * HOUR, T), None);
        assert_eq!(backup_condition(&summary(None, 0, None), T + 5 * 60_000, T), None, "first cycle pending");
    }

    #[test]
    fn an_old_restore_point_or_none_after_a_day_is_overdue() {
        let old = backup_condition(&summary(Some(T), 0, None), T + 30 * HOUR, T).unwrap();
        assert_eq!(
            (old.code, old.reason.as_str()),
            (ConditionCode::BackupOverdue, "Backup overdue: the newest restore point is 30 hours old.")
        );
        let older = backup_condition(&summary(Some(T), 0, None), T + 75 * HOUR, T).unwrap();
        assert!(older.reason.ends_with("3 days old."), "{}", older.reason);
        let never = backup_condition(&summary(None, 0, None), T + 27 * HOUR, T).unwrap();
        assert_eq!(never.code, ConditionCode::BackupOverdue);
    }

    #[test]
    fn failures_win_and_carry_the_fixed_text() {
        let text = "Not enough disk space. Free space outside Relay history and backups, then retry.";
        let one = backup_condition(&summary(Some(T), 1, Some(text)), T + HOUR, T).unwrap();
        assert_eq!(
            (one.code, one.reason),
            (ConditionCode::BackupFailing, format!("Backups failing (1 attempt in a row): {text}"))
        );
        let three = backup_condition(&summary(Some(T), 3, Some(text)), T + 40 * HOUR, T).unwrap();
        assert!(three.reason.starts_with("Backups failing (3 attempts in a row)"), "{}", three.reason);
    }
}
