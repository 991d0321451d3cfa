//! Persisted authoritative rate limits: the `relay_rate_limits` table, one row per partly
//! drained bucket, grouped by scope (`signin.source`, `privileged.reauth`, ...). A scope is
//! replaced whole in one IMMEDIATE transaction, so a reader never sees half a snapshot, and is
//! bounded by `MAX_ROWS_PER_SCOPE`. Keys are the limiter's keys as text (IP addresses); rows
//! whose key does not parse are skipped on load, and values are clamped by
//! `domain::ratelimit::TokenBucket::restored`, so a damaged table can only be stricter or forget,
//! never grant more than a full bucket.

use std::fmt::Display;
use std::str::FromStr;

use diesel::prelude::*;

use domain::ratelimit::{BucketState, LimiterSnapshot};

use crate::db::{DbError, DbPool};

/// Upper bound on the rows one scope may hold (the limiters track at most 4,096 keys).
pub const MAX_ROWS_PER_SCOPE: usize = 8192;
/// The key under which a limiter's global bucket is stored.
const GLOBAL_KEY: &str = "*";

diesel::table! {
    relay_rate_limits (scope, key) {
        scope -> Text,
        key -> Text,
        tokens -> Double,
        last_ms -> BigInt,
    }
}

#[derive(Debug, Clone, PartialEq, Queryable, Insertable)]
#[diesel(table_name = relay_rate_limits)]
struct Row {
    scope: String,
    key: String,
    tokens: f64,
    last_ms: i64,
}

/// One named limiter's snapshot, ready to store.
pub struct ScopeSnapshot {
    scope: &'static str,
    rows: Vec<(String, BucketState)>,
}

impl ScopeSnapshot {
    pub fn new<K: Display>(scope: &'static str, snapshot: &LimiterSnapshot<K>) -> ScopeSnapshot {
        let global = snapshot.global.map(|state| (GLOBAL_KEY.to_string(), state));
        let keys = snapshot.keys.iter().map(|(key, state)| (key.to_string(), *state));
        ScopeSnapshot { scope, rows: global.into_iter().chain(keys).take(MAX_ROWS_PER_SCOPE).collect() }
    }
}

/// Reads and writes persisted limiter state through the store's pool.
#[derive(Clone)]
pub struct RateLimitStore {
    pool: DbPool,
}

impl RateLimitStore {
    pub fn new(pool: DbPool) -> RateLimitStore {
        RateLimitStore { pool }
    }

    /// Replaces every given scope in one transaction.
    pub fn save(&self, scopes: &[ScopeSnapshot]) -> Result<(), DbError> {
        let mut conn = self.pool.get().map_err(|e| DbError::Pool(e.to_string()))?;
        conn.immediate_transaction(|conn| {
            for snapshot in scopes {
                diesel::delete(relay_rate_limits::table.filter(relay_rate_limits::scope.eq(snapshot.scope)))
                    .execute(conn)?;
                let rows: Vec<Row> = snapshot
                    .rows
                    .iter()
                    .map(|(key, state)| Row {
                        scope: snapshot.scope.to_string(),
                        key: key.clone(),
                        tokens: state.tokens,
                        last_ms: i64::try_from(state.last_ms).unwrap_or(i64::MAX),
                    })
                    .collect();
                for chunk in rows.chunks(500) {
                    diesel::insert_into(relay_rate_limits::table).values(chunk).execute(conn)?;
                }
            }
            Ok::<_, diesel::result::Error>(())
        })?;
        Ok(())
    }

    /// The snapshot stored under `scope` (empty when none); unparsable keys are skipped.
    pub fn load<K: FromStr>(&self, scope: &str) -> Result<LimiterSnapshot<K>, DbError> {
        let mut conn = self.pool.get().map_err(|e| DbError::Pool(e.to_string()))?;
        let rows: Vec<Row> = relay_rate_limits::table
            .filter(relay_rate_limits::scope.eq(scope))
            .limit(MAX_ROWS_PER_SCOPE as i64 + 1)
            .load(&mut conn)?;
        let mut snapshot = LimiterSnapshot::default();
        for row in rows {
            let state = BucketState { tokens: row.tokens, last_ms: u64::try_from(row.last_ms).unwrap_or(0) };
            if row.key == GLOBAL_KEY {
                snapshot.global = Some(state);
            } else if let Ok(key) = row.key.parse() {
                snapshot.keys.push((key, state));
            }
        }
        Ok(snapshot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::IpAddr;

    fn store() -> (tempfile::TempDir, RateLimitStore) {
        let tmp = tempfile::tempdir().unwrap();
        let (pool, _) = crate::db::open(&tmp.path().join("relay.db"), 2).unwrap();
        (tmp, RateLimitStore::new(pool))
    }

    #[test]
    fn scopes_round_trip_and_are_replaced_whole() {
        let (_tmp, store) = store();
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "fd00::/64".split('/').next().unwrap().parse().unwrap();
        let snapshot = LimiterSnapshot {
            global: Some(BucketState { tokens: 1.5, last_ms: 42 }),
            keys: vec![(a, BucketState { tokens: 0.0, last_ms: 7 }), (b, BucketState { tokens: 2.0, last_ms: 8 })],
        };
        let other = LimiterSnapshot { global: None, keys: vec![(a, BucketState { tokens: 3.0, last_ms: 9 })] };
        store.save(&[ScopeSnapshot::new("one", &snapshot), ScopeSnapshot::new("two", &other)]).unwrap();
        let mut loaded = store.load::<IpAddr>("one").unwrap();
        loaded.keys.sort_by_key(|(k, _)| *k);
        assert_eq!(loaded, snapshot);
        store.save(&[ScopeSnapshot::new("one", &LimiterSnapshot::<IpAddr>::default())]).unwrap();
        assert_eq!(store.load::<IpAddr>("one").unwrap(), LimiterSnapshot::default(), "replaced, not merged");
        assert_eq!(store.load::<IpAddr>("two").unwrap(), other, "other scopes untouched");
    }

    #[test]
    fn unparsable_keys_are_skipped_and_scopes_bounded() {
        let (_tmp, store) = store();
        let junk = LimiterSnapshot {
            global: None,
            keys: (0..MAX_ROWS_PER_SCOPE + 10)
                .map(|i| (format!("not-an-ip-{i}"), BucketState { tokens: 0.0, last_ms: 0 }))
                .collect(),
        };
        store.save(&[ScopeSnapshot::new("junk", &junk)]).unwrap();
        assert_eq!(store.load::<String>("junk").unwrap().keys.len(), MAX_ROWS_PER_SCOPE, "bounded");
        assert!(store.load::<IpAddr>("junk").unwrap().keys.is_empty(), "unparsable keys skipped");
    }
}
