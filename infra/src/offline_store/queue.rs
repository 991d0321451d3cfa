//! The queue side of the offline store: an offline write is checked, folded into the change
//! already queued for its record (`domain::offline::queue::coalesce`) and written to the queue
//! and the cache in one IMMEDIATE transaction; the replay and the review then settle changes
//! only at the version they read (`remove_exact`, `mark_failure`, `discard`, `rebase`), so an
//! edit made while a change was in flight is never lost. Reads that feed a replay or a review
//! are strict: a row that cannot be read fails the call instead of being skipped.

use diesel::prelude::*;
use serde::Serialize;
use serde_json::{Map, Value};

use domain::offline::queue::{
    check_mutation, coalesce, optimistic_record, Coalesced, MutationAction, MutationError, OfflineMutation,
    QueuedChange,
};
use domain::offline::record_fingerprint;

use super::{cache, unavailable, OfflineStore, OfflineStoreError, PendingChange};

diesel::table! {
    q.pending_changes (id) {
        id -> BigInt,
        mutation_id -> Text,
        collection -> Text,
        record_id -> Text,
        action -> Text,
        data -> Nullable<Text>,
        timestamp_ms -> BigInt,
        base_updated -> Text,
        expected_fingerprint -> Text,
        version -> BigInt,
        sync_error -> Text,
    }
}

use pending_changes as pc;

/// One `pending_changes` row as stored (`action` and `data` still text).
#[derive(Queryable)]
struct Row {
    id: i64,
    mutation_id: String,
    collection: String,
    record_id: String,
    action: String,
    data: Option<String>,
    timestamp_ms: i64,
    base_updated: String,
    expected_fingerprint: String,
    version: i64,
    sync_error: String,
}

fn from_row(row: Row) -> Result<PendingChange, OfflineStoreError> {
    let id = row.id;
    let action = MutationAction::parse(&row.action)
        .ok_or_else(|| unavailable(format!("queued change {id} has an unknown action")))?;
    let data = match row.data {
        None => None,
        Some(text) => match serde_json::from_str(&text) {
            Ok(Value::Object(map)) => Some(map),
            _ => return Err(unavailable(format!("queued change {id} has unreadable data"))),
        },
    };
    Ok(PendingChange {
        id,
        mutation_id: row.mutation_id,
        collection: row.collection,
        record_id: row.record_id,
        action,
        data,
        timestamp_ms: row.timestamp_ms,
        base_updated: row.base_updated,
        expected_fingerprint: row.expected_fingerprint,
        version: row.version,
        sync_error: row.sync_error,
    })
}

fn load(
    query: pc::BoxedQuery<'_, diesel::sqlite::Sqlite>,
    conn: &mut SqliteConnection,
) -> Result<Vec<PendingChange>, OfflineStoreError> {
    let rows: Vec<Row> = query.order(pc::id).load(conn)?;
    rows.into_iter().map(from_row).collect()
}

pub(super) fn for_collection(
    conn: &mut SqliteConnection,
    collection: &str,
) -> Result<Vec<PendingChange>, OfflineStoreError> {
    load(pc::table.filter(pc::collection.eq(collection.to_string())).into_boxed(), conn)
}

fn for_record(
    conn: &mut SqliteConnection,
    collection: &str,
    id: &str,
) -> Result<Option<PendingChange>, OfflineStoreError> {
    let query = pc::table.filter(pc::collection.eq(collection.to_string())).filter(pc::record_id.eq(id.to_string()));
    Ok(load(query.into_boxed(), conn)?.into_iter().next())
}

fn count(conn: &mut SqliteConnection) -> Result<i64, OfflineStoreError> {
    Ok(pc::table.count().get_result(conn)?)
}

fn data_text(data: &Option<Map<String, Value>>) -> Option<String> {
    data.as_ref().map(|d| Value::Object(d.clone()).to_string())
}

fn new_mutation_id() -> String {
    let hex: String = crate::ids::random_bytes(16).iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
}

/// What an offline write did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MutationApplied {
    pub mutation_id: String,
    /// The queued change now holding the write (`None` when a create was cancelled by its delete).
    pub change_id: Option<i64>,
    pub record_id: String,
    /// The record the cache now shows (`None` after a delete).
    pub record: Option<Value>,
    pub pending_count: i64,
}

/// How one replayed change ends in the queue.
#[derive(Debug, Clone, PartialEq)]
pub enum Settle {
    /// Applied; the cache keeps the optimistic copy.
    Remove,
    /// Applied or given up; the cache takes the server's copy (`None`: the record is gone).
    Discard(Option<Value>),
    /// Kept for the operator's review with this reason.
    MarkForReview(String),
}

/// One change's settlement at `version` (callers that also touch the cache run it inside a
/// transaction).
fn settle_one(conn: &mut SqliteConnection, id: i64, version: i64, settle: &Settle) -> Result<(), OfflineStoreError> {
    let target = pc::table.filter(pc::id.eq(id)).filter(pc::version.eq(version));
    match settle {
        Settle::Remove => exactly_one(diesel::delete(target).execute(conn)?),
        Settle::MarkForReview(reason) => {
            exactly_one(diesel::update(target).set(pc::sync_error.eq(reason)).execute(conn)?)
        }
        Settle::Discard(server) => {
            let change = load(target.into_boxed(), conn)?.into_iter().next().ok_or(OfflineStoreError::Stale)?;
            diesel::delete(pc::table.find(id)).execute(conn)?;
            match server {
                Some(record) => cache::put(conn, &change.collection, &change.record_id, record),
                None => cache::remove(conn, &change.collection, &change.record_id),
            }
        }
    }
}

/// Turns "no row at that version" into [`OfflineStoreError::Stale`].
fn exactly_one(changed: usize) -> Result<(), OfflineStoreError> {
    if changed == 1 {
        Ok(())
    } else {
        Err(OfflineStoreError::Stale)
    }
}

impl OfflineStore {
    /// Checks and applies one offline write: the queue and the cache change in one commit.
    pub fn apply_mutation(
        &mut self,
        mutation: &OfflineMutation,
        now_ms: i64,
    ) -> Result<MutationApplied, OfflineStoreError> {
        let checked = check_mutation(mutation)?;
        let record_id = checked.record_id.clone().unwrap_or_else(crate::ids::record_id);
        let mutation_id = new_mutation_id();
        let now_iso = domain::time::format_ms(now_ms);
        self.conn.immediate_transaction(|conn| {
            let collection = checked.collection.as_str();
            let cached = cache::get(conn, collection, &record_id)?;
            let queued = for_record(conn, collection, &record_id)?;
            match (checked.action, &cached, &queued) {
                // A create must name a new record; an edit must name one this client can see.
                (MutationAction::Create, Some(_), None) => return Err(MutationError::InvalidRecordId.into()),
                (MutationAction::Update | MutationAction::Delete, None, None) => {
                    return Err(MutationError::InvalidRecordId.into())
                }
                _ => {}
            }
            let queued_view = queued.as_ref().map(|q| QueuedChange { action: q.action, data: q.data.clone() });
            let change_id = match coalesce(queued_view.as_ref(), checked.action, checked.data.clone())? {
                Coalesced::Insert { action, data } => {
                    let (base_updated, fingerprint) = match (&cached, action) {
                        (Some(server), MutationAction::Update | MutationAction::Delete) => (
                            server.get("updated").and_then(Value::as_str).unwrap_or_default().to_string(),
                            record_fingerprint(server).map_err(|_| MutationError::InvalidData)?,
                        ),
                        _ => (String::new(), String::new()),
                    };
                    let id: i64 = diesel::insert_into(pc::table)
                        .values((
                            pc::mutation_id.eq(&mutation_id),
                            pc::collection.eq(collection),
                            pc::record_id.eq(&record_id),
                            pc::action.eq(action.as_str()),
                            pc::data.eq(data_text(&data)),
                            pc::timestamp_ms.eq(now_ms),
                            pc::base_updated.eq(base_updated),
                            pc::expected_fingerprint.eq(fingerprint),
                        ))
                        .returning(pc::id)
                        .get_result(conn)?;
                    Some(id)
                }
                Coalesced::Replace { action, data } => {
                    let queued = queued.as_ref().expect("replace implies a queued change");
                    diesel::update(pc::table.find(queued.id))
                        .set((
                            pc::mutation_id.eq(&mutation_id),
                            pc::action.eq(action.as_str()),
                            pc::data.eq(data_text(&data)),
                            pc::timestamp_ms.eq(now_ms),
                            pc::version.eq(queued.version + 1),
                            pc::sync_error.eq(""),
                        ))
                        .execute(conn)?;
                    Some(queued.id)
                }
                Coalesced::Cancel => {
                    let queued = queued.as_ref().expect("cancel implies a queued change");
                    diesel::delete(pc::table.find(queued.id)).execute(conn)?;
                    None
                }
            };
            crate::fault::fault_point("offline:mutate:queued");
            let record = match checked.action {
                MutationAction::Delete => {
                    cache::remove(conn, collection, &record_id)?;
                    None
                }
                _ => {
                    let data = checked.data.clone().unwrap_or_default();
                    let record = optimistic_record(cached.as_ref(), &data, &record_id, &now_iso);
                    cache::put(conn, collection, &record_id, &record)?;
                    Some(record)
                }
            };
            Ok(MutationApplied {
                mutation_id: mutation_id.clone(),
                change_id,
                record_id: record_id.clone(),
                record,
                pending_count: count(conn)?,
            })
        })
    }

    /// Every queued change in order; fails rather than skip a row it cannot read.
    pub fn all_pending_strict(&mut self) -> Result<Vec<PendingChange>, OfflineStoreError> {
        load(pc::table.into_boxed(), &mut self.conn)
    }

    /// Up to `limit` changes after `after_id`, in order.
    pub fn pending_page(&mut self, after_id: Option<i64>, limit: u32) -> Result<Vec<PendingChange>, OfflineStoreError> {
        let query = pc::table.filter(pc::id.gt(after_id.unwrap_or(0))).limit(i64::from(limit)).into_boxed();
        load(query, &mut self.conn)
    }

    /// How many changes wait, and how many of them wait for review.
    pub fn pending_counts(&mut self) -> Result<(i64, i64), OfflineStoreError> {
        let total = count(&mut self.conn)?;
        let issues = pc::table.filter(pc::sync_error.ne("")).count().get_result(&mut self.conn)?;
        Ok((total, issues))
    }

    /// Removes a change the server applied, only at the version that was sent.
    pub fn remove_exact(&mut self, id: i64, version: i64) -> Result<(), OfflineStoreError> {
        settle_one(&mut self.conn, id, version, &Settle::Remove)
    }

    /// Marks a change for review with the reason, only at the version that was sent.
    pub fn mark_failure(&mut self, id: i64, version: i64, reason: &str) -> Result<(), OfflineStoreError> {
        settle_one(&mut self.conn, id, version, &Settle::MarkForReview(reason.to_string()))
    }

    /// Drops a change and caches the server's copy of its record (or forgets the record when
    /// the server has none), in one commit.
    pub fn discard(&mut self, id: i64, version: i64, server: Option<Value>) -> Result<(), OfflineStoreError> {
        self.conn.immediate_transaction(|conn| settle_one(conn, id, version, &Settle::Discard(server)))
    }

    /// Settles the changes of one answered replay batch in one commit (one fsync instead of
    /// one per change). Each is settled only at its version: a change edited meanwhile is
    /// skipped (it replays next time) and counted in the answer.
    pub fn settle_all(&mut self, items: &[(i64, i64, Settle)]) -> Result<usize, OfflineStoreError> {
        self.conn.immediate_transaction(|conn| {
            let mut stale = 0;
            for (id, version, settle) in items {
                match settle_one(conn, *id, *version, settle) {
                    Ok(()) => {}
                    Err(OfflineStoreError::Stale) => stale += 1,
                    Err(e) => return Err(e),
                }
            }
            Ok(stale)
        })
    }

    /// Re-bases a change on the server copy the operator reviewed (its `updated` and
    /// fingerprint), optionally with new data; a create becomes an update of the record the
    /// server already holds. The version moves on and the review reason is cleared.
    pub fn rebase(
        &mut self,
        id: i64,
        version: i64,
        updated: &str,
        fingerprint: &str,
        data: Option<Value>,
    ) -> Result<(), OfflineStoreError> {
        self.conn.immediate_transaction(|conn| {
            let change = load(pc::table.filter(pc::id.eq(id)).filter(pc::version.eq(version)).into_boxed(), conn)?
                .into_iter()
                .next()
                .ok_or(OfflineStoreError::Stale)?;
            let data = match data {
                Some(Value::Object(map)) => Some(map),
                Some(_) => return Err(MutationError::InvalidData.into()),
                None => change.data.clone(),
            };
            let action = if change.action == MutationAction::Create { MutationAction::Update } else { change.action };
            diesel::update(pc::table.find(id))
                .set((
                    pc::action.eq(action.as_str()),
                    pc::data.eq(data_text(&data)),
                    pc::base_updated.eq(updated),
                    pc::expected_fingerprint.eq(fingerprint),
                    pc::version.eq(version + 1),
                    pc::sync_error.eq(""),
                ))
                .execute(conn)?;
            Ok(())
        })
    }
}
