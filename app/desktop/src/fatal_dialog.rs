//! The blocking Quit / Continue dialog shown after a fatal failure off the UI thread. GTK may
//! only be touched on the UI thread, so the dialog is run there (`run_on_main_thread`) and the
//! failing thread waits for the operator's answer (bounded; no answer means Quit). The text
//! carries only the redacted one-line panic report.

use std::sync::mpsc;
use std::time::Duration;

/// How long the failing thread waits for an answer before quitting.
const ANSWER_DEADLINE: Duration = Duration::from_secs(600);

/// True when the operator chose Quit (or nobody could be asked).
pub fn ask_quit(app: &tauri::AppHandle, report: &str) -> bool {
    let text = format!(
        "Relay hit an unexpected error and may not work correctly.\n\n{report}\n\nQuit Relay, or continue at your own risk?"
    );
    let (tx, rx) = mpsc::channel();
    if app
        .run_on_main_thread(move || {
            let _ = tx.send(show(&text));
        })
        .is_err()
    {
        return true;
    }
    rx.recv_timeout(ANSWER_DEADLINE).unwrap_or(true)
}

#[cfg(target_os = "linux")]
fn show(text: &str) -> bool {
    use gtk::prelude::*;
    let dialog = gtk::MessageDialog::new(
        None::<&gtk::Window>,
        gtk::DialogFlags::MODAL,
        gtk::MessageType::Error,
        gtk::ButtonsType::None,
        text,
    );
    dialog.set_title("Relay — unexpected error");
    dialog.add_button("Continue", gtk::ResponseType::Reject);
    dialog.add_button("Quit", gtk::ResponseType::Accept);
    dialog.set_default_response(gtk::ResponseType::Accept);
    let response = dialog.run();
    dialog.close();
    response != gtk::ResponseType::Reject
}

#[cfg(not(target_os = "linux"))]
fn show(_text: &str) -> bool {
    true
}
