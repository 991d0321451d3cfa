//! The production [`PdfExtractor`]: the Relay executable re-run in its hidden Wiki extraction
//! mode (`infra::wiki::worker`), one worker process per PDF with its address-space, CPU, file
//! and deadline limits, its output directory created fresh under the staging folder and removed
//! here once the cover has been read. The worker's stable error codes become the upload's safe
//! error text; outline entries that point at no page are dropped (they cannot head a passage).

use std::path::{Path, PathBuf};
use std::time::Duration;

use domain::wiki::limits::MAX_COVER_PNG_BYTES;
use domain::wiki::OutlineEntry;
use infra::wiki::worker::{extract_in_worker, EXTRACT_DEADLINE, WORKER_ARG};
use infra::worker::WorkerCommand;

use super::pipeline::{Extracted, PdfExtractor};

/// Extraction in a worker process.
#[derive(Debug, Clone)]
pub struct WorkerExtractor {
    command: WorkerCommand,
    out_root: PathBuf,
    deadline: Duration,
}

impl WorkerExtractor {
    /// This executable's worker mode, writing under `out_root` (on the data filesystem).
    pub fn current_exe(out_root: PathBuf) -> std::io::Result<WorkerExtractor> {
        Ok(WorkerExtractor {
            command: WorkerCommand::current_exe(&[WORKER_ARG])?,
            out_root,
            deadline: EXTRACT_DEADLINE,
        })
    }

    /// A given worker command and deadline (tests).
    pub fn new(command: WorkerCommand, out_root: PathBuf, deadline: Duration) -> WorkerExtractor {
        WorkerExtractor { command, out_root, deadline }
    }
}

impl PdfExtractor for WorkerExtractor {
    fn extract(&self, pdf: &Path) -> Result<Extracted, &'static str> {
        if let Err(e) = infra::datadir::ensure_private_dir(&self.out_root) {
            tracing::warn!(error = %e, "no folder for Wiki extraction");
            return Err("extraction-unavailable");
        }
        let output = extract_in_worker(&self.command, pdf, &self.out_root, self.deadline).map_err(|e| e.code())?;
        let cover_png = match &output.cover {
            Ok(path) => std::fs::read(path).ok().filter(|png| png.len() as u64 <= MAX_COVER_PNG_BYTES),
            Err(e) => {
                tracing::info!(reason = ?e, "no cover for a Wiki upload");
                None
            }
        };
        if let Err(e) = std::fs::remove_dir_all(&output.output_dir) {
            tracing::warn!(error = %e, "a Wiki extraction folder was not removed");
        }
        let outline = output
            .pdf
            .outline
            .iter()
            .filter_map(|node| {
                Some(OutlineEntry { title: node.title.clone(), page_index: node.page_index?, depth: node.depth })
            })
            .collect();
        Ok(Extracted { page_count: output.pdf.page_count, pages: output.pdf.pages, outline, cover_png })
    }
}
