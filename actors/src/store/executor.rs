//! The synchronous store executor: one instance per SyncArbiter thread, each holding a clone of
//! the record store. Every operation runs under `catch_unwind` so a panic becomes an internal
//! error plus a health report instead of a dead thread. The writer instance publishes each
//! committed change to the realtime actor. Record-API writes (create, update, delete; applied in
//! groups by `group_commit`) to a server-owned collection are refused here, below every HTTP
//! surface.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use actix::prelude::*;
use serde_json::Value;

use domain::collections::{collection, CollectionSpec, WriteOp};
use domain::import::{plan_import_each, ImportReport};
use domain::record::{Action, ListPage, ListQuery, RecordError};
use domain::validation::{validate_write, WriteMode};
use infra::store::{PageIds, RecordStore, RenderedBatch};

use super::{
    ApplyRetention, DatabaseSize, DeleteWhere, GetRecord, ImportRecords, ListRecordIds, ListRecords, RenderRecords,
    UpdateByKey, UpsertByKey, MAX_PER_RECORD_IMPORT_EVENTS, NAME,
};
use crate::kit::{panic_message, SubsystemCtx};
use crate::realtime::Publish;

pub struct StoreExecutor {
    pub(super) store: RecordStore,
    pub(super) subsystem: SubsystemCtx,
    publisher: Option<Recipient<Publish>>,
}

impl StoreExecutor {
    pub fn new(subsystem: SubsystemCtx, store: RecordStore, publisher: Option<Recipient<Publish>>) -> StoreExecutor {
        StoreExecutor { store, subsystem, publisher }
    }

    pub(super) fn run<T>(&self, op: impl FnOnce(&Self) -> Result<T, RecordError>) -> Result<T, RecordError> {
        match catch_unwind(AssertUnwindSafe(|| op(self))) {
            Ok(Err(RecordError::Internal)) => {
                self.subsystem.report_failure(NAME, "internal store error (see log)");
                Err(RecordError::Internal)
            }
            Ok(result) => result,
            Err(payload) => {
                let message = panic_message(payload.as_ref());
                tracing::error!(error = %message, "store operation panicked");
                self.subsystem.report_failure(NAME, format!("panic: {message}"));
                Err(RecordError::Internal)
            }
        }
    }

    pub(super) fn publish(&self, spec: &'static CollectionSpec, action: Action, record: &Value) {
        if let Some(p) = &self.publisher {
            p.do_send(Publish { collection: spec.name, action, record: Arc::new(record.clone()) });
        }
    }
}

fn spec_for(name: &str) -> Result<&'static CollectionSpec, RecordError> {
    collection(name).ok_or(RecordError::UnknownCollection)
}

/// The collection for a write that arrived through the record API: an operation the
/// collection's write rule does not permit (every write to a server-owned collection, written
/// only by its actor through the server-internal messages; a delete of an addressed state; an
/// edit of an append-only note) answers 403.
pub(super) fn client_writable(name: &str, op: WriteOp) -> Result<&'static CollectionSpec, RecordError> {
    let spec = spec_for(name)?;
    if spec.writes.permits(op) {
        Ok(spec)
    } else {
        Err(RecordError::Forbidden)
    }
}

impl Actor for StoreExecutor {
    type Context = SyncContext<Self>;
}

impl Handler<ListRecords> for StoreExecutor {
    type Result = Result<ListPage, RecordError>;
    fn handle(&mut self, msg: ListRecords, _: &mut SyncContext<Self>) -> Self::Result {
        self.run(|s| {
            let spec = spec_for(&msg.collection)?;
            s.store.list(spec, &ListQuery::parse(spec, &msg.params)?)
        })
    }
}

impl Handler<ListRecordIds> for StoreExecutor {
    type Result = Result<PageIds, RecordError>;
    fn handle(&mut self, msg: ListRecordIds, _: &mut SyncContext<Self>) -> Self::Result {
        self.run(|s| {
            let spec = spec_for(&msg.collection)?;
            s.store.list_ids(spec, &ListQuery::parse(spec, &msg.params)?)
        })
    }
}

impl Handler<RenderRecords> for StoreExecutor {
    type Result = Result<RenderedBatch, RecordError>;
    fn handle(&mut self, msg: RenderRecords, _: &mut SyncContext<Self>) -> Self::Result {
        self.run(|s| s.store.render_batch(spec_for(&msg.collection)?, &msg.ids, msg.from, msg.max_bytes))
    }
}

impl Handler<GetRecord> for StoreExecutor {
    type Result = Result<Value, RecordError>;
    fn handle(&mut self, msg: GetRecord, _: &mut SyncContext<Self>) -> Self::Result {
        self.run(|s| s.store.get(spec_for(&msg.collection)?, &msg.id))
    }
}

impl Handler<DeleteWhere> for StoreExecutor {
    type Result = Result<usize, RecordError>;
    fn handle(&mut self, msg: DeleteWhere, _: &mut SyncContext<Self>) -> Self::Result {
        self.run(|s| {
            let spec = spec_for(msg.collection)?;
            let deleted = s.store.delete_where(spec, &msg.filter, msg.limit)?;
            for record in &deleted {
                s.publish(spec, Action::Delete, record);
            }
            Ok(deleted.len())
        })
    }
}

impl Handler<ApplyRetention> for StoreExecutor {
    type Result = Result<usize, RecordError>;
    fn handle(&mut self, msg: ApplyRetention, _: &mut SyncContext<Self>) -> Self::Result {
        self.run(|s| {
            let spec = spec_for(msg.plan.collection)?;
            let deleted = s.store.apply_retention(spec, msg.plan.steps, msg.now_ms)?;
            for record in &deleted {
                s.publish(spec, Action::Delete, record);
            }
            Ok(deleted.len())
        })
    }
}

impl Handler<UpsertByKey> for StoreExecutor {
    type Result = Result<Value, RecordError>;
    fn handle(&mut self, msg: UpsertByKey, _: &mut SyncContext<Self>) -> Self::Result {
        self.run(|s| {
            let spec = spec_for(msg.collection)?;
            let now = s.subsystem.now_ms();
            let (record, action) = match s.store.find_id_by(spec, msg.key_field, &msg.key_value)? {
                Some(id) => {
                    let write = validate_write(spec, &msg.body, WriteMode::Update)?;
                    (s.store.update(spec, &id, &write, now)?, Action::Update)
                }
                None => {
                    let write = validate_write(spec, &msg.body, WriteMode::Create)?;
                    (s.store.create(spec, &write, now)?, Action::Create)
                }
            };
            s.publish(spec, action, &record);
            Ok(record)
        })
    }
}

impl Handler<UpdateByKey> for StoreExecutor {
    type Result = Result<Option<Value>, RecordError>;
    fn handle(&mut self, msg: UpdateByKey, _: &mut SyncContext<Self>) -> Self::Result {
        self.run(|s| {
            let spec = spec_for(msg.collection)?;
            let Some(id) = s.store.find_id_by(spec, msg.key_field, &msg.key_value)? else {
                return Ok(None);
            };
            let write = validate_write(spec, &msg.body, WriteMode::Update)?;
            let record = s.store.update(spec, &id, &write, s.subsystem.now_ms())?;
            s.publish(spec, Action::Update, &record);
            Ok(Some(record))
        })
    }
}

impl Handler<ImportRecords> for StoreExecutor {
    type Result = Result<ImportReport, RecordError>;
    fn handle(&mut self, msg: ImportRecords, _: &mut SyncContext<Self>) -> Self::Result {
        self.run(|s| {
            let plan = plan_import_each(&msg.collection, msg.records.values())?;
            let apply = msg.apply && plan.errors.is_empty();
            let outcome = s.store.import(&plan, apply, s.subsystem.now_ms())?;
            if apply {
                if outcome.written.len() <= MAX_PER_RECORD_IMPORT_EVENTS {
                    for (action, record) in &outcome.written {
                        s.publish(plan.spec, *action, record);
                    }
                } else {
                    s.publish(plan.spec, Action::Reload, &serde_json::json!({ "collectionName": plan.spec.name }));
                }
                tracing::info!(
                    collection = plan.spec.name,
                    creates = outcome.creates,
                    updates = outcome.updates,
                    "import applied"
                );
            }
            Ok(ImportReport {
                collection: plan.spec.name,
                total: msg.records.len(),
                creates: outcome.creates,
                updates: outcome.updates,
                applied: apply,
                errors: plan.errors,
            })
        })
    }
}

impl Handler<DatabaseSize> for StoreExecutor {
    type Result = Result<infra::db::DatabaseSize, RecordError>;
    fn handle(&mut self, _: DatabaseSize, _: &mut SyncContext<Self>) -> Self::Result {
        self.run(|s| s.store.database_size())
    }
}
