//! The Wiki's source PDFs on this PC (the server PC's Administration, or the paired laptop's
//! `laptop_wiki_upload`), chosen in the trusted process: a native GTK file
//! chooser run on the UI thread (the same way as `fatal_dialog`), and each chosen file announced
//! (UTF-8 `.pdf` name, a regular file that is not a link, within the size limits, `%PDF-`
//! signature, size and SHA-256 read through `infra::wiki::source::SourcePdf`, which re-checks the
//! file's identity before every chunk). Paths stay in this process: what leaves it is the file
//! name, the size and the checksum. Debug builds take the choice from `RELAY_TEST_WIKI_PICK`
//! (absolute paths separated by `:`) instead of showing the dialog, for the WebDriver flows
//! (`webdriver_wiki_admin.py`, `webdriver_laptop.py`).

use std::path::{Path, PathBuf};

use domain::wiki::limits::{MAX_FILES_PER_BATCH, MAX_PDF_BYTES, MIN_PDF_BYTES, UPLOAD_CHUNK_BYTES};
use infra::wiki::source::{SourceError, SourcePdf};
use sha2::{Digest, Sha256};

use crate::bridge::BridgeError;

/// A chosen PDF, announced: where it is (never sent to the renderer) and what the server learns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Announced {
    /// The canonical absolute path the wiki actor reads.
    pub path: PathBuf,
    pub file_name: String,
    pub byte_size: u64,
    /// SHA-256 of the whole file, lowercase hex.
    pub checksum: String,
}

/// Size, SHA-256 and canonical path of one chosen file. The refusal names the file, never its
/// folder.
pub fn announce(path: &Path) -> Result<Announced, String> {
    let name = path.file_name().and_then(|n| n.to_str()).ok_or("every file needs a UTF-8 name")?;
    let refused = |why: &str| format!("{name}: {why}");
    if !name.to_ascii_lowercase().ends_with(".pdf") {
        return Err(refused("only PDF files can be uploaded"));
    }
    if !path.is_absolute() {
        return Err(refused("cannot be read"));
    }
    let meta = std::fs::symlink_metadata(path).map_err(|_| refused("cannot be read"))?;
    if meta.file_type().is_symlink() {
        return Err(refused("is a link; choose the file itself"));
    }
    if !meta.file_type().is_file() {
        return Err(refused("is not a regular file"));
    }
    let canonical = std::fs::canonicalize(path).map_err(|_| refused("cannot be read"))?;
    let mut source = SourcePdf::open(&canonical).map_err(|_| refused("cannot be read"))?;
    let size = source.size();
    if size < MIN_PDF_BYTES {
        return Err(refused("is empty or too short to be a PDF"));
    }
    if size > MAX_PDF_BYTES {
        return Err(refused("is larger than 50 MB"));
    }
    let mut hasher = Sha256::new();
    for index in 0..size.div_ceil(UPLOAD_CHUNK_BYTES) {
        let chunk = source.read_chunk(index, UPLOAD_CHUNK_BYTES).map_err(|e| match e {
            SourceError::Changed => refused("changed while it was being read; choose it again"),
            SourceError::Unreadable => refused("cannot be read"),
        })?;
        if index == 0 && !chunk.starts_with(b"%PDF-") {
            return Err(refused("is not a PDF"));
        }
        hasher.update(&chunk);
    }
    let checksum = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok(Announced { path: canonical, file_name: name.to_string(), byte_size: size, checksum })
}

/// Every chosen file announced, or the first refusal; at most one file when `replacing`.
pub fn announce_all(paths: &[PathBuf], replacing: bool) -> Result<Vec<Announced>, BridgeError> {
    let most = if replacing { 1 } else { MAX_FILES_PER_BATCH };
    if paths.len() > most {
        let text = if replacing { "choose one PDF".to_string() } else { format!("choose at most {most} PDFs at once") };
        return Err(BridgeError::Invalid(text));
    }
    paths.iter().map(|p| announce(p).map_err(BridgeError::Invalid)).collect()
}

/// [`announce_all`] off the async workers (it reads every chosen file whole).
pub async fn announce_off_thread(paths: Vec<PathBuf>, replacing: bool) -> Result<Vec<Announced>, BridgeError> {
    tokio::task::spawn_blocking(move || announce_all(&paths, replacing))
        .await
        .map_err(|_| BridgeError::Unavailable("the chosen files could not be read".into()))?
}

/// The files the operator chose (empty when cancelled).
pub async fn pick<R: tauri::Runtime>(window: tauri::Window<R>, multiple: bool) -> Result<Vec<PathBuf>, BridgeError> {
    #[cfg(debug_assertions)]
    if let Ok(list) = std::env::var("RELAY_TEST_WIKI_PICK") {
        return Ok(test_pick(&list));
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    let on_ui = window.clone();
    window
        .run_on_main_thread(move || {
            let _ = tx.send(dialog::choose(&on_ui, multiple));
        })
        .map_err(|_| BridgeError::Unavailable("the file chooser could not be shown".into()))?;
    rx.await.map_err(|_| BridgeError::Unavailable("the file chooser closed unexpectedly".into()))
}

/// `RELAY_TEST_WIKI_PICK`: absolute paths separated by `:` (debug builds only).
#[cfg(debug_assertions)]
fn test_pick(list: &str) -> Vec<PathBuf> {
    list.split(':').filter(|p| !p.is_empty()).map(PathBuf::from).collect()
}

#[cfg(target_os = "linux")]
mod dialog {
    use std::path::PathBuf;

    use gtk::prelude::*;

    /// The GTK file chooser, modal over the main window (UI thread only).
    pub fn choose<R: tauri::Runtime>(window: &tauri::Window<R>, multiple: bool) -> Vec<PathBuf> {
        let parent = window.gtk_window().ok();
        let title = if multiple { "Upload PDFs to the Wiki" } else { "Choose the new PDF" };
        let dialog = gtk::FileChooserDialog::with_buttons(
            Some(title),
            parent.as_ref(),
            gtk::FileChooserAction::Open,
            &[("Cancel", gtk::ResponseType::Cancel), ("Upload", gtk::ResponseType::Accept)],
        );
        dialog.set_modal(true);
        dialog.set_select_multiple(multiple);
        dialog.set_local_only(true);
        let filter = gtk::FileFilter::new();
        filter.set_name(Some("PDF documents"));
        filter.add_pattern("*.pdf");
        filter.add_pattern("*.PDF");
        dialog.add_filter(filter);
        let chosen = if dialog.run() == gtk::ResponseType::Accept { dialog.filenames() } else { Vec::new() };
        dialog.close();
        chosen
    }
}

#[cfg(not(target_os = "linux"))]
mod dialog {
    pub fn choose<R: tauri::Runtime>(_window: &tauri::Window<R>, _multiple: bool) -> Vec<std::path::PathBuf> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn a_pdf_is_announced_with_its_size_checksum_and_canonical_path() {
        let tmp = tempfile::tempdir().unwrap();
        let bytes = b"%PDF-1.7\n% a tiny body\n%%EOF\n";
        let path = write(tmp.path(), "Runbook.PDF", bytes);
        let announced = announce(&tmp.path().join(".").join("Runbook.PDF")).unwrap();
        assert_eq!(announced.file_name, "Runbook.PDF");
        assert_eq!(announced.byte_size, bytes.len() as u64);
        assert_eq!(announced.checksum, domain::canonical::sha256_hex(bytes));
        assert_eq!(announced.path, std::fs::canonicalize(path).unwrap());
    }

    #[test]
    fn a_file_over_several_chunks_hashes_like_one_read() {
        let tmp = tempfile::tempdir().unwrap();
        let mut bytes = b"%PDF-1.4\n".to_vec();
        bytes.resize(UPLOAD_CHUNK_BYTES as usize * 2 + 17, b'x');
        let path = write(tmp.path(), "big.pdf", &bytes);
        let announced = announce(&path).unwrap();
        assert_eq!(announced.byte_size, bytes.len() as u64);
        assert_eq!(announced.checksum, domain::canonical::sha256_hex(&bytes));
    }

    #[test]
    fn links_folders_and_other_files_are_refused_by_name_only() {
        let tmp = tempfile::tempdir().unwrap();
        let real = write(tmp.path(), "real.pdf", b"%PDF-1.7\n%%EOF\n");
        let link = tmp.path().join("link.pdf");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(announce(&link).unwrap_err(), "link.pdf: is a link; choose the file itself");
        let folder = tmp.path().join("folder.pdf");
        std::fs::create_dir(&folder).unwrap();
        assert_eq!(announce(&folder).unwrap_err(), "folder.pdf: is not a regular file");
        let fifo = tmp.path().join("pipe.pdf");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(announce(&fifo).unwrap_err(), "pipe.pdf: is not a regular file");
        let text = write(tmp.path(), "notes.txt", b"%PDF-1.7\n");
        assert_eq!(announce(&text).unwrap_err(), "notes.txt: only PDF files can be uploaded");
        let fake = write(tmp.path(), "fake.pdf", b"GIF89a not a pdf");
        assert_eq!(announce(&fake).unwrap_err(), "fake.pdf: is not a PDF");
        let empty = write(tmp.path(), "empty.pdf", b"");
        assert_eq!(announce(&empty).unwrap_err(), "empty.pdf: is empty or too short to be a PDF");
        assert_eq!(announce(Path::new("relative.pdf")).unwrap_err(), "relative.pdf: cannot be read");
        assert_eq!(announce(&tmp.path().join("missing.pdf")).unwrap_err(), "missing.pdf: cannot be read");
        for refusal in [announce(&link), announce(&folder), announce(&fake)] {
            assert!(!refusal.unwrap_err().contains(tmp.path().to_str().unwrap()), "no folder in a refusal");
        }
    }

    #[test]
    fn a_file_over_the_limit_is_refused_before_it_is_read() {
        let tmp = tempfile::tempdir().unwrap();
        let path = write(tmp.path(), "huge.pdf", b"%PDF-1.7\n");
        std::fs::File::options().write(true).open(&path).unwrap().set_len(MAX_PDF_BYTES + 1).unwrap();
        assert_eq!(announce(&path).unwrap_err(), "huge.pdf: is larger than 50 MB");
    }

    #[test]
    fn a_batch_is_bounded_and_a_replacement_takes_one_file() {
        let tmp = tempfile::tempdir().unwrap();
        let a = write(tmp.path(), "a.pdf", b"%PDF-1.7\n%%EOF\n");
        let b = write(tmp.path(), "b.pdf", b"%PDF-1.7\n%%EOF\n");
        assert_eq!(announce_all(&[a.clone(), b.clone()], false).unwrap().len(), 2);
        assert_eq!(announce_all(&[a.clone(), b], true), Err(BridgeError::Invalid("choose one PDF".into())));
        let many = vec![a; MAX_FILES_PER_BATCH + 1];
        assert!(matches!(announce_all(&many, false), Err(BridgeError::Invalid(_))));
    }

    #[cfg(debug_assertions)]
    #[test]
    fn the_test_pick_lists_absolute_paths() {
        assert_eq!(test_pick("/a/x.pdf:/b/y.pdf:"), [PathBuf::from("/a/x.pdf"), PathBuf::from("/b/y.pdf")]);
    }
}
