//! Hash-chained audit log for privileged commands. This module owns the entry format, the entry
//! hash (`sha256_hex("relay-audit-v1\n" + canonical JSON of the entry without "hash")`), how the
//! next entry links to the previous one, and chain verification. A chain alone cannot reveal
//! that its newest entries were cut off, so storage keeps the head `(seq, hash)` separately and
//! [`verify_chain_with_head`] compares it. Entries never contain payloads or secrets: only ids,
//! the command name and a short outcome string.

use serde_json::json;

use crate::canonical::{canonical_json, sha256_hex};

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    pub seq: i64,
    pub at_ms: i64,
    pub account_id: String,
    pub device_id: Option<String>,
    pub command: String,
    pub request_id: String,
    pub outcome: String,
    pub prev_hash: String,
    pub hash: String,
}

pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";
pub const AUDIT_HASH_CONTEXT: &str = "relay-audit-v1\n";

/// `sha256_hex("relay-audit-v1\n" + canonical_json(entry without "hash"))`.
pub fn entry_hash(e: &AuditEntry) -> String {
    let v = json!({
        "seq": e.seq,
        "atMs": e.at_ms,
        "accountId": e.account_id,
        "deviceId": e.device_id,
        "command": e.command,
        "requestId": e.request_id,
        "outcome": e.outcome,
        "prevHash": e.prev_hash,
    });
    // Only strings, integers and null at depth 1: canonicalization cannot fail.
    let body = canonical_json(&v).expect("audit entries contain only strings, integers and null");
    sha256_hex(format!("{AUDIT_HASH_CONTEXT}{body}").as_bytes())
}

/// The entry that follows `prev` (or the first entry when `prev` is `None`), with its hash set.
pub fn next_entry(
    prev: Option<&AuditEntry>,
    at_ms: i64,
    account_id: &str,
    device_id: Option<&str>,
    command: &str,
    request_id: &str,
    outcome: &str,
) -> AuditEntry {
    let mut e = AuditEntry {
        seq: prev.map_or(1, |p| p.seq.saturating_add(1)),
        at_ms,
        account_id: account_id.into(),
        device_id: device_id.map(str::to_string),
        command: command.into(),
        request_id: request_id.into(),
        outcome: outcome.into(),
        prev_hash: prev.map_or_else(|| GENESIS_HASH.to_string(), |p| p.hash.clone()),
        hash: String::new(),
    };
    e.hash = entry_hash(&e);
    e
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuditError {
    #[error("entry {seq}: hash does not match its contents")]
    Tampered { seq: i64 },
    #[error("entry {seq}: does not follow the previous entry")]
    BrokenLink { seq: i64 },
    #[error("entry {seq}: sequence gap or reorder")]
    Gap { seq: i64 },
    /// The chain is internally consistent but does not end at the separately stored head
    /// (`seq` is the last entry's seq, or 0 for an empty chain).
    #[error("chain ends at entry {seq}, which is not the stored head")]
    HeadMismatch { seq: i64 },
}

/// Verifies entries given in seq order: they must start at seq 1 with [`GENESIS_HASH`] as
/// `prev_hash`, increase by exactly one, link each `prev_hash` to the previous `hash`, and each
/// `hash` must match the entry's contents. Returns the number of entries verified.
///
/// This cannot detect removal of the newest entries; use [`verify_chain_with_head`].
pub fn verify_chain(entries: &[AuditEntry]) -> Result<usize, AuditError> {
    let mut prev: Option<&AuditEntry> = None;
    for (i, e) in entries.iter().enumerate() {
        if entry_hash(e) != e.hash {
            return Err(AuditError::Tampered { seq: e.seq });
        }
        if e.seq != i as i64 + 1 {
            return Err(AuditError::Gap { seq: e.seq });
        }
        let expected_prev = prev.map_or(GENESIS_HASH, |p| p.hash.as_str());
        if e.prev_hash != expected_prev {
            return Err(AuditError::BrokenLink { seq: e.seq });
        }
        prev = Some(e);
    }
    Ok(entries.len())
}

/// [`verify_chain`], then checks that the last entry is exactly the separately stored head
/// `(seq, hash)`. `None` means the store records no head, i.e. the log must be empty.
pub fn verify_chain_with_head(entries: &[AuditEntry], expected_head: Option<(i64, &str)>) -> Result<usize, AuditError> {
    let n = verify_chain(entries)?;
    let actual = entries.last().map(|e| (e.seq, e.hash.as_str()));
    if actual != expected_head {
        return Err(AuditError::HeadMismatch { seq: actual.map_or(0, |(s, _)| s) });
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(n: usize) -> Vec<AuditEntry> {
        let mut v: Vec<AuditEntry> = Vec::new();
        for i in 0..n {
            let dev = if i % 2 == 0 { Some("devc00000000001") } else { None };
            let e = next_entry(
                v.last(),
                1_000 + i as i64,
                "acct00000000001",
                dev,
                "wiki.publish",
                &format!("req-{i:016}"),
                "ok",
            );
            v.push(e);
        }
        v
    }

    #[test]
    fn valid_chain_verifies() {
        assert_eq!(verify_chain(&[]), Ok(0));
        let c = chain(5);
        assert_eq!(c[0].seq, 1);
        assert_eq!(c[0].prev_hash, GENESIS_HASH);
        assert_eq!(c[3].prev_hash, c[2].hash);
        assert_eq!(verify_chain(&c), Ok(5));
        assert_eq!(verify_chain_with_head(&c, Some((5, &c[4].hash))), Ok(5));
        assert_eq!(verify_chain_with_head(&[], None), Ok(0));
    }

    #[test]
    fn hash_is_the_documented_construction() {
        let e = next_entry(None, 42, "acct00000000001", None, "privileged.probe", "req-0000000000000000", "ok");
        let body = format!(
            "{{\"accountId\":\"acct00000000001\",\"atMs\":42,\"command\":\"privileged.probe\",\"deviceId\":null,\
             \"outcome\":\"ok\",\"prevHash\":\"{GENESIS_HASH}\",\"requestId\":\"req-0000000000000000\",\"seq\":1}}"
        );
        assert_eq!(e.hash, sha256_hex(format!("relay-audit-v1\n{body}").as_bytes()));
    }

    #[test]
    fn editing_any_field_is_detected() {
        type Edit = fn(&mut AuditEntry);
        let edits: &[Edit] = &[
            |e| e.seq += 10,
            |e| e.at_ms += 1,
            |e| e.account_id.push('x'),
            |e| e.device_id = Some("devc00000000009".into()),
            |e| e.device_id = None,
            |e| e.command = "admin.snapshot".into(),
            |e| e.request_id.push('x'),
            |e| e.outcome = "error".into(),
            |e| e.prev_hash = GENESIS_HASH.into(),
            |e| e.hash = GENESIS_HASH.into(),
        ];
        for (k, edit) in edits.iter().enumerate() {
            let mut c = chain(4);
            edit(&mut c[2]);
            if c[2] == chain(4)[2] {
                continue; // the edit was a no-op for this entry (e.g. device_id already None)
            }
            assert_eq!(verify_chain(&c), Err(AuditError::Tampered { seq: c[2].seq }), "edit {k}");
        }
    }

    #[test]
    fn rehashed_edit_breaks_the_next_link() {
        let mut c = chain(4);
        c[1].outcome = "forged".into();
        c[1].hash = entry_hash(&c[1]);
        assert_eq!(verify_chain(&c), Err(AuditError::BrokenLink { seq: 3 }));
        // A forged first entry that does not start from genesis.
        let mut c = chain(2);
        c[0].prev_hash = "1".repeat(64);
        c[0].hash = entry_hash(&c[0]);
        assert_eq!(verify_chain(&c), Err(AuditError::BrokenLink { seq: 1 }));
    }

    #[test]
    fn removal_and_reordering_are_detected() {
        let c = chain(5);
        let mut middle = c.clone();
        middle.remove(2);
        assert_eq!(verify_chain(&middle), Err(AuditError::Gap { seq: 4 }));
        let mut first = c.clone();
        first.remove(0);
        assert_eq!(verify_chain(&first), Err(AuditError::Gap { seq: 2 }));
        let mut swapped = c.clone();
        swapped.swap(1, 2);
        assert_eq!(verify_chain(&swapped), Err(AuditError::Gap { seq: 3 }));
        let mut dup = c.clone();
        dup.insert(2, c[1].clone());
        assert_eq!(verify_chain(&dup), Err(AuditError::Gap { seq: 2 }));
    }

    #[test]
    fn truncation_needs_the_head() {
        let c = chain(5);
        let cut = &c[..3];
        assert_eq!(verify_chain(cut), Ok(3)); // undetectable by the chain alone
        let head = Some((5, c[4].hash.as_str()));
        assert_eq!(verify_chain_with_head(cut, head), Err(AuditError::HeadMismatch { seq: 3 }));
        assert_eq!(verify_chain_with_head(&[], head), Err(AuditError::HeadMismatch { seq: 0 }));
        assert_eq!(verify_chain_with_head(&c, None), Err(AuditError::HeadMismatch { seq: 5 }));
        assert_eq!(verify_chain_with_head(&c, Some((5, GENESIS_HASH))), Err(AuditError::HeadMismatch { seq: 5 }));
        // Errors inside the chain are still reported first.
        let mut bad = c.clone();
        bad[0].outcome = "x".into();
        assert_eq!(verify_chain_with_head(&bad, head), Err(AuditError::Tampered { seq: 1 }));
    }
}
