//! Process guards of the desktop shell (Electron's `errorHandlers` equivalent). One panic hook
//! writes a redacted, single-line report, then applies `domain::stability`: a panic on the UI
//! thread or in the in-process server's thread is fatal (a packaged build with relaunch enabled
//! relaunches once; otherwise a blocking Quit / Continue dialog, or a plain quit when the UI
//! thread itself is the one that failed; on probation under the recovery launcher, see
//! `launcher_link`, a plain quit: no relaunch, no dialog, the launcher decides); a panic anywhere else (a supervised actor, a command
//! task) is a recoverable failure, and repeated ones inside the rolling window raise a stability
//! warning the renderer reads through the `stability_status` bridge command. The OS-facing
//! effects sit behind `Effects` so the decisions are tested without a window.

use std::sync::{Mutex, OnceLock};

use domain::secret_policy::BuildKind;
use domain::stability::{classify_panic, fatal_action, FailureKind, FailureWindow, FatalAction, RELAUNCHED_ENV};
use serde::Serialize;

/// The redacted one-line form of a panic payload.
pub fn describe_panic(payload: &(dyn std::any::Any + Send), location: Option<String>) -> String {
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".into());
    let msg = domain::redact::escape_line_breaks(&domain::redact::redact_text(&msg));
    match location {
        Some(at) => format!("{msg} at {at}"),
        None => msg,
    }
}

/// What the guards do to the outside world.
pub trait Effects: Send + Sync {
    /// Starts a new instance marked with `RELAUNCHED_ENV`; the caller exits afterwards.
    fn relaunch(&self) -> Result<(), String>;
    /// Shows the blocking Quit / Continue dialog; true means Quit. Never called on the UI thread.
    fn ask_quit(&self, report: &str) -> bool;
    /// Ends the process.
    fn exit(&self, code: i32);
}

/// What one panic led to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Relaunched,
    Quit,
    Continued,
    /// A recoverable failure that raised the stability warning.
    Warned,
    /// A recoverable failure counted inside the window.
    Counted,
}

/// The stability view the renderer polls.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StabilityStatus {
    /// Recoverable failures since start.
    pub failures: u64,
    /// When the last stability warning was raised (ms since the epoch).
    pub warning_at_ms: Option<u64>,
}

#[derive(Debug, Clone, Copy)]
pub struct GuardConfig {
    pub build: BuildKind,
    pub relaunch_enabled: bool,
    pub already_relaunched: bool,
    /// A candidate on probation (`launcher_link`): a fatal failure quits at once.
    pub probation: bool,
}

pub struct Guards {
    config: GuardConfig,
    window: Mutex<(FailureWindow, StabilityStatus)>,
    effects: Box<dyn Effects>,
}

impl Guards {
    pub fn new(config: GuardConfig, effects: Box<dyn Effects>) -> Guards {
        Guards { config, window: Mutex::new((FailureWindow::default(), StabilityStatus::default())), effects }
    }

    /// Applies the policy to one panic on thread `thread` with its redacted `report`.
    pub fn on_panic(&self, thread: Option<&str>, report: &str, now_ms: u64) -> Outcome {
        match classify_panic(thread) {
            FailureKind::Recoverable => {
                let mut guard = self.window.lock().unwrap_or_else(|p| p.into_inner());
                let (window, status) = &mut *guard;
                status.failures += 1;
                if window.record(now_ms) {
                    status.warning_at_ms = Some(now_ms);
                    tracing::warn!(target: "relay::stability", failures = status.failures, "repeated failures: stability warning raised");
                    return Outcome::Warned;
                }
                Outcome::Counted
            }
            FailureKind::Fatal => {
                let c = self.config;
                if c.probation {
                    // Neither a relaunch nor a dialog that would hold a failed candidate open:
                    // the recovery launcher sees the exit and rolls back.
                    tracing::error!(target: "relay::stability", "fatal failure on probation: quitting");
                    self.effects.exit(1);
                    return Outcome::Quit;
                }
                if fatal_action(c.build, c.relaunch_enabled, c.already_relaunched) == FatalAction::RelaunchOnce {
                    match self.effects.relaunch() {
                        Ok(()) => {
                            tracing::error!(target: "relay::stability", "fatal failure: relaunching once");
                            self.effects.exit(70);
                            return Outcome::Relaunched;
                        }
                        Err(e) => tracing::error!(target: "relay::stability", error = %e, "relaunch failed"),
                    }
                }
                // The dialog needs the UI thread's event loop, so a UI-thread failure cannot ask.
                let quit = thread == Some("main") || self.effects.ask_quit(report);
                if quit {
                    tracing::error!(target: "relay::stability", "fatal failure: quitting");
                    self.effects.exit(1);
                    Outcome::Quit
                } else {
                    tracing::warn!(target: "relay::stability", "fatal failure: the operator chose to continue");
                    Outcome::Continued
                }
            }
        }
    }

    pub fn status(&self) -> StabilityStatus {
        self.window.lock().unwrap_or_else(|p| p.into_inner()).1.clone()
    }
}

static GUARDS: OnceLock<Guards> = OnceLock::new();
static APP: OnceLock<tauri::AppHandle> = OnceLock::new();

/// The installed guards, for `stability_status`.
pub fn installed() -> Option<&'static Guards> {
    GUARDS.get()
}

/// Production effects: re-exec this binary, a GTK dialog on the UI thread, `process::exit`.
struct ProcessEffects;

impl Effects for ProcessEffects {
    fn relaunch(&self) -> Result<(), String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        std::process::Command::new(exe)
            .args(std::env::args_os().skip(1))
            .env(RELAUNCHED_ENV, "1")
            .spawn()
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn ask_quit(&self, report: &str) -> bool {
        let Some(app) = APP.get() else { return true };
        crate::fatal_dialog::ask_quit(app, report)
    }

    /// Ends the process at once. A fatal failure is handled off the UI thread while GTK and
    /// WebKit still run there; `process::exit` would run their exit-time destructors under them
    /// (a segfault, exit code 139, seen under Xvfb). Logs are written synchronously and the store
    /// commits in transactions (crash-safe to kill -9), so skipping exit handlers loses nothing.
    fn exit(&self, code: i32) {
        use std::io::Write;
        let _ = std::io::stderr().flush();
        let _ = std::io::stdout().flush();
        // SAFETY: `_exit` takes a plain integer and never returns; no Rust state is touched after.
        unsafe { libc::_exit(code) }
    }
}

/// Lets the guards show dialogs once the app exists.
pub fn attach_app(app: tauri::AppHandle) {
    let _ = APP.set(app);
}

/// `probation`: a valid launcher link is present (`launcher_link::Found::on_probation`).
pub fn install_panic_hook(build: BuildKind, relaunch_enabled: bool, probation: bool) {
    let already_relaunched = std::env::var_os(RELAUNCHED_ENV).is_some();
    let config = GuardConfig { build, relaunch_enabled, already_relaunched, probation };
    let _ = GUARDS.set(Guards::new(config, Box::new(ProcessEffects)));
    std::panic::set_hook(Box::new(|info| {
        let location = info.location().map(|l| format!("{}:{}", l.file(), l.line()));
        let thread = std::thread::current();
        let report = describe_panic(info.payload(), location);
        let name = thread.name().unwrap_or("unnamed");
        tracing::error!(target: "relay::panic", thread = %name, "panic: {report}");
        eprintln!("relay-desktop: panic in thread {name}: {report}");
        if let Some(guards) = GUARDS.get() {
            guards.on_panic(thread.name(), &report, crate::bridge::now_ms());
        }
    }));
}

/// `stability_status`: any bridge window; the recoverable-failure count and the last warning.
pub const STABILITY_STATUS: crate::bridge::Command =
    crate::bridge::Command::new("stability_status", crate::bridge::Access::AuxOk);

/// `stability_status`: the recoverable-failure count and the last stability warning.
#[tauri::command]
pub async fn stability_status<R: tauri::Runtime>(
    webview: tauri::Webview<R>,
    bridge: tauri::State<'_, crate::bridge::Bridge>,
) -> Result<StabilityStatus, crate::bridge::BridgeError> {
    crate::bridge::caller(STABILITY_STATUS, &webview, &bridge)?;
    Ok(installed().map(Guards::status).unwrap_or_default())
}

#[cfg(test)]
mod tests;
