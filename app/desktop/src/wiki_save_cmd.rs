//! The Knowledge tab's "Download" on the desktop (both modes, main window): the renderer hands
//! over the PDF bytes it already checked against the published checksum, and this process
//! checks them again (size limit, `%PDF-` signature, SHA-256 equal to the checksum sent with
//! them), asks the operator where to save them in a native GTK Save As dialog (the renderer
//! suggests a file name, never a folder or path; a suggestion that is not a valid Wiki file name
//! becomes `document.pdf`), and writes them atomically: an exclusive owner-only temporary file
//! beside the target, fsynced, renamed over it (GTK has already asked before replacing a file),
//! the folder fsynced. The renderer learns only the saved file's name. Debug builds take the
//! folder from `RELAY_TEST_WIKI_SAVE_DIR` instead of showing the dialog, for the WebDriver flow.
//!
//! The bytes arrive as the raw body of the invoke (no JSON or base64 copy of up to 50 MiB); the
//! suggested name and the checksum come as the `x-relay-file-name` (percent-encoded UTF-8) and
//! `x-relay-checksum` headers.

use std::io::Write;
use std::path::{Path, PathBuf};

use domain::wiki::limits::MAX_PDF_BYTES;
use domain::wiki::upload::{check_file_name, check_pdf_signature};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::bridge::{Access, BridgeError, Command};

pub const WIKI_SAVE_PDF: Command = Command::new("wiki_save_pdf", Access::MainOnly);

/// The name offered in the dialog when the renderer's suggestion is not a valid Wiki file name.
const FALLBACK_NAME: &str = "document.pdf";

/// What the renderer learns: whether the operator saved, and under which file name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedPdf {
    pub saved: bool,
    /// The chosen file's name (no folder); null when the dialog was cancelled.
    pub file_name: Option<String>,
}

/// The name to offer: the renderer's suggestion when it is a valid Wiki file name (a `.pdf`
/// name with no path separator or control character) that does not start with a dot.
pub fn suggested_name(raw_header: Option<&str>) -> String {
    let decoded = raw_header
        .and_then(|raw| url::form_urlencoded::parse(format!("n={raw}").as_bytes()).next().map(|(_, v)| v.into_owned()));
    match decoded {
        Some(name) if check_file_name(&name).is_ok() && !name.starts_with('.') && name.trim() == name => name,
        _ => FALLBACK_NAME.to_string(),
    }
}

/// The bytes are a PDF within the Wiki's size limit whose SHA-256 is `checksum`.
pub fn check_pdf(bytes: &[u8], checksum: Option<&str>) -> Result<(), BridgeError> {
    let expected = checksum.map(|c| c.trim().to_ascii_lowercase()).unwrap_or_default();
    if expected.len() != 64 || !expected.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(BridgeError::Invalid("the PDF's checksum is missing".into()));
    }
    if bytes.len() as u64 > MAX_PDF_BYTES {
        return Err(BridgeError::Invalid("the PDF is larger than 50 MB".into()));
    }
    if check_pdf_signature(bytes).is_err() {
        return Err(BridgeError::Rejected("this is not a PDF, so it was not saved".into()));
    }
    let actual: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
    if actual != expected {
        return Err(BridgeError::Rejected(
            "This PDF does not match the published document (checksum mismatch), so it was not saved.".into(),
        ));
    }
    Ok(())
}

/// Writes `bytes` to `target` atomically: an exclusive, owner-only temporary file in the same
/// folder, fsynced and renamed over the target, then the folder fsynced. A failure leaves no
/// temporary file and the previous target (if any) untouched.
pub fn write_atomically(target: &Path, bytes: &[u8]) -> Result<(), BridgeError> {
    let failed = || BridgeError::Unavailable("the PDF could not be saved there".into());
    let folder = match target.parent() {
        Some(p) if target.is_absolute() && target.file_name().is_some() => p,
        _ => return Err(failed()),
    };
    // `tempfile` creates the file with O_EXCL and mode 0600 under a random name.
    let mut tmp =
        tempfile::Builder::new().prefix(".relay-save-").suffix(".part").tempfile_in(folder).map_err(|_| failed())?;
    tmp.write_all(bytes).and_then(|_| tmp.as_file().sync_all()).map_err(|_| failed())?;
    tmp.persist(target).map_err(|_| failed())?;
    std::fs::File::open(folder).and_then(|d| d.sync_all()).map_err(|_| failed())
}

/// Where the operator chose to save (None when cancelled).
async fn choose_target<R: tauri::Runtime>(
    window: tauri::Window<R>,
    suggested: String,
) -> Result<Option<PathBuf>, BridgeError> {
    #[cfg(debug_assertions)]
    if let Ok(folder) = std::env::var("RELAY_TEST_WIKI_SAVE_DIR") {
        return Ok(Some(PathBuf::from(folder).join(suggested)));
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    let on_ui = window.clone();
    window
        .run_on_main_thread(move || {
            let _ = tx.send(dialog::save_as(&on_ui, &suggested));
        })
        .map_err(|_| BridgeError::Unavailable("the Save As dialog could not be shown".into()))?;
    rx.await.map_err(|_| BridgeError::Unavailable("the Save As dialog closed unexpectedly".into()))
}

#[cfg(target_os = "linux")]
mod dialog {
    use std::path::PathBuf;

    use gtk::prelude::*;

    /// The GTK Save As dialog, modal over the calling window (UI thread only). GTK asks before
    /// replacing an existing file.
    pub fn save_as<R: tauri::Runtime>(window: &tauri::Window<R>, suggested: &str) -> Option<PathBuf> {
        let parent = window.gtk_window().ok();
        let dialog = gtk::FileChooserDialog::with_buttons(
            Some("Save the PDF"),
            parent.as_ref(),
            gtk::FileChooserAction::Save,
            &[("Cancel", gtk::ResponseType::Cancel), ("Save", gtk::ResponseType::Accept)],
        );
        dialog.set_modal(true);
        dialog.set_local_only(true);
        dialog.set_do_overwrite_confirmation(true);
        dialog.set_current_name(suggested);
        let chosen = if dialog.run() == gtk::ResponseType::Accept { dialog.filename() } else { None };
        dialog.close();
        chosen
    }
}

#[cfg(not(target_os = "linux"))]
mod dialog {
    pub fn save_as<R: tauri::Runtime>(_window: &tauri::Window<R>, _suggested: &str) -> Option<std::path::PathBuf> {
        None
    }
}

mod commands {
    use tauri::ipc::{InvokeBody, Request};
    use tauri::{State, Webview};

    use super::*;
    use crate::bridge::{caller, Bridge};

    fn header<'a>(request: &'a Request<'_>, name: &str) -> Option<&'a str> {
        request.headers().get(name).and_then(|v| v.to_str().ok())
    }

    #[tauri::command]
    pub async fn wiki_save_pdf<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        request: Request<'_>,
    ) -> Result<SavedPdf, BridgeError> {
        caller(WIKI_SAVE_PDF, &webview, &bridge)?;
        let InvokeBody::Raw(bytes) = request.body() else {
            return Err(BridgeError::Invalid("the PDF must be sent as bytes".into()));
        };
        check_pdf(bytes, header(&request, "x-relay-checksum"))?;
        let suggested = suggested_name(header(&request, "x-relay-file-name"));
        let Some(target) = choose_target(webview.window(), suggested).await? else {
            return Ok(SavedPdf { saved: false, file_name: None });
        };
        let bytes = bytes.clone();
        let to = target.clone();
        tokio::task::spawn_blocking(move || write_atomically(&to, &bytes))
            .await
            .map_err(|_| BridgeError::Unavailable("the PDF could not be saved there".into()))??;
        let file_name = target.file_name().map(|n| n.to_string_lossy().into_owned());
        tracing::info!(target: "relay::wiki", "a Wiki PDF was saved from the Knowledge tab");
        Ok(SavedPdf { saved: true, file_name })
    }
}

pub use commands::*;

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    const PDF: &[u8] = b"%PDF-1.7\n% runbook\n%%EOF\n";

    fn checksum(bytes: &[u8]) -> String {
        domain::canonical::sha256_hex(bytes)
    }

    #[test]
    fn the_suggestion_is_a_wiki_file_name_or_the_fallback() {
        assert_eq!(suggested_name(Some("Core%20Router%20SOP.pdf")), "Core Router SOP.pdf");
        assert_eq!(suggested_name(Some("R%C3%A9seau.PDF")), "Réseau.PDF");
        for bad in [
            None,
            Some(""),
            Some("..%2F..%2F.bashrc.pdf"),
            Some("a%5Cb.pdf"),
            Some(".hidden.pdf"),
            Some("notes.txt"),
            Some("line%0Abreak.pdf"),
            Some("%20padded.pdf"),
            Some(".pdf"),
        ] {
            assert_eq!(suggested_name(bad), FALLBACK_NAME, "{bad:?}");
        }
    }

    #[test]
    fn only_a_pdf_matching_its_checksum_is_saved() {
        assert_eq!(check_pdf(PDF, Some(&checksum(PDF))), Ok(()));
        assert_eq!(check_pdf(PDF, Some(&checksum(PDF).to_uppercase())), Ok(()));
        assert!(
            matches!(check_pdf(PDF, Some(&checksum(b"other"))), Err(BridgeError::Rejected(m)) if m.contains("checksum mismatch"))
        );
        assert!(matches!(check_pdf(PDF, None), Err(BridgeError::Invalid(_))));
        assert!(matches!(check_pdf(PDF, Some("abc")), Err(BridgeError::Invalid(_))));
        let gif = b"GIF89a not a pdf";
        assert!(
            matches!(check_pdf(gif, Some(&checksum(gif))), Err(BridgeError::Rejected(m)) if m.contains("not a PDF"))
        );
        let mut huge = PDF.to_vec();
        huge.resize(MAX_PDF_BYTES as usize + 1, b' ');
        assert_eq!(
            check_pdf(&huge, Some(&checksum(&huge))),
            Err(BridgeError::Invalid("the PDF is larger than 50 MB".into()))
        );
    }

    #[test]
    fn a_save_is_atomic_owner_only_and_replaces_the_chosen_file() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("Runbook.pdf");
        write_atomically(&target, PDF).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), PDF);
        assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o600);
        write_atomically(&target, b"%PDF-2.0\nnewer\n").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"%PDF-2.0\nnewer\n");
        let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["Runbook.pdf"], "no temporary file is left behind");
    }

    #[test]
    fn a_failed_save_leaves_the_folder_as_it_was() {
        let tmp = tempfile::tempdir().unwrap();
        let folder_target = tmp.path().join("taken.pdf");
        std::fs::create_dir(&folder_target).unwrap();
        assert!(matches!(write_atomically(&folder_target, PDF), Err(BridgeError::Unavailable(_))));
        assert!(write_atomically(Path::new("relative.pdf"), PDF).is_err());
        assert!(write_atomically(&tmp.path().join("missing/x.pdf"), PDF).is_err());
        let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["taken.pdf"], "no temporary file is left behind");
    }
}
