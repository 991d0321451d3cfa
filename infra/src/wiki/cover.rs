//! The cover image of page 1, rendered inside the extraction worker by poppler's `pdftoppm`
//! (from Debian's `poppler-utils`): [`render_cover`] runs it from a fixed path with a cleared
//! environment, no stdio, in the worker's process group (so the parent's deadline kill reaches
//! it) and under the worker's process limits, gives it its own time budget, and accepts the
//! result only if it is a regular file with the PNG signature and at most 2 MiB. A missing
//! cover is a [`CoverError`] note beside a successful extraction, never an extraction failure.
//! It never renders anything but page 1 and never writes outside the given directory.

use std::fs;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use domain::wiki::limits::MAX_COVER_PNG_BYTES;

/// Where `pdftoppm` may be (the worker has no `PATH`).
pub const RENDERER_PATHS: [&str; 2] = ["/usr/bin/pdftoppm", "/usr/local/bin/pdftoppm"];
/// The cover's file name inside the output directory.
pub const COVER_FILE_NAME: &str = "cover.png";
/// Longest side of the cover (pixels).
pub const COVER_SCALE_TO: u32 = 400;
/// The eight bytes every PNG starts with.
pub const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];

/// Why a document has no cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CoverError {
    #[error("no PDF renderer is installed")]
    RendererMissing,
    #[error("the renderer could not render page 1")]
    RenderFailed,
    #[error("the renderer did not finish in time")]
    RenderTimeout,
    #[error("the renderer's output is not a PNG")]
    NotPng,
    #[error("the cover is larger than 2 MiB")]
    TooLarge,
}

impl CoverError {
    /// The stable code.
    pub fn code(&self) -> &'static str {
        match self {
            CoverError::RendererMissing => "renderer-missing",
            CoverError::RenderFailed => "render-failed",
            CoverError::RenderTimeout => "render-timeout",
            CoverError::NotPng => "not-png",
            CoverError::TooLarge => "too-large",
        }
    }
}

/// The first installed renderer, if any.
pub fn renderer() -> Option<&'static Path> {
    RENDERER_PATHS.iter().map(Path::new).find(|p| p.is_file())
}

/// Renders page 1 of `pdf` to `out_dir/cover.png` within `budget`; on any failure the file is
/// removed and the reason returned.
pub fn render_cover(pdf: &Path, out_dir: &Path, budget: Duration) -> Result<PathBuf, CoverError> {
    let program = renderer().ok_or(CoverError::RendererMissing)?;
    let cover = out_dir.join(COVER_FILE_NAME);
    let result = run_renderer(program, pdf, out_dir, budget).and_then(|()| check_png(&cover));
    if result.is_err() {
        let _ = fs::remove_file(&cover);
    }
    result.map(|()| cover)
}

fn run_renderer(program: &Path, pdf: &Path, out_dir: &Path, budget: Duration) -> Result<(), CoverError> {
    let started = Instant::now();
    let scale = COVER_SCALE_TO.to_string();
    let mut child = Command::new(program)
        .args(["-png", "-f", "1", "-l", "1", "-singlefile", "-scale-to", &scale])
        .arg(pdf)
        .arg(out_dir.join("cover"))
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|_| CoverError::RendererMissing)?;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(_)) | Err(_) => return Err(CoverError::RenderFailed),
            Ok(None) if started.elapsed() >= budget => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(CoverError::RenderTimeout);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// A regular file (not a link) of at most [`MAX_COVER_PNG_BYTES`] starting with the PNG
/// signature.
pub fn check_png(path: &Path) -> Result<(), CoverError> {
    let mut file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|_| CoverError::RenderFailed)?;
    let meta = file.metadata().map_err(|_| CoverError::RenderFailed)?;
    if !meta.is_file() {
        return Err(CoverError::RenderFailed);
    }
    if meta.len() > MAX_COVER_PNG_BYTES {
        return Err(CoverError::TooLarge);
    }
    let mut magic = [0u8; 8];
    file.read_exact(&mut magic).map_err(|_| CoverError::NotPng)?;
    if magic != PNG_SIGNATURE {
        return Err(CoverError::NotPng);
    }
    Ok(())
}

#[cfg(test)]
#[path = "cover_tests.rs"]
mod tests;
