//! The store subsystem. `StoreExecutor` runs on SyncArbiter threads over the r2d2 pool: two or
//! more reader threads and exactly one writer thread, so SQLite never sees competing writers.
//! The executor validates writes against the collection descriptors, performs them and, from
//! the single writer thread, publishes each committed change to realtime in commit order.
//! `StoreActor` is the supervised front door: it routes messages to readers or the writer, groups
//! the record API's writes into one transaction each time the writer is busy (`group_commit`),
//! and tracks how many requests are in flight (its queue depth on the health dashboard). Its
//! timers merge the search indexes when writes are quiet (`search_merge`, on the writer) and
//! checkpoint the WAL (`checkpoint`, on a maintenance thread of its own). It also answers
//! `DatabaseSize` from a reader thread, so the web layer never touches database files.

mod checkpoint;
mod executor;
mod group_commit;
mod offline;
mod search_merge;

use actix::prelude::*;
use serde_json::Value;

use domain::filter::Expr;
use domain::record::{ListPage, RawListParams, RecordError};
use domain::search_merge::MergePolicy;

use crate::kit::{Subsystem, SubsystemCtx};
pub use checkpoint::{Checkpoint, CHECKPOINT_TICK};
pub use executor::StoreExecutor;
pub use group_commit::{RecordWrite, WriteBatch, MAX_GROUP};
pub use infra::store::{PageIds, RenderedBatch};
pub use offline::{ReplayOfflineChanges, SyncServers, SyncWritten};
pub use search_merge::{MergeSearchIndexes, MergeStep};

pub const NAME: &str = "store";

/// One whole list page, parsed and rendered in one step by a reader (server-internal callers;
/// the record API streams pages through [`ListRecordIds`] and [`RenderRecords`]).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<ListPage, RecordError>")]
pub struct ListRecords {
    pub collection: String,
    pub params: RawListParams,
}

/// The record API's list, first step (a reader): the page's ids in order and its counts
/// (`infra::store::RecordStore::list_ids`); the records follow in [`RenderRecords`] batches.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<PageIds, RecordError>")]
pub struct ListRecordIds {
    pub collection: String,
    pub params: RawListParams,
}

/// The record API's list, next steps (a reader): the records `ids[from..]` rendered until the
/// text reaches `max_bytes` (`infra::store::RecordStore::render_batch`; deleted ones skipped).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<RenderedBatch, RecordError>")]
pub struct RenderRecords {
    pub collection: String,
    pub ids: std::sync::Arc<[String]>,
    pub from: usize,
    pub max_bytes: usize,
}

/// The record API's view: one record by id (a reader).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Value, RecordError>")]
pub struct GetRecord {
    pub collection: String,
    pub id: String,
}

/// The record API's create: validated, then written in the writer's next group commit and published.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Value, RecordError>")]
pub struct CreateRecord {
    pub collection: String,
    pub body: Value,
}

/// The record API's update: a partial body merged over the stored record (the writer), then published.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Value, RecordError>")]
pub struct UpdateRecord {
    pub collection: String,
    pub id: String,
    pub body: Value,
}

/// The record API's delete: one record by id (the writer), then published as a deletion.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<(), RecordError>")]
pub struct DeleteRecord {
    pub collection: String,
    pub id: String,
}

/// Server-internal bulk delete (presence pruning, retention). Not reachable from HTTP.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<usize, RecordError>")]
pub struct DeleteWhere {
    pub collection: &'static str,
    pub filter: Expr,
    pub limit: u32,
}

/// Operational retention of one collection (server-internal, run by the backup actor only
/// behind the verified-backup gate): every step in one write transaction; returns how many
/// records were deleted (each published as a deletion).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<usize, RecordError>")]
pub struct ApplyRetention {
    pub plan: domain::retention::RetentionPlan,
    pub now_ms: i64,
}

/// Creates or updates the record whose `key_field` equals `key_value` (server-internal).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Value, RecordError>")]
pub struct UpsertByKey {
    pub collection: &'static str,
    pub key_field: &'static str,
    pub key_value: String,
    pub body: Value,
}

/// Updates the record whose `key_field` equals `key_value`; `None` when there is none (nothing is
/// created; server-internal).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Option<Value>, RecordError>")]
pub struct UpdateByKey {
    pub collection: &'static str,
    pub key_field: &'static str,
    pub key_value: String,
    pub body: Value,
}

/// Data Manager import: preview (`apply: false`) or apply all-or-nothing. The records stay JSON
/// text until planning parses them one at a time.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<domain::import::ImportReport, RecordError>")]
pub struct ImportRecords {
    pub collection: String,
    pub records: infra::import_body::RawRecords,
    pub apply: bool,
}

/// Server-internal: bytes the database occupies, for `GET /api/relay/health` and
/// `GET /api/relay/metrics`. Answered by a reader thread.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<infra::db::DatabaseSize, RecordError>")]
pub struct DatabaseSize;

/// Imports that change more records than this publish one `reload` event instead of one event
/// per record, so subscribers' bounded buffers are not flooded.
pub const MAX_PER_RECORD_IMPORT_EVENTS: usize = 100;

pub struct StoreActor {
    readers: Addr<StoreExecutor>,
    writer: Addr<StoreExecutor>,
    /// The checkpointer's thread (`checkpoint`).
    maintenance: Addr<StoreExecutor>,
    checkpoint_outstanding: bool,
    subsystem: SubsystemCtx,
    in_flight: usize,
    /// Server-internal writes (not grouped) at the writer now.
    writer_in_flight: usize,
    writes: group_commit::WriteQueue,
    merge_policy: MergePolicy,
    merge: search_merge::MergeState,
}

impl StoreActor {
    pub fn new(
        subsystem: SubsystemCtx,
        readers: Addr<StoreExecutor>,
        writer: Addr<StoreExecutor>,
        maintenance: Addr<StoreExecutor>,
        merge_policy: MergePolicy,
    ) -> StoreActor {
        StoreActor {
            readers,
            writer,
            maintenance,
            checkpoint_outstanding: false,
            subsystem,
            in_flight: 0,
            writer_in_flight: 0,
            writes: Default::default(),
            merge_policy,
            merge: Default::default(),
        }
    }

    fn forward<M, T, E>(&mut self, to_writer: bool, msg: M) -> ResponseActFuture<Self, Result<T, E>>
    where
        M: Message<Result = Result<T, E>> + Send + 'static,
        T: Send + 'static,
        E: From<RecordError> + Send + 'static,
        StoreExecutor: Handler<M>,
    {
        self.in_flight += 1;
        if to_writer {
            self.writer_in_flight += 1;
            self.merge.note_write();
        }
        let target = if to_writer { &self.writer } else { &self.readers };
        let request = target.send(msg);
        Box::pin(request.into_actor(self).map(move |result, act, _| {
            act.in_flight -= 1;
            if to_writer {
                act.writer_in_flight -= 1;
            }
            result.unwrap_or_else(|_| {
                act.subsystem.report_failure(NAME, "store executor mailbox closed");
                Err(RecordError::Unavailable.into())
            })
        }))
    }
}

impl Subsystem for StoreActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn queue_depth(&self) -> usize {
        self.in_flight + self.writes.len()
    }
    fn reset(&mut self) {
        self.in_flight = 0;
        self.writer_in_flight = 0;
        self.writes.clear();
        self.merge = Default::default();
        self.checkpoint_outstanding = false;
    }
    fn on_start(&mut self, ctx: &mut Context<Self>) {
        ctx.run_interval(self.merge_policy.tick, |act, ctx| act.merge_tick(ctx));
        ctx.run_interval(CHECKPOINT_TICK, |act, ctx| act.checkpoint_tick(ctx));
    }
}

crate::subsystem_actor!(StoreActor);

macro_rules! route {
    ($msg:ty, $ok:ty, $to_writer:expr) => {
        route!($msg, $ok, RecordError, $to_writer);
    };
    ($msg:ty, $ok:ty, $err:ty, $to_writer:expr) => {
        impl Handler<$msg> for StoreActor {
            type Result = ResponseActFuture<Self, Result<$ok, $err>>;
            fn handle(&mut self, msg: $msg, _: &mut Context<Self>) -> Self::Result {
                self.forward($to_writer, msg)
            }
        }
    };
}

route!(ListRecords, ListPage, false);
route!(ListRecordIds, PageIds, false);
route!(RenderRecords, RenderedBatch, false);
route!(GetRecord, Value, false);

impl Handler<CreateRecord> for StoreActor {
    type Result = ResponseFuture<Result<Value, RecordError>>;
    fn handle(&mut self, CreateRecord { collection, body }: CreateRecord, ctx: &mut Context<Self>) -> Self::Result {
        self.enqueue(RecordWrite::Create { collection, body }, ctx)
    }
}

impl Handler<UpdateRecord> for StoreActor {
    type Result = ResponseFuture<Result<Value, RecordError>>;
    fn handle(&mut self, UpdateRecord { collection, id, body }: UpdateRecord, ctx: &mut Context<Self>) -> Self::Result {
        self.enqueue(RecordWrite::Update { collection, id, body }, ctx)
    }
}

impl Handler<DeleteRecord> for StoreActor {
    type Result = ResponseFuture<Result<(), RecordError>>;
    fn handle(&mut self, DeleteRecord { collection, id }: DeleteRecord, ctx: &mut Context<Self>) -> Self::Result {
        let deleted = self.enqueue(RecordWrite::Delete { collection, id }, ctx);
        Box::pin(async move { deleted.await.map(|_| ()) })
    }
}

route!(DeleteWhere, usize, true);
route!(ApplyRetention, usize, true);
route!(UpsertByKey, Value, true);
route!(UpdateByKey, Option<Value>, true);
route!(ImportRecords, domain::import::ImportReport, true);
route!(DatabaseSize, infra::db::DatabaseSize, false);
route!(ReplayOfflineChanges, Vec<Result<(), domain::offline::replay::ReplayError>>, true);
route!(SyncServers, Vec<SyncWritten>, domain::offline::servers_sync::SyncError, true);

#[cfg(test)]
pub(crate) mod tests;
