//! Storing one Dynatrace run: the changed problem records (upserted by `problemId`), then for a
//! complete reconciliation the removal of stored problems inside its window that it no longer
//! returned, then new e-mail subjects on problems Relay already holds (never creating one),
//! then the open count for the sync record. Every step checks the settings generation first
//! and stops as soon as it moved, so a run that outlived its settings writes nothing more.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use actix::prelude::*;

use domain::filter::{CmpOp, Expr, Literal};
use domain::record::{RawListParams, RecordError};

use super::plan::{dropped_by_reconcile, ProblemWrite};
use super::subjects::SubjectWrite;
use super::PROBLEMS;
use crate::store::{DeleteWhere, ListRecords, StoreActor, UpdateByKey, UpsertByKey};

/// What a run stores: changed problems, (complete reconciliation) the ids it returned, and
/// new e-mail subjects.
pub(super) struct Work {
    pub writes: Vec<ProblemWrite>,
    pub returned: Option<BTreeSet<String>>,
    pub subjects: Vec<SubjectWrite>,
}

#[derive(Default)]
pub(super) struct Persisted {
    pub stored: Vec<(String, String)>,
    pub removed: Vec<String>,
    pub subjects: Vec<SubjectWrite>,
    pub written: usize,
    pub open_count: usize,
    pub error: Option<RecordError>,
}

/// Writes the changed problems, then (complete reconciliation only) removes the stored ones it
/// no longer returned, then sets new subjects on stored problems (never creating one), then
/// counts the open ones. Stops as soon as the generation moves.
pub(super) async fn persist(
    store: Addr<StoreActor>,
    generation: Arc<AtomicU64>,
    started: u64,
    work: Work,
    now: i64,
) -> Persisted {
    let Work { writes, returned, subjects } = work;
    let mut done = Persisted::default();
    let current = || generation.load(Ordering::SeqCst) == started;
    for write in writes {
        if !current() {
            return done;
        }
        let upsert = UpsertByKey {
            collection: PROBLEMS,
            key_field: "problemId",
            key_value: write.problem_id.clone(),
            body: write.body,
        };
        match store.send(upsert).await.map_err(|_| RecordError::Unavailable).and_then(|r| r) {
            Ok(_) => {
                done.written += 1;
                done.stored.push((write.problem_id, write.hash));
            }
            Err(e) => done.error = Some(e),
        }
    }
    if let Some(returned) = returned {
        match stored_problems(&store).await {
            Ok(stored) => {
                for id in dropped_by_reconcile(&stored, &returned, now) {
                    if !current() {
                        return done;
                    }
                    let filter =
                        Expr::Cmp { field: "problemId".into(), op: CmpOp::Eq, value: Literal::Str(id.clone()) };
                    match store.send(DeleteWhere { collection: PROBLEMS, filter, limit: 1 }).await {
                        Ok(Ok(_)) => done.removed.push(id),
                        Ok(Err(e)) => done.error = Some(e),
                        Err(_) => done.error = Some(RecordError::Unavailable),
                    }
                }
            }
            Err(e) => done.error = Some(e),
        }
    }
    for write in subjects {
        if !current() {
            return done;
        }
        let update = UpdateByKey {
            collection: PROBLEMS,
            key_field: "problemId",
            key_value: write.problem_id.clone(),
            body: write.body(),
        };
        match store.send(update).await.map_err(|_| RecordError::Unavailable).and_then(|r| r) {
            Ok(Some(_)) => done.subjects.push(write),
            Ok(None) => {}
            Err(e) => done.error = Some(e),
        }
    }
    let open = ListRecords {
        collection: PROBLEMS.into(),
        params: RawListParams {
            per_page: Some("1".into()),
            filter: Some("status='OPEN'".into()),
            ..Default::default()
        },
    };
    if let Ok(Ok(page)) = store.send(open).await {
        done.open_count = page.total_items.max(0) as usize;
    }
    done
}

/// Every stored problem's id and start time (pages of 500).
async fn stored_problems(store: &Addr<StoreActor>) -> Result<Vec<(String, i64)>, RecordError> {
    let mut out = Vec::new();
    for page in 1..=1_000u32 {
        let list = ListRecords {
            collection: PROBLEMS.into(),
            params: RawListParams {
                page: Some(page.to_string()),
                per_page: Some("500".into()),
                sort: Some("id".into()),
                skip_total: Some("1".into()),
                ..Default::default()
            },
        };
        let items = store.send(list).await.map_err(|_| RecordError::Unavailable)??.items;
        let count = items.len();
        out.extend(items.iter().filter_map(|r| {
            let id = r["problemId"].as_str()?.to_string();
            let start = domain::time::parse_datetime(r["startTime"].as_str()?).ok()?;
            Some((id, start))
        }));
        if count < 500 {
            break;
        }
    }
    Ok(out)
}
