//! The wiki actor: owns the Wiki's upload pipeline, its search index and its sweeps. Uploads
//! are opened, published and cancelled by the typed `wiki.*` privileged commands, whose
//! handlers are [`ops`] (run by the privileged pipeline, their after-commit work returned as
//! data); this actor stores their chunks (checked before storage, see
//! [`pipeline`]), feeds server-local source files, assembles, verifies and extracts a complete
//! upload, indexes a published document's passages for search, answers searches, and every ten
//! minutes expires batches past their seven days, removes staging no live upload owns and
//! indexes again any document left `pending` for more than five minutes.
//! Pipeline work runs on a blocking thread holding one permit ([`BoundedWork`]), so at most one
//! upload is assembled or extracted at a time and a busy pipeline answers "busy" at once.
//! Search failures are isolated: a failed index leaves the document readable with its state
//! `failed`, and a failed search never touches publishing.

mod error;
pub mod ops;
pub mod pipeline;
pub mod publish_ops;
mod search;
pub mod upload_ops;
mod worker_extractor;

pub use error::{CommandError, WikiError};
pub use ops::{AfterCommit, Caller, Done, WikiHooks};
pub use pipeline::{Extracted, IncomingChunk, PdfExtractor, Pipeline, Sender, UploadProgress};
pub use search::{SearchHit, SearchRequest};
pub use worker_extractor::WorkerExtractor;

use std::path::PathBuf;
use std::time::Duration;

use actix::prelude::*;

use crate::kit::{BoundedWork, Subsystem, SubsystemCtx, WorkRefused};
use crate::realtime::Publish;

pub const NAME: &str = "wiki";
/// How often batches past their expiry are expired and orphaned staging removed.
const SWEEP_INTERVAL: Duration = Duration::from_secs(600);

/// A chunk sent for an upload (the chunk route; the server-local feeder uses [`FeedUpload`]).
#[derive(Message)]
#[rtype(result = "Result<UploadProgress, WikiError>")]
pub struct StoreChunk {
    pub sender: Sender,
    pub chunk: IncomingChunk,
}

/// `relay wiki upload` (control socket) and the desktop's server-mode picker: feed a PDF on the
/// server PC (an absolute path the trusted process chose) into its upload.
#[derive(Message)]
#[rtype(result = "Result<UploadProgress, WikiError>")]
pub struct FeedUpload {
    pub sender: Sender,
    pub upload_id: String,
    pub path: PathBuf,
}

/// After `wiki.publish` / `wiki.replace` committed: index the document's passages from the
/// upload's extracted pages, then remove the upload's staging.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
#[rtype(result = "()")]
pub struct IndexDocument {
    pub document_id: String,
    pub upload_id: String,
}

/// `GET /api/relay/wiki/search`: passages of active documents for a query.
#[derive(Message)]
#[rtype(result = "Result<Vec<SearchHit>, WikiError>")]
pub struct SearchWiki(pub SearchRequest);

/// `GET /api/relay/wiki/documents/{id}/pdf`: an active document's PDF, opened for streaming.
#[derive(Message)]
#[rtype(result = "Result<OpenedPdf, WikiError>")]
pub struct OpenDocument {
    pub document_id: String,
}

/// `GET /api/relay/wiki/documents/{id}/cover`: an active document's cover PNG.
#[derive(Message)]
#[rtype(result = "Result<Vec<u8>, WikiError>")]
pub struct ReadCover {
    pub document_id: String,
}

/// An opened library PDF and what the download route tells the reader about it.
#[derive(Debug)]
pub struct OpenedPdf {
    pub file: std::fs::File,
    pub size: u64,
    pub checksum: String,
    pub file_name: String,
}

/// The actor's own timer and tests: expire batches, remove orphaned staging, and index again
/// documents left `pending` past the grace period (their records are published as updates).
#[derive(Message)]
#[rtype(result = "Result<usize, WikiError>")]
pub struct SweepUploads;

pub struct WikiActor {
    subsystem: SubsystemCtx,
    pipeline: Pipeline,
    publisher: Option<Recipient<Publish>>,
    /// One pipeline job at a time; a few admitted.
    work: BoundedWork,
}

impl WikiActor {
    pub fn new(subsystem: SubsystemCtx, pipeline: Pipeline, publisher: Option<Recipient<Publish>>) -> WikiActor {
        WikiActor { subsystem, pipeline, publisher, work: BoundedWork::new(4) }
    }

    fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce(&Pipeline) -> Result<T, WikiError> + Send + 'static,
    ) -> ResponseFuture<Result<T, WikiError>> {
        let pipeline = self.pipeline.clone();
        let run = self.work.run(move || job(&pipeline));
        let subsystem = self.subsystem.clone();
        Box::pin(async move {
            run.await.unwrap_or_else(|refused| match refused {
                WorkRefused::Busy => Err(WikiError::Busy),
                WorkRefused::Closed => Err(WikiError::Unavailable),
                WorkRefused::Panicked => {
                    tracing::error!("wiki job panicked");
                    subsystem.report_failure(NAME, "wiki job panicked");
                    Err(WikiError::Internal)
                }
            })
        })
    }
}

impl Subsystem for WikiActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn queue_depth(&self) -> usize {
        self.work.admitted()
    }
    fn on_start(&mut self, ctx: &mut Context<Self>) {
        ctx.notify(SweepUploads);
        ctx.run_interval(SWEEP_INTERVAL, |_, ctx| ctx.notify(SweepUploads));
    }
}

crate::subsystem_actor!(WikiActor);

/// Tells realtime subscribers that a document's record changed (its search state).
fn publish_update(publisher: Option<&Recipient<Publish>>, record: serde_json::Value) {
    if let Some(p) = publisher {
        let collection = domain::collections::WIKI_DOCUMENTS.name;
        let action = domain::record::Action::Update;
        p.do_send(Publish { collection, action, record: std::sync::Arc::new(record) });
    }
}

/// Starts the supervised wiki actor.
pub fn start(ctx: &SubsystemCtx, pipeline: Pipeline, publisher: Option<Recipient<Publish>>) -> Addr<WikiActor> {
    let ctx = ctx.clone();
    crate::kit::start_supervised(move |_| WikiActor::new(ctx, pipeline, publisher))
}

impl Handler<StoreChunk> for WikiActor {
    type Result = ResponseFuture<Result<UploadProgress, WikiError>>;
    fn handle(&mut self, msg: StoreChunk, _: &mut Context<Self>) -> Self::Result {
        self.run(move |p| p.store_chunk(&msg.sender, &msg.chunk))
    }
}

impl Handler<FeedUpload> for WikiActor {
    type Result = ResponseFuture<Result<UploadProgress, WikiError>>;
    fn handle(&mut self, msg: FeedUpload, _: &mut Context<Self>) -> Self::Result {
        self.run(move |p| p.feed_file(&msg.sender, &msg.upload_id, &msg.path))
    }
}

impl Handler<IndexDocument> for WikiActor {
    type Result = ResponseFuture<()>;
    fn handle(&mut self, msg: IndexDocument, _: &mut Context<Self>) -> Self::Result {
        let publisher = self.publisher.clone();
        let pipeline = self.pipeline.clone();
        Box::pin(async move {
            let indexed = tokio::task::spawn_blocking(move || search::index_document(&pipeline, &msg)).await;
            match indexed {
                Ok(Some(record)) => publish_update(publisher.as_ref(), record),
                Ok(None) => {}
                Err(_) => tracing::error!("wiki indexing panicked"),
            }
        })
    }
}

impl Handler<SearchWiki> for WikiActor {
    type Result = ResponseFuture<Result<Vec<SearchHit>, WikiError>>;
    fn handle(&mut self, msg: SearchWiki, _: &mut Context<Self>) -> Self::Result {
        // Searches read only; they do not wait for the pipeline's permit.
        let pipeline = self.pipeline.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || search::search(&pipeline, &msg.0))
                .await
                .map_err(|_| WikiError::Internal)?
        })
    }
}

impl Handler<OpenDocument> for WikiActor {
    type Result = ResponseFuture<Result<OpenedPdf, WikiError>>;
    fn handle(&mut self, msg: OpenDocument, _: &mut Context<Self>) -> Self::Result {
        let pipeline = self.pipeline.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || pipeline.open_document(&msg.document_id))
                .await
                .map_err(|_| WikiError::Internal)?
        })
    }
}

impl Handler<ReadCover> for WikiActor {
    type Result = ResponseFuture<Result<Vec<u8>, WikiError>>;
    fn handle(&mut self, msg: ReadCover, _: &mut Context<Self>) -> Self::Result {
        let pipeline = self.pipeline.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || pipeline.read_cover(&msg.document_id))
                .await
                .map_err(|_| WikiError::Internal)?
        })
    }
}

impl Handler<SweepUploads> for WikiActor {
    type Result = ResponseFuture<Result<usize, WikiError>>;
    fn handle(&mut self, _: SweepUploads, _: &mut Context<Self>) -> Self::Result {
        let swept = self.run(|p| Ok((p.sweep()?, search::reindex_stale_pending(p)?)));
        let publisher = self.publisher.clone();
        Box::pin(async move {
            let (removed, reindexed) = swept.await?;
            for record in reindexed {
                publish_update(publisher.as_ref(), record);
            }
            Ok(removed)
        })
    }
}

#[cfg(test)]
mod tests;
