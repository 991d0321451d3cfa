//! The disposable-restore verification worker: both sides of running [`verify_archive`] in a
//! separate process. The parent ([`verify_in_worker`]) creates a fresh private directory on the
//! data filesystem, starts the worker (the Relay binary re-executed in its hidden worker mode,
//! in its own process group, with a cleared environment, dying with its parent through
//! `PR_SET_PDEATHSIG`, so a crashed server never leaves one running) and hands it the paths over an
//! inherited socket on fd 3, never argv or the environment; it relays progress lines, kills the
//! whole process group at the deadline and waits for the exit before it deletes the directory.
//! The child ([`serve_child`]) refuses to run unless fd 3 is a socket whose peer is its own
//! parent process and user (`SO_PEERCRED`), takes one bounded request, drops what it may do
//! (no new privileges, no core dumps, few files), verifies, and answers with one result line.
//! It opens no listener, runs nothing from the archive and never touches the live store.

use std::fs;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::io::AsRawFd;
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use domain::backup::entries::ExtractionLimits;
use domain::backup::journal::stage_dir_name;

use super::verifier::{verify_archive, StatvfsFreeSpace, VerifyError};
use super::{Progress, ProgressSink};

/// The first argument that selects the hidden worker mode of a Relay executable (handled
/// before any other argument parsing, and useless without the parent's channel).
pub const WORKER_ARG: &str = "__relay-backup-worker";
/// The file descriptor the worker receives its channel on.
pub const CHANNEL_FD: i32 = 3;
/// The niceness backup work runs at (the worker process, and the thread writing an archive),
/// so requests keep their share of the CPU while a backup runs.
pub const BACKGROUND_NICE: libc::c_int = 10;
/// The deadline the parent gives a verification before killing the worker.
pub const VERIFY_DEADLINE: Duration = Duration::from_secs(120);
/// Largest request or reply line on the channel.
const MAX_LINE_BYTES: u64 = 64 * 1024;
/// How long the child waits for its request.
const REQUEST_DEADLINE: Duration = Duration::from_secs(10);

/// How to start the worker: the Relay binary and the arguments selecting its hidden mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
}

impl WorkerCommand {
    /// This executable in the mode selected by `args` (`relay backup-worker`, or the desktop's
    /// own flag).
    pub fn current_exe(args: &[&str]) -> io::Result<WorkerCommand> {
        Ok(WorkerCommand { program: std::env::current_exe()?, args: args.iter().map(|a| a.to_string()).collect() })
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkerRequest {
    archive: PathBuf,
    destination: PathBuf,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
enum WorkerLine {
    Progress {
        bytes_done: u64,
        bytes_total: u64,
        entries_done: usize,
        entries_total: usize,
    },
    Verified {
        entries: usize,
        extracted_bytes: u64,
        tables: usize,
        #[serde(default)]
        extract_ms: u64,
        #[serde(default)]
        check_ms: u64,
    },
    Failed {
        code: String,
    },
}

/// What a passing verification reports to the parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerVerified {
    pub entries: usize,
    pub extracted_bytes: u64,
    pub tables: usize,
    /// Milliseconds the worker spent extracting, then checking the database.
    pub extract_ms: u64,
    pub check_ms: u64,
}

/// Why a verification in the worker did not pass.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// The archive failed a check (the fixed text of the check).
    #[error("{0}")]
    Rejected(VerifyError),
    #[error("the verification worker did not finish within {0} s and was stopped")]
    TimedOut(u64),
    #[error("the verification worker failed ({0})")]
    Crashed(String),
    #[error("the verification worker could not be started: {0}")]
    Spawn(#[source] io::Error),
}

/// Runs `work` with the calling thread at [`BACKGROUND_NICE`] (Linux sets niceness per
/// thread), then tries to put the thread's previous niceness back (an unprivileged process may
/// be refused; the backup actor's blocking threads serve only backup work, so that is harmless).
pub fn in_background<T>(work: impl FnOnce() -> T) -> T {
    // SAFETY: gettid/getpriority/setpriority on this thread only; failures change nothing.
    let (tid, before) = unsafe {
        let tid = libc::gettid() as libc::id_t;
        (tid, libc::getpriority(libc::PRIO_PROCESS, tid))
    };
    // SAFETY: as above.
    unsafe { libc::setpriority(libc::PRIO_PROCESS, tid, BACKGROUND_NICE) };
    let result = work();
    // SAFETY: as above.
    unsafe { libc::setpriority(libc::PRIO_PROCESS, tid, before) };
    result
}

/// A private verification directory: `DATA/.relay-backup-verify-<random>` (0700, new).
pub fn create_destination(data_root: &Path) -> io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let name = stage_dir_name(&crate::ids::client_id()).map_err(|e| io::Error::other(e.to_string()))?;
    let root = fs::canonicalize(data_root)?;
    let destination = root.join(name);
    fs::DirBuilder::new().mode(0o700).create(&destination)?;
    Ok(destination)
}

/// Verifies `archive` in a worker process: extraction into a fresh private directory under
/// `data_root`, which is deleted after the worker has exited unless `keep` (a restore stage)
/// and the verification passed; then its path is returned too.
pub fn verify_in_worker(
    command: &WorkerCommand,
    archive: &Path,
    data_root: &Path,
    deadline: Duration,
    keep: bool,
    progress: &mut dyn ProgressSink,
) -> Result<(WorkerVerified, Option<PathBuf>), WorkerError> {
    let destination = create_destination(data_root).map_err(WorkerError::Spawn)?;
    let started = Instant::now();
    let result = run_worker(command, archive, &destination, deadline, progress);
    if let Ok(v) = &result {
        let total_ms = started.elapsed().as_millis() as u64;
        tracing::info!(total_ms, extract_ms = v.extract_ms, check_ms = v.check_ms, "backup verified in the worker");
    }
    if result.is_ok() && keep {
        return result.map(|v| (v, Some(destination)));
    }
    if let Err(e) = fs::remove_dir_all(&destination) {
        tracing::warn!(error = %e, "could not remove a backup verification directory");
    }
    result.map(|v| (v, None))
}

fn run_worker(
    command: &WorkerCommand,
    archive: &Path,
    destination: &Path,
    deadline: Duration,
    progress: &mut dyn ProgressSink,
) -> Result<WorkerVerified, WorkerError> {
    let started = Instant::now();
    let (mut parent, child_end) = UnixStream::pair().map_err(WorkerError::Spawn)?;
    let child_fd = child_end.as_raw_fd();
    // SAFETY: getpid has no preconditions.
    let parent_pid = unsafe { libc::getpid() };
    let mut cmd = Command::new(&command.program);
    cmd.args(&command.args).env_clear().stdin(Stdio::null()).stdout(Stdio::null()).process_group(0);
    #[cfg(debug_assertions)]
    if let Some(fault) = std::env::var_os("RELAY_TEST_FAULT") {
        cmd.env("RELAY_TEST_FAULT", fault);
    }
    // SAFETY: only async-signal-safe calls (setpriority, prctl, getppid, dup2, fcntl) between
    // fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            // Verification yields the CPU to request handling (best effort).
            libc::setpriority(libc::PRIO_PROCESS, 0, BACKGROUND_NICE);
            // A parent that dies (even by SIGKILL) takes the worker with it; the spawning thread
            // waits for the worker, so it outlives it in every normal run.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) < 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::getppid() != parent_pid {
                return Err(io::Error::other("the parent exited before the worker started"));
            }
            if libc::dup2(child_fd, CHANNEL_FD) < 0 {
                return Err(io::Error::last_os_error());
            }
            let flags = libc::fcntl(CHANNEL_FD, libc::F_GETFD);
            if flags < 0 || libc::fcntl(CHANNEL_FD, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().map_err(WorkerError::Spawn)?;
    drop(child_end);
    let pgid = child.id() as i32;
    let outcome = converse(&mut parent, archive, destination, started, deadline, progress);
    if outcome.is_err() {
        // SAFETY: kill has no memory preconditions; a negative pid addresses the worker's group.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
    }
    let status = child.wait().map_err(WorkerError::Spawn)?;
    let verified = outcome?;
    if !status.success() {
        return Err(WorkerError::Crashed(describe(status)));
    }
    Ok(verified)
}

fn describe(status: std::process::ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        _ => "unknown exit".into(),
    }
}

/// Sends the request and reads lines until the result, the end of the stream or the deadline.
fn converse(
    parent: &mut UnixStream,
    archive: &Path,
    destination: &Path,
    started: Instant,
    deadline: Duration,
    progress: &mut dyn ProgressSink,
) -> Result<WorkerVerified, WorkerError> {
    let timed_out = || WorkerError::TimedOut(deadline.as_secs().max(1));
    let request = WorkerRequest { archive: archive.to_path_buf(), destination: destination.to_path_buf() };
    let mut line = serde_json::to_vec(&request).map_err(|e| WorkerError::Crashed(e.to_string()))?;
    line.push(b'\n');
    parent.set_write_timeout(Some(deadline)).map_err(WorkerError::Spawn)?;
    parent.write_all(&line).map_err(|e| WorkerError::Crashed(format!("request not delivered: {e}")))?;
    let mut reader = BufReader::new(parent.try_clone().map_err(WorkerError::Spawn)?);
    loop {
        let left = deadline.checked_sub(started.elapsed()).filter(|d| !d.is_zero()).ok_or_else(timed_out)?;
        reader.get_ref().set_read_timeout(Some(left)).map_err(WorkerError::Spawn)?;
        let mut buf = Vec::new();
        match (&mut reader).take(MAX_LINE_BYTES).read_until(b'\n', &mut buf) {
            Ok(0) => return Err(WorkerError::Crashed("the worker closed its channel without a result".into())),
            Ok(_) => {}
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                return Err(timed_out())
            }
            Err(e) => return Err(WorkerError::Crashed(e.to_string())),
        }
        match serde_json::from_slice::<WorkerLine>(buf.trim_ascii_end()) {
            Ok(WorkerLine::Progress { bytes_done, bytes_total, entries_done, entries_total }) => {
                // The worker is extracting: a crash of the parent now must not leave it behind.
                crate::fault::fault_point("backup:verify:during:Extraction");
                progress.report(Progress { bytes_done, bytes_total, entries_done, entries_total })
            }
            Ok(WorkerLine::Verified { entries, extracted_bytes, tables, extract_ms, check_ms }) => {
                return Ok(WorkerVerified { entries, extracted_bytes, tables, extract_ms, check_ms })
            }
            Ok(WorkerLine::Failed { code }) => {
                return Err(VerifyError::from_code(&code)
                    .map(WorkerError::Rejected)
                    .unwrap_or_else(|| WorkerError::Crashed("the worker reported an unknown failure".into())))
            }
            Err(_) => return Err(WorkerError::Crashed("the worker wrote an invalid line".into())),
        }
    }
}

/// Why the worker mode refused to run.
#[derive(Debug, thiserror::Error)]
pub enum ChildRefused {
    #[error("the backup worker runs only when started by Relay itself")]
    NotOurParent,
    #[error("the backup worker received no valid request")]
    BadRequest,
}

/// A Relay executable's `main` calls this first: when started as the worker, it serves and
/// returns the exit code (0 passed, 1 failed, 2 refused to run); otherwise `None`.
pub fn run_if_worker() -> Option<i32> {
    if std::env::args_os().nth(1).as_deref() != Some(std::ffi::OsStr::new(WORKER_ARG)) {
        return None;
    }
    Some(match serve_child() {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(e) => {
            eprintln!("relay: {e}");
            2
        }
    })
}

/// The worker's side: checks the channel, verifies, reports. Returns whether the archive passed
/// (the caller exits 0 or 1); a refusal to run at all is an error (the caller exits 2).
pub fn serve_child() -> Result<bool, ChildRefused> {
    let mut channel = inherited_channel()?;
    harden();
    channel.set_read_timeout(Some(REQUEST_DEADLINE)).map_err(|_| ChildRefused::BadRequest)?;
    let mut line = Vec::new();
    BufReader::new((&channel).take(MAX_LINE_BYTES))
        .read_until(b'\n', &mut line)
        .map_err(|_| ChildRefused::BadRequest)?;
    let request: WorkerRequest = serde_json::from_slice(line.trim_ascii_end()).map_err(|_| ChildRefused::BadRequest)?;
    test_fault("verify:stall");
    let mut send = |line: &WorkerLine| {
        let mut bytes = serde_json::to_vec(line).unwrap_or_default();
        bytes.push(b'\n');
        let _ = channel.write_all(&bytes);
    };
    let mut last_sent = Instant::now() - Duration::from_secs(1);
    let mut report = |p: Progress| {
        let done = p.entries_done == p.entries_total && p.bytes_done == p.bytes_total;
        if done || last_sent.elapsed() >= Duration::from_millis(200) {
            last_sent = Instant::now();
            let Progress { bytes_done, bytes_total, entries_done, entries_total } = p;
            send(&WorkerLine::Progress { bytes_done, bytes_total, entries_done, entries_total });
        }
    };
    let limits = ExtractionLimits::default();
    let result = verify_archive(&request.archive, &request.destination, &limits, &StatvfsFreeSpace, &mut report);
    let (line, passed) = match result {
        Ok(v) => (
            WorkerLine::Verified {
                entries: v.entries,
                extracted_bytes: v.extracted_bytes,
                tables: v.tables.len(),
                extract_ms: v.extract_ms,
                check_ms: v.check_ms,
            },
            true,
        ),
        Err(e) => (WorkerLine::Failed { code: e.code().to_string() }, false),
    };
    send(&line);
    Ok(passed)
}

/// fd 3 must be a Unix socket whose peer is this process's parent, running as this user.
fn inherited_channel() -> Result<UnixStream, ChildRefused> {
    use std::os::unix::io::FromRawFd;
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat writes into `stat`; an invalid fd just fails.
    if unsafe { libc::fstat(CHANNEL_FD, &mut stat) } != 0 || stat.st_mode & libc::S_IFMT != libc::S_IFSOCK {
        return Err(ChildRefused::NotOurParent);
    }
    let mut cred = libc::ucred { pid: 0, uid: 0, gid: 0 };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `cred`.
    let got = unsafe {
        libc::getsockopt(
            CHANNEL_FD,
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    // SAFETY: getppid and geteuid have no preconditions.
    let (parent, me) = unsafe { (libc::getppid(), libc::geteuid()) };
    if got != 0 || cred.pid != parent || cred.uid != me {
        return Err(ChildRefused::NotOurParent);
    }
    // SAFETY: fd 3 is an open socket (checked above) that nothing else in this process owns.
    Ok(unsafe { UnixStream::from_raw_fd(CHANNEL_FD) })
}

/// No privilege gain through exec, no core dumps of extracted data, few open files.
fn harden() {
    // SAFETY: prctl/setrlimit with valid arguments; failures only leave defaults in place.
    unsafe {
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        let none = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        libc::setrlimit(libc::RLIMIT_CORE, &none);
        let files = libc::rlimit { rlim_cur: 64, rlim_max: 64 };
        libc::setrlimit(libc::RLIMIT_NOFILE, &files);
    }
}

/// Debug builds only: stalls forever when `RELAY_TEST_FAULT` names this point (the deadline
/// test); compiled out of release builds.
fn test_fault(point: &str) {
    #[cfg(debug_assertions)]
    if std::env::var("RELAY_TEST_FAULT").as_deref() == Ok(point) {
        loop {
            std::thread::sleep(Duration::from_secs(60));
        }
    }
    let _ = point;
}

#[cfg(test)]
#[path = "worker_tests.rs"]
mod tests;
