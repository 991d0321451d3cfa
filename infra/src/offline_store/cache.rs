//! The snapshot side of the offline store: a collection's server snapshot replaces its cached
//! records in one transaction, with the client's queued writes for that collection laid over it
//! again (a queued delete stays hidden, a queued create or update stays visible), so a snapshot
//! taken before a replay never shows the operator an older state than the one they wrote.

use diesel::prelude::*;
use serde::Serialize;
use serde_json::Value;

use domain::offline::queue::{optimistic_record, MutationAction};

use super::{unavailable, OfflineStore, OfflineStoreError, PendingChange};

diesel::table! {
    cached_records (collection, record_id) {
        collection -> Text,
        record_id -> Text,
        json -> Text,
    }
}

diesel::table! {
    cached_collections (collection) {
        collection -> Text,
        fetched_at_ms -> BigInt,
    }
}

/// Rows per insert statement (well under SQLite's bound-parameter limit).
const INSERT_CHUNK: usize = 500;

/// A cached collection as the renderer reads it while offline.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CachedCollection {
    pub records: Vec<Value>,
    /// When its last server snapshot was stored.
    pub fetched_at_ms: i64,
}

pub(super) fn get(conn: &mut SqliteConnection, collection: &str, id: &str) -> Result<Option<Value>, OfflineStoreError> {
    let json: Option<String> = cached_records::table
        .filter(cached_records::collection.eq(collection))
        .filter(cached_records::record_id.eq(id))
        .select(cached_records::json)
        .first(conn)
        .optional()?;
    json.map(|j| serde_json::from_str(&j).map_err(unavailable)).transpose()
}

pub(super) fn put(
    conn: &mut SqliteConnection,
    collection: &str,
    id: &str,
    record: &Value,
) -> Result<(), OfflineStoreError> {
    diesel::replace_into(cached_records::table)
        .values((
            cached_records::collection.eq(collection),
            cached_records::record_id.eq(id),
            cached_records::json.eq(record.to_string()),
        ))
        .execute(conn)?;
    Ok(())
}

pub(super) fn remove(conn: &mut SqliteConnection, collection: &str, id: &str) -> Result<(), OfflineStoreError> {
    diesel::delete(
        cached_records::table
            .filter(cached_records::collection.eq(collection))
            .filter(cached_records::record_id.eq(id)),
    )
    .execute(conn)?;
    Ok(())
}

/// Lays one queued change over the cache (used after a snapshot replaced it).
fn overlay(conn: &mut SqliteConnection, change: &PendingChange) -> Result<(), OfflineStoreError> {
    match change.action {
        MutationAction::Delete => remove(conn, &change.collection, &change.record_id),
        MutationAction::Create | MutationAction::Update => {
            let existing = get(conn, &change.collection, &change.record_id)?;
            let data = change.data.clone().unwrap_or_default();
            let now = domain::time::format_ms(change.timestamp_ms);
            let record = optimistic_record(existing.as_ref(), &data, &change.record_id, &now);
            put(conn, &change.collection, &change.record_id, &record)
        }
    }
}

fn record_id(record: &Value) -> Result<&str, OfflineStoreError> {
    record
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| domain::validation::is_record_id(id))
        .ok_or_else(|| unavailable("a snapshot record has no valid id"))
}

impl OfflineStore {
    /// Replaces the cached copy of `collection` with `records` (one commit), then lays the
    /// queued writes for it back over the new copy.
    pub fn replace_snapshot(
        &mut self,
        collection: &str,
        records: &[Value],
        now_ms: i64,
    ) -> Result<(), OfflineStoreError> {
        let rows: Vec<(&str, String)> =
            records.iter().map(|r| Ok((record_id(r)?, r.to_string()))).collect::<Result<_, OfflineStoreError>>()?;
        self.conn.immediate_transaction(|conn| {
            diesel::delete(cached_records::table.filter(cached_records::collection.eq(collection))).execute(conn)?;
            for chunk in rows.chunks(INSERT_CHUNK) {
                let values: Vec<_> = chunk
                    .iter()
                    .map(|(id, json)| {
                        (
                            cached_records::collection.eq(collection),
                            cached_records::record_id.eq(*id),
                            cached_records::json.eq(json),
                        )
                    })
                    .collect();
                diesel::replace_into(cached_records::table).values(&values).execute(conn)?;
            }
            for change in super::queue::for_collection(conn, collection)? {
                overlay(conn, &change)?;
            }
            diesel::replace_into(cached_collections::table)
                .values((cached_collections::collection.eq(collection), cached_collections::fetched_at_ms.eq(now_ms)))
                .execute(conn)?;
            Ok(())
        })
    }

    /// The cached copy of `collection`, or `None` when it was never cached and nothing was
    /// written to it offline.
    pub fn cached(&mut self, collection: &str) -> Result<Option<CachedCollection>, OfflineStoreError> {
        let conn = &mut self.conn;
        let fetched: Option<i64> = cached_collections::table
            .filter(cached_collections::collection.eq(collection))
            .select(cached_collections::fetched_at_ms)
            .first(conn)
            .optional()?;
        let rows: Vec<String> = cached_records::table
            .filter(cached_records::collection.eq(collection))
            .select(cached_records::json)
            .order(cached_records::record_id)
            .load(conn)?;
        if fetched.is_none() && rows.is_empty() {
            return Ok(None);
        }
        let records = rows.iter().map(|j| serde_json::from_str(j).map_err(unavailable)).collect::<Result<_, _>>()?;
        Ok(Some(CachedCollection { records, fetched_at_ms: fetched.unwrap_or(0) }))
    }

    /// One cached record (with the client's queued write over it).
    pub fn cached_record(&mut self, collection: &str, id: &str) -> Result<Option<Value>, OfflineStoreError> {
        get(&mut self.conn, collection, id)
    }
}
