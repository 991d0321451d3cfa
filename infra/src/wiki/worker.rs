//! The Wiki extraction worker: both sides of running [`extract_pdf`] and [`render_cover`] in a
//! separate process on the shared worker channel ([`crate::worker`]). The parent
//! ([`extract_in_worker`]) creates a fresh private output directory, starts the Relay binary in
//! its hidden mode [`WORKER_ARG`] under the extraction limits ([`worker_spec`]: address space,
//! CPU time, file size, few files, no core dumps, no new privileges), sends the staged PDF's
//! path and the directory's, and at the deadline kills the worker's whole process group (the
//! renderer included); on any failure it removes the directory after the worker has exited.
//! The child ([`serve_child`]) reads only that one owner-only regular file, writes only into
//! that directory (the cover and, for large documents, `pages.json`) and answers with one line.
//! It never publishes, never touches the store and never logs document text.

use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use domain::wiki::limits::{EXTRACTION_WORKER_HEAP_BYTES, MAX_DOCUMENT_TEXT_UTF16, MAX_PAGES};

use super::cover::{check_png, render_cover, CoverError, COVER_FILE_NAME};
use super::extract::{extract_pdf, ExtractError, ExtractLimits, ExtractedPdf};
use crate::worker::{spawn_worker, ChannelError, ChildRefused, ResourceLimits, WorkerCommand, WorkerSpec};

/// The first argument that selects the hidden extraction worker mode of a Relay executable.
pub const WORKER_ARG: &str = "__relay-wiki-extract-worker";
/// The deadline the parent gives one extraction before killing the worker.
pub const EXTRACT_DEADLINE: Duration = Duration::from_secs(60);
/// The prefix of output directory names (`OUT_ROOT/.relay-wiki-extract-<random>`).
pub const OUTPUT_DIR_PREFIX: &str = ".relay-wiki-extract-";
/// Where the worker puts the page texts when they do not fit the reply line.
pub const PAGES_FILE_NAME: &str = "pages.json";
/// Address space beyond the heap budget: the executable, libraries, stacks, allocator arenas.
pub const ADDRESS_SPACE_OVERHEAD_BYTES: u64 = 256 * 1024 * 1024;
/// Largest file the worker (or the renderer) may write: the pages file of a document at the
/// text limit fits several times over.
pub const MAX_WORKER_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// Largest reply line the parent reads (the outline alone is at most ~0.5 MB).
const MAX_REPLY_BYTES: u64 = 2 * 1024 * 1024;
/// Replies larger than this move the page texts to [`PAGES_FILE_NAME`].
const INLINE_REPLY_BYTES: usize = 1024 * 1024;
/// Open files: the PDF, the output files, the channel, the renderer's fonts.
const OPEN_FILES: u64 = 64;

/// The extraction worker's process limits for `deadline`.
pub fn worker_spec(deadline: Duration) -> WorkerSpec {
    WorkerSpec {
        deadline,
        max_line_bytes: MAX_REPLY_BYTES,
        nice: crate::worker::BACKGROUND_NICE,
        // An operator waits for the extraction of the document they just uploaded.
        idle_class: false,
        limits: ResourceLimits {
            address_space_bytes: Some(EXTRACTION_WORKER_HEAP_BYTES + ADDRESS_SPACE_OVERHEAD_BYTES),
            cpu_seconds: Some(deadline.as_secs() + 5),
            file_size_bytes: Some(MAX_WORKER_FILE_BYTES),
            open_files: OPEN_FILES,
        },
    }
}

/// What the parent sends: absolute paths only.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ExtractRequest {
    pub pdf: PathBuf,
    pub output_dir: PathBuf,
    /// How long the renderer may take (milliseconds).
    pub cover_budget_ms: u64,
}

/// The worker's one reply.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub(crate) enum ExtractReply {
    Extracted {
        pdf: ExtractedPdf,
        /// The page texts are in [`PAGES_FILE_NAME`] (and `pdf.pages` is empty).
        pages_in_file: bool,
        /// The cover's file name in the output directory, or why there is none.
        cover: Result<String, CoverError>,
    },
    Failed {
        error: ExtractError,
    },
}

/// A finished extraction: the texts and outline, the output directory (owned by the caller,
/// who moves the cover out and deletes it) and the cover inside it, or why there is none.
#[derive(Debug)]
pub struct ExtractionOutput {
    pub pdf: ExtractedPdf,
    pub output_dir: PathBuf,
    pub cover: Result<PathBuf, CoverError>,
}

/// A fresh private output directory `OUT_ROOT/.relay-wiki-extract-<random>` (0700).
fn create_output_dir(out_root: &Path) -> io::Result<PathBuf> {
    let root = fs::canonicalize(out_root)?;
    let dir = root.join(format!("{OUTPUT_DIR_PREFIX}{}", crate::ids::client_id()));
    fs::DirBuilder::new().mode(0o700).create(&dir)?;
    Ok(dir)
}

/// Extracts `pdf` (an absolute path to an owner-only staged file) in a worker process with a
/// fresh output directory under `out_root`, killing the worker's process group at `deadline`
/// ([`EXTRACT_DEADLINE`] in production). On failure the directory is gone when this returns.
pub fn extract_in_worker(
    command: &WorkerCommand,
    pdf: &Path,
    out_root: &Path,
    deadline: Duration,
) -> Result<ExtractionOutput, ExtractError> {
    let output_dir = create_output_dir(out_root).map_err(|e| {
        tracing::warn!(error = %e, "could not create a wiki extraction directory");
        ExtractError::Unavailable
    })?;
    let result = run_worker(command, pdf, &output_dir, deadline);
    match result {
        Ok((pdf, cover)) => Ok(ExtractionOutput { pdf, output_dir, cover }),
        Err(e) => {
            if let Err(io) = fs::remove_dir_all(&output_dir) {
                tracing::warn!(error = %io, "could not remove a wiki extraction directory");
            }
            tracing::info!(code = e.code(), "wiki extraction failed");
            Err(e)
        }
    }
}

type WorkerResult = (ExtractedPdf, Result<PathBuf, CoverError>);

fn run_worker(
    command: &WorkerCommand,
    pdf: &Path,
    output_dir: &Path,
    deadline: Duration,
) -> Result<WorkerResult, ExtractError> {
    let request = ExtractRequest {
        pdf: pdf.to_path_buf(),
        output_dir: output_dir.to_path_buf(),
        cover_budget_ms: (deadline / 3).as_millis() as u64,
    };
    let exit =
        spawn_worker::<_, (), ExtractReply>(command, &request, &worker_spec(deadline), &mut |()| {}).map_err(|e| {
            match e {
                ChannelError::TimedOut(_) => ExtractError::Timeout,
                ChannelError::Crashed(why) => {
                    tracing::warn!(why, "the wiki extraction worker failed");
                    ExtractError::WorkerFailed
                }
                ChannelError::Spawn(e) => {
                    tracing::warn!(error = %e, "the wiki extraction worker could not be started");
                    ExtractError::Unavailable
                }
            }
        })?;
    let (mut extracted, pages_in_file, cover) = match exit.reply {
        ExtractReply::Failed { error } => return Err(error),
        ExtractReply::Extracted { .. } if !exit.status.success() => return Err(ExtractError::WorkerFailed),
        ExtractReply::Extracted { pdf, pages_in_file, cover } => (pdf, pages_in_file, cover),
    };
    if pages_in_file {
        extracted.pages = read_pages_file(&output_dir.join(PAGES_FILE_NAME))?;
    }
    let count = extracted.page_count;
    if count == 0 || count > MAX_PAGES || extracted.pages.len() != count as usize {
        return Err(ExtractError::WorkerFailed);
    }
    if extracted.text_utf16() > MAX_DOCUMENT_TEXT_UTF16 {
        return Err(ExtractError::DocumentTextLimit);
    }
    let cover = cover.and_then(|name| {
        if name != COVER_FILE_NAME {
            return Err(CoverError::RenderFailed);
        }
        let path = output_dir.join(COVER_FILE_NAME);
        check_png(&path).map(|()| path)
    });
    Ok((extracted, cover))
}

/// Reads and removes the worker's pages file (bounded, no links).
fn read_pages_file(path: &Path) -> Result<Vec<String>, ExtractError> {
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|_| ExtractError::WorkerFailed)?;
    let mut bytes = Vec::new();
    file.take(MAX_WORKER_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(|_| ExtractError::WorkerFailed)?;
    let _ = fs::remove_file(path);
    if bytes.len() as u64 > MAX_WORKER_FILE_BYTES {
        return Err(ExtractError::WorkerFailed);
    }
    serde_json::from_slice(&bytes).map_err(|_| ExtractError::WorkerFailed)
}

/// The process side of [`WORKER_ARG`] (called by [`crate::worker::run_if_worker`]): 0 when a
/// reply was sent (success or a typed failure), 2 when the worker refused to run.
pub fn run_as_process() -> i32 {
    match serve_child() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("relay: {e}");
            2
        }
    }
}

/// The worker's side: checks the channel, extracts, renders the cover, replies.
pub fn serve_child() -> Result<(), ChildRefused> {
    crate::worker::serve_child(|request: ExtractRequest, _progress: &mut dyn FnMut(())| serve(&request))?;
    Ok(())
}

fn serve(request: &ExtractRequest) -> ExtractReply {
    let limits = ExtractLimits::default();
    let bytes = match read_staged_pdf(request, &limits) {
        Ok(bytes) => bytes,
        Err(error) => return ExtractReply::Failed { error },
    };
    let mut pdf = match extract_pdf(&bytes, &limits) {
        Ok(pdf) => pdf,
        Err(error) => return ExtractReply::Failed { error },
    };
    drop(bytes);
    let cover = render_cover(&request.pdf, &request.output_dir, Duration::from_millis(request.cover_budget_ms))
        .map(|_| COVER_FILE_NAME.to_string());
    let pages_in_file = serde_json::to_vec(&pdf).map_or(true, |line| line.len() > INLINE_REPLY_BYTES);
    if pages_in_file {
        if let Err(e) = write_pages_file(&request.output_dir.join(PAGES_FILE_NAME), &pdf.pages) {
            tracing::warn!(error = %e, "could not write the pages file");
            return ExtractReply::Failed { error: ExtractError::Unavailable };
        }
        pdf.pages = Vec::new();
    }
    ExtractReply::Extracted { pdf, pages_in_file, cover }
}

/// The staged PDF: absolute path, a regular file (not a link) owned by this user and readable
/// by nobody else, inside the size limit; the output directory absolute and private.
fn read_staged_pdf(request: &ExtractRequest, limits: &ExtractLimits) -> Result<Vec<u8>, ExtractError> {
    let dir_ok = request.output_dir.is_absolute()
        && fs::symlink_metadata(&request.output_dir)
            .is_ok_and(|m| m.is_dir() && m.mode() & 0o077 == 0 && m.uid() == current_uid());
    if !request.pdf.is_absolute() || !dir_ok {
        return Err(ExtractError::Unavailable);
    }
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&request.pdf)
        .map_err(|_| ExtractError::Unavailable)?;
    let meta = file.metadata().map_err(|_| ExtractError::Unavailable)?;
    if !meta.is_file() || meta.mode() & 0o077 != 0 || meta.uid() != current_uid() {
        return Err(ExtractError::Unavailable);
    }
    if meta.len() > limits.max_pdf_bytes {
        return Err(ExtractError::TooLarge);
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limits.max_pdf_bytes + 1).read_to_end(&mut bytes).map_err(|_| ExtractError::Unavailable)?;
    Ok(bytes)
}

fn current_uid() -> u32 {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}

fn write_pages_file(path: &Path, pages: &[String]) -> io::Result<()> {
    let mut file = fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    let bytes = serde_json::to_vec(pages).map_err(io::Error::other)?;
    file.write_all(&bytes)?;
    file.sync_all()
}

#[cfg(test)]
#[path = "worker_tests.rs"]
mod tests;
