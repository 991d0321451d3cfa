//! The rules of a wiki PDF upload. [`UploadPlan::for_size`] accepts a file of
//! [`MIN_PDF_BYTES`]..=[`MAX_PDF_BYTES`] bytes and cuts it into [`UPLOAD_CHUNK_BYTES`] chunks
//! ([`expected_chunk_bytes`] says how long each one is); [`check_chunk`] is the chunk hook's
//! decision on one stored chunk, which must belong to the uploading upload and active batch it
//! names, come from that upload's account and device, and have the exact index, size and
//! checksum shape the plan expects, refusing every mismatch with one fixed operator message;
//! [`check_pdf_signature`], [`check_file_name`] and [`check_batch`] decide which files a batch
//! may hold; and [`next`] is the upload state machine. It refuses to read files, hash bytes,
//! authenticate callers or keep time: the server's wiki actor does that and passes in sizes,
//! identifiers, digests and states.

use thiserror::Error;

pub use super::limits::{MAX_FILES_PER_BATCH, MAX_FILE_NAME_CHARS, MAX_PDF_BYTES, MIN_PDF_BYTES, UPLOAD_CHUNK_BYTES};

/// The first bytes of every PDF file.
pub const PDF_SIGNATURE: &[u8] = b"%PDF-";

/// A file or batch the uploader refuses. Messages never echo the file name.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum UploadError {
    #[error("The PDF is empty or too small to be a PDF.")]
    TooSmall,
    #[error("PDFs must be at most 50 MiB.")]
    TooLarge,
    #[error("The file is not a PDF.")]
    NotPdf,
    #[error("Choose at least one PDF.")]
    EmptyBatch,
    #[error("Choose at most 100 PDFs at a time.")]
    TooManyFiles,
    #[error("Two selected PDFs have the same file name.")]
    DuplicateFileName,
    #[error("Only files ending in .pdf can be uploaded.")]
    NotPdfFileName,
    #[error("PDF file names must be at most 240 characters long.")]
    FileNameTooLong,
    #[error("PDF file names must not contain path separators, control or invisible formatting characters.")]
    InvalidFileName,
    #[error("PDF file names must not be a reserved device name such as CON, NUL, COM1 or LPT1.")]
    ReservedFileName,
}

impl UploadError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            UploadError::TooSmall => "file_too_small",
            UploadError::TooLarge => "file_too_large",
            UploadError::NotPdf => "not_pdf",
            UploadError::EmptyBatch => "empty_batch",
            UploadError::TooManyFiles => "too_many_files",
            UploadError::DuplicateFileName => "duplicate_file_name",
            UploadError::NotPdfFileName => "not_pdf_file_name",
            UploadError::FileNameTooLong => "file_name_too_long",
            UploadError::InvalidFileName => "invalid_file_name",
            UploadError::ReservedFileName => "reserved_file_name",
        }
    }
}

impl crate::problem::HttpProblem for UploadError {
    fn status(&self) -> u16 {
        400
    }

    fn code(&self) -> &'static str {
        UploadError::code(self)
    }
}

/// How a PDF of a given size is sent: `chunk_count` chunks of [`UPLOAD_CHUNK_BYTES`], the last
/// one possibly shorter. The only ways to build one are [`UploadPlan::for_size`] and
/// [`UploadPlan::from_record`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UploadPlan {
    byte_size: u64,
    chunk_count: u32,
}

impl UploadPlan {
    /// The plan for a file of `byte_size` bytes (5 B..=50 MiB).
    pub fn for_size(byte_size: u64) -> Result<UploadPlan, UploadError> {
        if byte_size < MIN_PDF_BYTES {
            return Err(UploadError::TooSmall);
        }
        if byte_size > MAX_PDF_BYTES {
            return Err(UploadError::TooLarge);
        }
        let chunk_count = byte_size.div_ceil(UPLOAD_CHUNK_BYTES) as u32;
        Ok(UploadPlan { byte_size, chunk_count })
    }

    /// The plan an upload record declares, accepted only when it is exactly the plan
    /// [`UploadPlan::for_size`] gives: `chunkSize` is 4 MiB and `chunkCount` matches `byteSize`.
    pub fn from_record(byte_size: u64, chunk_size: u64, chunk_count: u64) -> Result<UploadPlan, ChunkError> {
        match UploadPlan::for_size(byte_size) {
            Ok(plan) if chunk_size == UPLOAD_CHUNK_BYTES && chunk_count == u64::from(plan.chunk_count) => Ok(plan),
            _ => Err(ChunkError::PlanMismatch),
        }
    }

    /// Size of the whole file (bytes).
    pub fn byte_size(self) -> u64 {
        self.byte_size
    }

    /// Number of chunks (at least 1, at most 13).
    pub fn chunk_count(self) -> u32 {
        self.chunk_count
    }
}

/// Length of chunk `index` (0-based) of `plan`: [`UPLOAD_CHUNK_BYTES`] for every chunk but the
/// last, the remainder for the last, `None` past the end.
pub fn expected_chunk_bytes(plan: UploadPlan, index: u32) -> Option<u64> {
    if index >= plan.chunk_count {
        return None;
    }
    let start = u64::from(index) * UPLOAD_CHUNK_BYTES;
    Some((plan.byte_size - start).min(UPLOAD_CHUNK_BYTES))
}

/// Whether `first_bytes` (the start of the file, at least five bytes) begin with `%PDF-`.
pub fn check_pdf_signature(first_bytes: &[u8]) -> Result<(), UploadError> {
    if first_bytes.starts_with(PDF_SIGNATURE) {
        Ok(())
    } else {
        Err(UploadError::NotPdf)
    }
}

/// Checks one file name: it ends in `.pdf` (any case) after a non-empty stem, is at most
/// [`MAX_FILE_NAME_CHARS`] characters, has no `/`, `\`, control or format character (so it can
/// never name a path or read differently from what it is, `super::file_name`), and is no
/// reserved device name (`CON.pdf`, `nul.pdf`, `COM1.pdf`).
pub fn check_file_name(name: &str) -> Result<(), UploadError> {
    let misleading = |c: char| c == '/' || c == '\\' || super::is_forbidden_char(c) || super::is_format_char(c);
    if name.chars().any(misleading) {
        return Err(UploadError::InvalidFileName);
    }
    if name.chars().count() > MAX_FILE_NAME_CHARS {
        return Err(UploadError::FileNameTooLong);
    }
    let lower = name.to_lowercase();
    if lower.len() <= ".pdf".len() || !lower.ends_with(".pdf") {
        return Err(UploadError::NotPdfFileName);
    }
    if super::is_reserved_device_name(name) {
        return Err(UploadError::ReservedFileName);
    }
    Ok(())
}

/// Checks the file names of one batch: 1..=[`MAX_FILES_PER_BATCH`] files, each name valid
/// ([`check_file_name`]), and no two names equal ignoring case. The first refusal wins.
pub fn check_batch<S: AsRef<str>>(names: &[S]) -> Result<(), UploadError> {
    if names.is_empty() {
        return Err(UploadError::EmptyBatch);
    }
    if names.len() > MAX_FILES_PER_BATCH {
        return Err(UploadError::TooManyFiles);
    }
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    for name in names {
        check_file_name(name.as_ref())?;
        if !seen.insert(name.as_ref().to_lowercase()) {
            return Err(UploadError::DuplicateFileName);
        }
    }
    Ok(())
}

/// The one message every refused chunk answers with; the reason is only in the code and logs.
pub const INVALID_CHUNK_MESSAGE: &str = "Invalid upload chunk.";

/// Why the chunk hook refused a chunk. Every variant shows the same operator message,
/// [`INVALID_CHUNK_MESSAGE`]; [`ChunkError::code`] tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ChunkError {
    #[error("Invalid upload chunk.")]
    UploadMismatch,
    #[error("Invalid upload chunk.")]
    BatchMismatch,
    #[error("Invalid upload chunk.")]
    AccountMismatch,
    #[error("Invalid upload chunk.")]
    DeviceMismatch,
    #[error("Invalid upload chunk.")]
    UploadNotUploading,
    #[error("Invalid upload chunk.")]
    BatchNotActive,
    #[error("Invalid upload chunk.")]
    PlanMismatch,
    #[error("Invalid upload chunk.")]
    IndexNotInteger,
    #[error("Invalid upload chunk.")]
    IndexOutOfRange,
    #[error("Invalid upload chunk.")]
    ByteSizeMismatch,
    #[error("Invalid upload chunk.")]
    FileSizeMismatch,
    #[error("Invalid upload chunk.")]
    InvalidChecksum,
}

impl ChunkError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            ChunkError::UploadMismatch => "chunk_upload_mismatch",
            ChunkError::BatchMismatch => "chunk_batch_mismatch",
            ChunkError::AccountMismatch => "chunk_account_mismatch",
            ChunkError::DeviceMismatch => "chunk_device_mismatch",
            ChunkError::UploadNotUploading => "upload_not_uploading",
            ChunkError::BatchNotActive => "batch_not_active",
            ChunkError::PlanMismatch => "chunk_plan_mismatch",
            ChunkError::IndexNotInteger => "chunk_index_not_integer",
            ChunkError::IndexOutOfRange => "chunk_index_out_of_range",
            ChunkError::ByteSizeMismatch => "chunk_byte_size_mismatch",
            ChunkError::FileSizeMismatch => "chunk_file_size_mismatch",
            ChunkError::InvalidChecksum => "chunk_invalid_checksum",
        }
    }
}

impl crate::problem::HttpProblem for ChunkError {
    fn status(&self) -> u16 {
        400
    }

    fn code(&self) -> &'static str {
        ChunkError::code(self)
    }
}

/// What the server holds about the upload a chunk claims to belong to: the upload record's
/// identity, owner, plan and state, and its batch's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UploadBinding<'a> {
    pub upload_id: &'a str,
    pub batch_id: &'a str,
    pub account_id: &'a str,
    pub device_id: &'a str,
    pub plan: UploadPlan,
    pub state: UploadState,
    /// Whether the upload's batch is in state `active`.
    pub batch_active: bool,
}

/// What a chunk create request says about itself, plus the length of the file it carries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChunkClaim<'a> {
    pub batch_id: &'a str,
    pub upload_id: &'a str,
    /// The `accountId` the chunk record carries. Whether the caller may act for it (the
    /// owning active privileged account, or a superuser) is the actor's check, not this one.
    pub account_id: &'a str,
    pub device_id: &'a str,
    /// The 0-based chunk index as a JSON number: it must be a whole number.
    pub index: f64,
    /// The `byteSize` the request declares.
    pub byte_size: u64,
    /// The length of the chunk file actually received.
    pub actual_len: u64,
    /// The chunk's SHA-256 as sent: 64 lowercase hexadecimal digits.
    pub sha256: &'a str,
}

/// The chunk hook's decision: `Ok` with the chunk index when the chunk may be stored. Checks
/// run in a fixed order (identity, owner, states, index, sizes, checksum) and the first
/// failure is returned.
pub fn check_chunk(upload: &UploadBinding<'_>, claim: &ChunkClaim<'_>) -> Result<u32, ChunkError> {
    if claim.upload_id != upload.upload_id {
        return Err(ChunkError::UploadMismatch);
    }
    if claim.batch_id != upload.batch_id {
        return Err(ChunkError::BatchMismatch);
    }
    if claim.account_id != upload.account_id {
        return Err(ChunkError::AccountMismatch);
    }
    if claim.device_id != upload.device_id {
        return Err(ChunkError::DeviceMismatch);
    }
    if upload.state != UploadState::Uploading {
        return Err(ChunkError::UploadNotUploading);
    }
    if !upload.batch_active {
        return Err(ChunkError::BatchNotActive);
    }
    if !claim.index.is_finite() || claim.index.fract() != 0.0 {
        return Err(ChunkError::IndexNotInteger);
    }
    if claim.index < 0.0 || claim.index >= f64::from(upload.plan.chunk_count) {
        return Err(ChunkError::IndexOutOfRange);
    }
    let index = claim.index as u32;
    let expected = expected_chunk_bytes(upload.plan, index).ok_or(ChunkError::IndexOutOfRange)?;
    if claim.byte_size != expected {
        return Err(ChunkError::ByteSizeMismatch);
    }
    if claim.actual_len != expected {
        return Err(ChunkError::FileSizeMismatch);
    }
    if !is_sha256_hex(claim.sha256) {
        return Err(ChunkError::InvalidChecksum);
    }
    Ok(index)
}

/// Whether `text` is a SHA-256 digest in lowercase hexadecimal (64 of `0-9a-f`).
pub fn is_sha256_hex(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[path = "upload_state.rs"]
mod state;
pub use state::{next, TransitionError, UploadEvent, UploadState};

#[cfg(test)]
#[path = "upload_tests.rs"]
mod tests;
