//! Group commit of the record API's writes. `StoreActor` queues each create, update and delete
//! and keeps at most one batch at the writer thread: when the writer is idle a write goes at
//! once (a batch of one, no added wait), and writes that arrive while it works go together in
//! the next batch (at most [`MAX_GROUP`]). The writer validates each write, applies the valid
//! ones in one transaction with a savepoint each (`infra::store::RecordStore::write_batch`),
//! publishes the committed ones to realtime in order and answers each write separately, so a
//! client sees exactly what it would see alone: its record, or its own error.

use actix::prelude::*;
use serde_json::Value;
use tokio::sync::oneshot;

use domain::collections::WriteOp;
use domain::record::{Action, RecordError};
use domain::validation::{validate_write, WriteMode};
use infra::store::{BatchedChange, BatchedWrite};

use super::executor::{client_writable, StoreExecutor};
use super::{StoreActor, NAME};

/// The most writes one transaction carries; more wait for the next one.
pub const MAX_GROUP: usize = 64;

/// One record-API write as the client sent it (not yet validated).
#[derive(Debug, Clone)]
pub enum RecordWrite {
    Create { collection: String, body: Value },
    Update { collection: String, id: String, body: Value },
    Delete { collection: String, id: String },
}

/// The writes the writer applies together; the reply holds each one's outcome, in order.
#[derive(Debug, Message)]
#[rtype(result = "Vec<Result<Value, RecordError>>")]
pub struct WriteBatch(pub Vec<RecordWrite>);

type Reply = oneshot::Sender<Result<Value, RecordError>>;

/// Writes waiting for the writer, and whether a batch is there now.
#[derive(Default)]
pub(super) struct WriteQueue {
    waiting: Vec<(RecordWrite, Reply)>,
    batch_at_writer: bool,
}

impl WriteQueue {
    /// Forgets every waiting write (their clients get `Unavailable`); after a restart.
    pub(super) fn clear(&mut self) {
        self.waiting.clear();
        self.batch_at_writer = false;
    }

    pub(super) fn len(&self) -> usize {
        self.waiting.len()
    }

    /// No write waits and no batch is at the writer.
    pub(super) fn is_idle(&self) -> bool {
        self.waiting.is_empty() && !self.batch_at_writer
    }
}

impl StoreActor {
    /// Queues `write` and answers with its outcome once its batch has committed (or failed).
    pub(super) fn enqueue(
        &mut self,
        write: RecordWrite,
        ctx: &mut Context<Self>,
    ) -> ResponseFuture<Result<Value, RecordError>> {
        let (reply, outcome) = oneshot::channel();
        self.writes.waiting.push((write, reply));
        if !self.writes.batch_at_writer {
            self.send_batch(ctx);
        }
        Box::pin(async move { outcome.await.unwrap_or(Err(RecordError::Unavailable)) })
    }

    fn send_batch(&mut self, ctx: &mut Context<Self>) {
        let take = self.writes.waiting.len().min(MAX_GROUP);
        if take == 0 {
            return;
        }
        let (writes, replies): (Vec<RecordWrite>, Vec<Reply>) = self.writes.waiting.drain(..take).unzip();
        self.writes.batch_at_writer = true;
        self.merge.note_write();
        self.in_flight += replies.len();
        let sent = self.writer.send(WriteBatch(writes));
        ctx.spawn(sent.into_actor(self).map(move |result, act, ctx| {
            act.in_flight -= replies.len();
            act.writes.batch_at_writer = false;
            let outcomes = result.unwrap_or_else(|_| {
                act.subsystem.report_failure(NAME, "store executor mailbox closed");
                vec![Err(RecordError::Unavailable); replies.len()]
            });
            for (reply, outcome) in replies.into_iter().zip(outcomes) {
                // A client that went away no longer waits for its answer.
                let _ = reply.send(outcome);
            }
            act.send_batch(ctx);
        }));
    }
}

/// The write's collection, validated body and realtime action, or why it is refused.
fn prepare(write: RecordWrite, now_ms: i64) -> Result<(BatchedWrite, Action), RecordError> {
    let (spec, change, action) = match write {
        RecordWrite::Create { collection, body } => {
            let spec = client_writable(&collection, WriteOp::Create)?;
            (spec, BatchedChange::Create(validate_write(spec, &body, WriteMode::Create)?), Action::Create)
        }
        RecordWrite::Update { collection, id, body } => {
            let spec = client_writable(&collection, WriteOp::Update)?;
            let write = validate_write(spec, &body, WriteMode::Update)?;
            (spec, BatchedChange::Update { id, write }, Action::Update)
        }
        RecordWrite::Delete { collection, id } => {
            (client_writable(&collection, WriteOp::Delete)?, BatchedChange::Delete { id }, Action::Delete)
        }
    };
    Ok((BatchedWrite { spec, change, now_ms }, action))
}

impl Handler<WriteBatch> for StoreExecutor {
    type Result = MessageResult<WriteBatch>;

    fn handle(&mut self, WriteBatch(writes): WriteBatch, _: &mut SyncContext<Self>) -> Self::Result {
        let mut outcomes: Vec<Result<Value, RecordError>> = Vec::with_capacity(writes.len());
        // The valid writes, and for each its slot in `outcomes` and its realtime action.
        let (mut batch, mut placed) = (Vec::new(), Vec::new());
        for (slot, write) in writes.into_iter().enumerate() {
            match prepare(write, self.subsystem.now_ms()) {
                Ok((write, action)) => {
                    batch.push(write);
                    placed.push((slot, action));
                    outcomes.push(Err(RecordError::Internal));
                }
                Err(refused) => outcomes.push(Err(refused)),
            }
        }
        if batch.is_empty() {
            return MessageResult(outcomes);
        }
        match self.run(|s| s.store.write_batch(&batch)) {
            Ok(applied) => {
                for ((write, (slot, action)), outcome) in batch.iter().zip(placed).zip(applied) {
                    if let Ok(record) = &outcome {
                        self.publish(write.spec, action, record);
                    }
                    outcomes[slot] = outcome;
                }
            }
            Err(failed) => placed.iter().for_each(|(slot, _)| outcomes[*slot] = Err(failed.clone())),
        }
        MessageResult(outcomes)
    }
}
