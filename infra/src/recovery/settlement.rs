//! The settlement intent `recovery/settlement.json`: before promotion or rollback activates its
//! terminal catalog, the launcher writes (atomically, under the lock) which transaction is being
//! settled, its source and target builds, the release fingerprint and the outcome. It is removed
//! only after the terminal catalog is active and the cleanup it implies is done, so an
//! interrupted settlement is always found at the next start by
//! [`super::transition::reconcile`]. Strict like the catalog: unknown or duplicate keys and
//! malformed fields make it invalid.

use domain::updater::{BuildId, ReleaseFingerprint};
use serde::{Deserialize, Serialize};

use super::catalog::TransactionId;
use super::{fsutil, ManagedRoot, RecoveryIoError, RecoveryLock};

const SETTLEMENT_PROTOCOL: u32 = 1;
const MAX_SETTLEMENT_BYTES: u64 = 4096;

/// How a transaction ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// The candidate becomes current; the source becomes the newest predecessor.
    Promote,
    /// The candidate failed probation: data restored, candidate removed, release quarantined.
    Rollback,
    /// The candidate could not be used at all (its runtime does not verify, or no snapshot could
    /// be taken): data restored when a snapshot exists, candidate removed, no quarantine.
    Discard,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawSettlement {
    protocol: u32,
    transaction: String,
    source_build: String,
    target_build: String,
    release: String,
    outcome: Outcome,
}

/// A validated settlement intent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settlement {
    pub transaction: TransactionId,
    pub source: BuildId,
    pub target: BuildId,
    pub release: ReleaseFingerprint,
    pub outcome: Outcome,
}

impl Settlement {
    pub fn parse(bytes: &[u8]) -> Result<Settlement, RecoveryIoError> {
        let invalid = RecoveryIoError::InvalidSettlement;
        let raw: RawSettlement = serde_json::from_slice(bytes).map_err(|_| invalid("json"))?;
        if raw.protocol != SETTLEMENT_PROTOCOL {
            return Err(invalid("protocol"));
        }
        Ok(Settlement {
            transaction: TransactionId::parse(&raw.transaction).ok_or(invalid("transaction"))?,
            source: BuildId::parse(&raw.source_build).map_err(|_| invalid("build_id"))?,
            target: BuildId::parse(&raw.target_build).map_err(|_| invalid("build_id"))?,
            release: ReleaseFingerprint::parse(&raw.release).map_err(|_| invalid("release"))?,
            outcome: raw.outcome,
        })
    }

    pub fn to_json(&self) -> Vec<u8> {
        let raw = RawSettlement {
            protocol: SETTLEMENT_PROTOCOL,
            transaction: self.transaction.to_string(),
            source_build: self.source.to_string(),
            target_build: self.target.to_string(),
            release: self.release.to_string(),
            outcome: self.outcome,
        };
        serde_json::to_vec_pretty(&raw).expect("a settlement serializes")
    }
}

/// Reads the intent; `Ok(None)` when there is none.
pub fn read_settlement(root: &ManagedRoot) -> Result<Option<Settlement>, RecoveryIoError> {
    fsutil::read_bounded(&root.settlement_path(), MAX_SETTLEMENT_BYTES)?
        .map(|bytes| Settlement::parse(&bytes))
        .transpose()
}

/// Writes the intent atomically (fault points `recovery:settlement:before-rename` and
/// `recovery:settlement:after-rename`).
pub fn write_settlement(root: &ManagedRoot, _lock: &RecoveryLock, intent: &Settlement) -> Result<(), RecoveryIoError> {
    fsutil::write_atomic(&root.settlement_path(), &intent.to_json(), 0o600, "recovery:settlement")
}

/// Removes the intent once its settlement is complete.
pub fn remove_settlement(root: &ManagedRoot, _lock: &RecoveryLock) -> Result<(), RecoveryIoError> {
    fsutil::remove_file(&root.settlement_path())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Settlement {
        Settlement {
            transaction: TransactionId::fresh(),
            source: BuildId::parse("v1-0-0-aaaaaaaa").unwrap(),
            target: BuildId::parse("v1-1-0-bbbbbbbb").unwrap(),
            release: ReleaseFingerprint::parse(&format!("v1.1.0@{}", "b".repeat(40))).unwrap(),
            outcome: Outcome::Rollback,
        }
    }

    #[test]
    fn an_intent_round_trips_and_strictness_refuses_extra_or_repeated_keys() {
        let intent = sample();
        let json = String::from_utf8(intent.to_json()).unwrap();
        assert_eq!(Settlement::parse(json.as_bytes()).unwrap(), intent);
        let extra = json.replacen('{', r#"{"note":"x","#, 1);
        assert!(matches!(Settlement::parse(extra.as_bytes()), Err(RecoveryIoError::InvalidSettlement("json"))));
        let repeated = json.replacen('{', r#"{"outcome":"promote","#, 1);
        assert!(matches!(Settlement::parse(repeated.as_bytes()), Err(RecoveryIoError::InvalidSettlement("json"))));
        let bad_outcome = json.replace("\"rollback\"", "\"maybe\"");
        assert!(Settlement::parse(bad_outcome.as_bytes()).is_err());
    }
}
