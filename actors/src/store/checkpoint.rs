//! The store's checkpointer. Connections checkpoint the WAL by themselves only as a backstop
//! (`infra::db::AUTOCHECKPOINT_BACKSTOP_PAGES`), so no commit stops to copy pages into the
//! database file while the writes behind it wait. Instead `StoreActor` sends [`Checkpoint`] every
//! [`CHECKPOINT_TICK`] to its maintenance thread (a `StoreExecutor` of its own, so neither the
//! writer nor a reader is taken), which runs a PASSIVE checkpoint: it copies what the readers
//! allow, never blocks the writer, and costs microseconds when there is nothing to copy. At most
//! one is outstanding.

use std::time::Duration;

use actix::prelude::*;

use domain::record::RecordError;

use super::executor::StoreExecutor;
use super::StoreActor;

/// How often the WAL is checkpointed.
pub const CHECKPOINT_TICK: Duration = Duration::from_millis(250);

/// One PASSIVE checkpoint (maintenance thread).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<infra::db::Checkpointed, RecordError>")]
pub struct Checkpoint;

impl StoreActor {
    pub(super) fn checkpoint_tick(&mut self, ctx: &mut Context<Self>) {
        if self.checkpoint_outstanding {
            return;
        }
        self.checkpoint_outstanding = true;
        ctx.spawn(self.maintenance.send(Checkpoint).into_actor(self).map(|result, act, _| {
            act.checkpoint_outstanding = false;
            if let Ok(Ok(done)) = result {
                if done.log > 0 {
                    tracing::trace!(frames = done.checkpointed, of = done.log, "WAL checkpointed");
                }
            }
        }));
    }
}

impl Handler<Checkpoint> for StoreExecutor {
    type Result = Result<infra::db::Checkpointed, RecordError>;

    fn handle(&mut self, _: Checkpoint, _: &mut SyncContext<Self>) -> Self::Result {
        self.run(|s| s.store.checkpoint())
    }
}
