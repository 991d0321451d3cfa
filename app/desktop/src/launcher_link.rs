//! The desktop end of the recovery launcher's health link (issue #14 item 5; the other end is
//! `relay-launcher`). A candidate on probation is started with the write end of a pipe as fd 3,
//! `RELAY_LAUNCHER_FD=3` and `RELAY_LAUNCHER_TRANSACTION=<UUID v4, lowercase>`. At start this
//! module takes both variables out of the process environment (so nothing the desktop starts
//! inherits them), checks them and the fd (exactly 3, an open pipe or FIFO that can be written),
//! marks fd 3 close-on-exec and owns it. Its link thread then writes fixed ASCII lines of at most
//! 64 bytes: `mounted <txn>` once, when the renderer has called `shell_mounted` and local
//! start-up has completed, then every 5 s `healthy <txn>` or `unhealthy <txn>` from the relevant
//! data plane (`Bridge::data_plane_healthy`). It writes nothing else (no paths, no data), never
//! reads from the launcher and decides nothing: promotion and rollback are the launcher's. A
//! broken pipe (the launcher gone or done) ends the link quietly. Without a valid link nothing
//! changes; with one the process is on probation (`guards`: a fatal failure neither relaunches
//! nor asks, it quits). Logs never carry the variables' values or the transaction.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Write;
use std::os::fd::{FromRawFd, RawFd};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::bridge::{Access, Bridge, BridgeError, Command};

/// Names the inherited fd of the link; the only accepted value is `3`.
pub const FD_ENV: &str = "RELAY_LAUNCHER_FD";
/// The probation transaction the launcher started this candidate for (lowercase UUID v4).
pub const TRANSACTION_ENV: &str = "RELAY_LAUNCHER_TRANSACTION";
/// The only fd the link may use.
pub const LINK_FD: RawFd = 3;
/// No line of the link is longer (well under `PIPE_BUF`, so each write is atomic).
pub const MAX_LINE_BYTES: usize = 64;

/// The link's timing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkTiming {
    /// Between two health lines (the contract: 5 s).
    pub heartbeat: Duration,
    /// How long one health probe may take before it counts as unhealthy (3 s).
    pub probe_timeout: Duration,
}

impl Default for LinkTiming {
    fn default() -> Self {
        LinkTiming { heartbeat: Duration::from_secs(5), probe_timeout: Duration::from_secs(3) }
    }
}

/// A checked transaction id: a UUID version 4 (RFC 9562 variant), lowercase hex with hyphens.
/// Its `Debug` form hides the value (logs omit transaction ids).
#[derive(Clone, PartialEq, Eq)]
pub struct Transaction(String);

impl std::fmt::Debug for Transaction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Transaction(..)")
    }
}

impl Transaction {
    pub fn parse(raw: &OsStr) -> Option<Transaction> {
        let s = raw.to_str()?;
        let b = s.as_bytes();
        if b.len() != 36 {
            return None;
        }
        let shape = b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_digit() || (b'a'..=b'f').contains(&c),
        });
        (shape && b[14] == b'4' && matches!(b[19], b'8' | b'9' | b'a' | b'b')).then(|| Transaction(s.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Why a link offered by the environment is ignored (logged without any value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    MissingFd,
    MissingTransaction,
    FdNotThree,
    BadTransaction,
    /// fd 3 is not open.
    NotOpen,
    /// fd 3 is open but not a pipe or FIFO.
    NotAPipe,
    /// fd 3 is a pipe's read end.
    NotWritable,
    /// FD_CLOEXEC could not be set.
    NoCloexec,
}

impl Refusal {
    pub fn reason(self) -> &'static str {
        match self {
            Refusal::MissingFd => "RELAY_LAUNCHER_TRANSACTION without RELAY_LAUNCHER_FD",
            Refusal::MissingTransaction => "RELAY_LAUNCHER_FD without RELAY_LAUNCHER_TRANSACTION",
            Refusal::FdNotThree => "RELAY_LAUNCHER_FD is not 3",
            Refusal::BadTransaction => "RELAY_LAUNCHER_TRANSACTION is not a lowercase UUID v4",
            Refusal::NotOpen => "fd 3 is not open",
            Refusal::NotAPipe => "fd 3 is not a pipe",
            Refusal::NotWritable => "fd 3 is not writable",
            Refusal::NoCloexec => "fd 3 could not be made close-on-exec",
        }
    }
}

/// One line of the link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// The renderer mounted the signed-in shell and local start-up completed (written once).
    Mounted,
    /// The relevant data plane is healthy (every heartbeat while it is).
    Healthy,
    /// The relevant data plane is not healthy (every heartbeat while it is not).
    Unhealthy,
}

impl Line {
    fn word(self) -> &'static str {
        match self {
            Line::Mounted => "mounted",
            Line::Healthy => "healthy",
            Line::Unhealthy => "unhealthy",
        }
    }

    /// The exact bytes of this line for `txn`: `<word> <txn>\n`.
    pub fn render(self, txn: &Transaction) -> String {
        let line = format!("{} {}\n", self.word(), txn.as_str());
        debug_assert!(line.len() <= MAX_LINE_BYTES && line.is_ascii());
        line
    }
}

/// What start-up found in the environment.
#[derive(Debug)]
pub enum Found {
    /// A normal start: neither variable.
    Absent,
    /// A link was offered but is ignored; the app runs as on a normal start.
    Refused(Refusal),
    /// A valid link: the process is on probation.
    Link(LauncherLink),
}

impl Found {
    /// Logs the outcome (call once logging is up). Values never appear.
    pub fn log(&self) {
        match self {
            Found::Absent => {}
            Found::Refused(r) => {
                tracing::warn!(target: "relay::security", "launcher link ignored: {}", r.reason())
            }
            Found::Link(_) => tracing::info!("launcher link present: on probation (the recovery launcher decides)"),
        }
    }

    pub fn on_probation(&self) -> bool {
        matches!(self, Found::Link(_))
    }

    pub fn into_link(self) -> Option<LauncherLink> {
        match self {
            Found::Link(link) => Some(link),
            Found::Absent | Found::Refused(_) => None,
        }
    }
}

/// Takes both variables out of the process environment and returns their values. Call before
/// any thread starts (the environment is process-global).
pub fn take_vars() -> (Option<OsString>, Option<OsString>) {
    let values = (std::env::var_os(FD_ENV), std::env::var_os(TRANSACTION_ENV));
    std::env::remove_var(FD_ENV);
    std::env::remove_var(TRANSACTION_ENV);
    values
}

/// The variables' rule: neither (no link), or `3` and a lowercase UUID v4.
pub fn check_vars(fd: Option<&OsStr>, txn: Option<&OsStr>) -> Result<Option<Transaction>, Refusal> {
    match (fd, txn) {
        (None, None) => Ok(None),
        (None, Some(_)) => Err(Refusal::MissingFd),
        (Some(_), None) => Err(Refusal::MissingTransaction),
        (Some(fd), Some(txn)) => {
            if fd != OsStr::new("3") {
                return Err(Refusal::FdNotThree);
            }
            Transaction::parse(txn).map(Some).ok_or(Refusal::BadTransaction)
        }
    }
}

/// `fd` is open, a pipe or FIFO (`S_ISFIFO`), and open for writing.
pub fn check_pipe_fd(fd: RawFd) -> Result<(), Refusal> {
    // SAFETY: fstat writes into the zeroed struct we own; an invalid fd only returns -1.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(Refusal::NotOpen);
    }
    if st.st_mode & libc::S_IFMT != libc::S_IFIFO {
        return Err(Refusal::NotAPipe);
    }
    // SAFETY: F_GETFL reads the fd's status flags; no memory is passed.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(Refusal::NotOpen);
    }
    match flags & libc::O_ACCMODE {
        libc::O_WRONLY | libc::O_RDWR => Ok(()),
        _ => Err(Refusal::NotWritable),
    }
}

fn set_cloexec(fd: RawFd) -> Result<(), Refusal> {
    // SAFETY: F_GETFD/F_SETFD read and set the fd's flags; no memory is passed.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC) } < 0 {
        return Err(Refusal::NoCloexec);
    }
    Ok(())
}

/// The start-up check over the variables' values with the link at `fd` (`LINK_FD` in the app;
/// any pipe in the tests). When `RELAY_LAUNCHER_FD` says 3 and `fd` is a pipe, `fd` becomes
/// close-on-exec even if the link is refused, so no child holds the launcher's pipe open; a
/// refused link is otherwise left alone (nothing is written to it and it is not closed).
pub fn open_at(fd_var: Option<&OsStr>, txn_var: Option<&OsStr>, fd: RawFd) -> Found {
    let txn = match check_vars(fd_var, txn_var) {
        Ok(None) => return Found::Absent,
        Ok(Some(txn)) => Ok(txn),
        Err(r) => Err(r),
    };
    // Whatever the verdict on the transaction, a pipe the launcher named as fd 3 is kept from
    // children.
    let pipe = if fd_var == Some(OsStr::new("3")) {
        check_pipe_fd(fd).and_then(|()| set_cloexec(fd))
    } else {
        Err(Refusal::FdNotThree)
    };
    match (txn, pipe) {
        (Err(r), _) | (Ok(_), Err(r)) => Found::Refused(r),
        (Ok(txn), Ok(())) => {
            // SAFETY: `fd` is open (checked above) and nothing else in this process owns it: it
            // was inherited, and from here on only this `File` uses or closes it.
            let out = unsafe { File::from_raw_fd(fd) };
            Found::Link(LauncherLink { out, txn })
        }
    }
}

/// At start, before any thread: takes the variables out of the environment and checks the link
/// on fd 3.
pub fn take_from_env() -> Found {
    let (fd, txn) = take_vars();
    open_at(fd.as_deref(), txn.as_deref(), LINK_FD)
}

#[derive(Debug, Default)]
struct Progress {
    renderer_mounted: bool,
    startup_complete: bool,
    stopped: bool,
}

impl Progress {
    /// `mounted` may be written, or the link was stopped: the first wait is over.
    fn ready_or_stopped(&self) -> bool {
        self.stopped || (self.renderer_mounted && self.startup_complete)
    }
}

/// What the link thread waits on: the renderer's mount, start-up completion, or a stop.
#[derive(Debug, Default)]
pub struct LinkSignals {
    progress: Mutex<Progress>,
    changed: Condvar,
}

impl LinkSignals {
    fn update(&self, f: impl FnOnce(&mut Progress)) {
        f(&mut self.progress.lock().unwrap_or_else(|p| p.into_inner()));
        self.changed.notify_all();
    }

    /// `shell_mounted`: the renderer mounted the signed-in shell (idempotent).
    pub fn renderer_mounted(&self) {
        self.update(|p| p.renderer_mounted = true);
    }

    /// The shell finished its own start-up (backend up, main window built; idempotent).
    pub fn startup_complete(&self) {
        self.update(|p| p.startup_complete = true);
    }

    /// Ends the link thread at its next wait.
    pub fn stop(&self) {
        self.update(|p| p.stopped = true);
    }

    /// Blocks until both signals arrived (true) or the link was stopped (false).
    fn wait_until_mounted(&self) -> bool {
        let guard = self.progress.lock().unwrap_or_else(|p| p.into_inner());
        let guard = self.changed.wait_while(guard, |p| !p.ready_or_stopped()).unwrap_or_else(|p| p.into_inner());
        !guard.stopped
    }

    /// Waits `d` unless stopped meanwhile; false when stopped.
    fn pause(&self, d: Duration) -> bool {
        let guard = self.progress.lock().unwrap_or_else(|p| p.into_inner());
        let (guard, _) = self.changed.wait_timeout_while(guard, d, |p| !p.stopped).unwrap_or_else(|p| p.into_inner());
        !guard.stopped
    }
}

/// The link as the shell's managed state: the signals when a link exists, else nothing (every
/// call is then a no-op and the app runs as on a normal start).
#[derive(Debug, Clone, Default)]
pub struct LinkState(Option<Arc<LinkSignals>>);

impl LinkState {
    pub fn with(signals: Arc<LinkSignals>) -> LinkState {
        LinkState(Some(signals))
    }

    pub fn renderer_mounted(&self) {
        if let Some(s) = &self.0 {
            s.renderer_mounted();
        }
    }

    pub fn startup_complete(&self) {
        if let Some(s) = &self.0 {
            s.startup_complete();
        }
    }

    pub fn stop(&self) {
        if let Some(s) = &self.0 {
            s.stop();
        }
    }
}

/// How a link ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// A write failed (broken pipe: the launcher closed its end).
    LauncherGone,
    /// The shell stopped the link.
    Stopped,
}

/// A valid link: the owned write end and the transaction.
#[derive(Debug)]
pub struct LauncherLink {
    out: File,
    txn: Transaction,
}

impl LauncherLink {
    /// Starts the link thread (`relay-launcher-link`). `probe` answers whether the relevant data
    /// plane is healthy; it runs on that thread once per heartbeat.
    pub fn start(
        self,
        signals: Arc<LinkSignals>,
        timing: LinkTiming,
        probe: impl FnMut() -> bool + Send + 'static,
    ) -> std::io::Result<std::thread::JoinHandle<Ended>> {
        let LauncherLink { out, txn } = self;
        std::thread::Builder::new().name("relay-launcher-link".into()).spawn(move || {
            let ended = run(out, &txn, &signals, timing, probe);
            match ended {
                Ended::LauncherGone => tracing::info!("launcher link closed by the launcher"),
                Ended::Stopped => tracing::debug!("launcher link stopped"),
            }
            ended
        })
    }
}

fn write_line(out: &mut impl Write, line: Line, txn: &Transaction) -> Result<(), Ended> {
    // One write of at most 64 bytes: atomic on a pipe. Any failure means the launcher is gone.
    out.write_all(line.render(txn).as_bytes()).and_then(|()| out.flush()).map_err(|_| Ended::LauncherGone)
}

/// The link: waits for the renderer's mount and start-up completion, writes `mounted` once, then
/// a health line every heartbeat until a write fails or the link is stopped.
pub fn run(
    mut out: impl Write,
    txn: &Transaction,
    signals: &LinkSignals,
    timing: LinkTiming,
    mut probe: impl FnMut() -> bool,
) -> Ended {
    if !signals.wait_until_mounted() {
        return Ended::Stopped;
    }
    if let Err(ended) = write_line(&mut out, Line::Mounted, txn) {
        return ended;
    }
    loop {
        let line = if probe() { Line::Healthy } else { Line::Unhealthy };
        if let Err(ended) = write_line(&mut out, line, txn) {
            return ended;
        }
        if !signals.pause(timing.heartbeat) {
            return Ended::Stopped;
        }
    }
}

/// The production probe: `Bridge::data_plane_healthy` on Tauri's async runtime, bounded by
/// `timing.probe_timeout` (a probe that takes longer counts as unhealthy).
pub fn bridge_probe<R: tauri::Runtime>(app: tauri::AppHandle<R>, timing: LinkTiming) -> impl FnMut() -> bool + Send {
    use tauri::Manager;
    move || {
        let app = app.clone();
        tauri::async_runtime::block_on(async move {
            let bridge = app.state::<Bridge>();
            tokio::time::timeout(timing.probe_timeout, bridge.data_plane_healthy()).await.unwrap_or(false)
        })
    }
}

/// `shell_mounted`: main window only, no arguments, idempotent, answers nothing.
pub const SHELL_MOUNTED: Command = Command::new("shell_mounted", Access::MainOnly);

/// `shell_mounted`: the renderer's signed-in shell has mounted (the link's `mounted` waits for
/// it). Without a link it does nothing.
#[tauri::command]
pub async fn shell_mounted<R: tauri::Runtime>(
    webview: tauri::Webview<R>,
    bridge: tauri::State<'_, Bridge>,
    link: tauri::State<'_, LinkState>,
) -> Result<(), BridgeError> {
    crate::bridge::caller(SHELL_MOUNTED, &webview, &bridge)?;
    if link.0.is_some() {
        tracing::info!("the renderer reported the shell mounted");
    }
    link.renderer_mounted();
    Ok(())
}

#[cfg(test)]
mod tests;
