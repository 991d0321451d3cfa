//! The parent's side of a worker run: [`spawn_worker`] starts the worker (own process group,
//! cleared environment, dying with its parent through `PR_SET_PDEATHSIG`, niced, under the
//! mode's [`ResourceLimits`], the channel dup'ed onto fd 3), sends one request line, relays
//! progress lines, returns the reply line, and at the deadline (or on any channel failure)
//! kills the whole process group; it always waits for the worker's exit before returning, so
//! a caller may delete the worker's files right after. It decides nothing about the reply
//! and never reads more than the spec's line bound per line.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::io::AsRawFd;
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{ChannelError, ResourceLimits, WorkerCommand, WorkerSpec, CHANNEL_FD};

/// One line from the worker: progress (any number) or the reply (last).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum WorkerLine<P, R> {
    Progress(P),
    Reply(R),
}

/// A worker's reply and how the worker then exited.
#[derive(Debug)]
pub struct WorkerExit<R> {
    pub reply: R,
    pub status: ExitStatus,
}

/// Runs `command` as a worker under `spec`, sends `request`, hands each progress line to
/// `on_progress` and returns the reply once the worker has exited. A worker that misses the
/// deadline, closes its channel without a reply or writes an invalid or oversized line is
/// killed with its whole process group.
pub fn spawn_worker<Q: Serialize, P: DeserializeOwned, R: DeserializeOwned>(
    command: &WorkerCommand,
    request: &Q,
    spec: &WorkerSpec,
    on_progress: &mut dyn FnMut(P),
) -> Result<WorkerExit<R>, ChannelError> {
    let started = Instant::now();
    let mut line = serde_json::to_vec(request).map_err(|e| ChannelError::Crashed(e.to_string()))?;
    line.push(b'\n');
    let (mut parent, child_end) = UnixStream::pair().map_err(ChannelError::Spawn)?;
    let child_fd = child_end.as_raw_fd();
    // SAFETY: getpid has no preconditions.
    let parent_pid = unsafe { libc::getpid() };
    let mut cmd = Command::new(&command.program);
    cmd.args(&command.args).env_clear().stdin(Stdio::null()).stdout(Stdio::null()).process_group(0);
    #[cfg(debug_assertions)]
    if let Some(fault) = std::env::var_os(crate::fault::FAULT_ENV) {
        cmd.env(crate::fault::FAULT_ENV, fault);
    }
    let (nice, idle_class) = (spec.nice, spec.idle_class);
    let limits = spec.limits;
    // SAFETY: only async-signal-safe calls (setpriority, sched_setscheduler, prctl, getppid, dup2, fcntl,
    // setrlimit) between fork and exec; nothing allocates.
    unsafe {
        cmd.pre_exec(move || {
            // Background work yields the CPU to request handling (best effort).
            libc::setpriority(libc::PRIO_PROCESS, 0, nice);
            if idle_class {
                super::enter_idle_class();
            }
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
            apply_limits(&limits)
        });
    }
    let mut child = cmd.spawn().map_err(ChannelError::Spawn)?;
    drop(child_end);
    let pgid = child.id() as i32;
    let outcome = converse(&mut parent, &line, started, spec, on_progress);
    if outcome.is_err() {
        // SAFETY: kill has no memory preconditions; a negative pid addresses the worker's group
        // (the worker and anything it started, e.g. a renderer).
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
    }
    let status = child.wait().map_err(ChannelError::Spawn)?;
    Ok(WorkerExit { reply: outcome?, status })
}

/// Sets the worker's kernel limits (called between fork and exec: async-signal-safe only).
fn apply_limits(limits: &ResourceLimits) -> io::Result<()> {
    let set = |resource: libc::__rlimit_resource_t, value: u64| {
        let limit = libc::rlimit { rlim_cur: value as libc::rlim_t, rlim_max: value as libc::rlim_t };
        // SAFETY: setrlimit reads `limit` only.
        if unsafe { libc::setrlimit(resource, &limit) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    };
    // SAFETY: prctl with constant arguments.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    set(libc::RLIMIT_CORE, 0)?;
    set(libc::RLIMIT_NOFILE, limits.open_files)?;
    if let Some(bytes) = limits.address_space_bytes {
        set(libc::RLIMIT_AS, bytes)?;
    }
    if let Some(seconds) = limits.cpu_seconds {
        set(libc::RLIMIT_CPU, seconds)?;
    }
    if let Some(bytes) = limits.file_size_bytes {
        set(libc::RLIMIT_FSIZE, bytes)?;
    }
    Ok(())
}

/// A short description of how a worker exited (for logs and `Crashed`).
pub fn describe_exit(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        _ => "unknown exit".into(),
    }
}

/// Sends the request line and reads lines until the reply, the end of the stream or the
/// deadline.
fn converse<P: DeserializeOwned, R: DeserializeOwned>(
    parent: &mut UnixStream,
    request_line: &[u8],
    started: Instant,
    spec: &WorkerSpec,
    on_progress: &mut dyn FnMut(P),
) -> Result<R, ChannelError> {
    let deadline = spec.deadline;
    let timed_out = || ChannelError::TimedOut(deadline.as_secs().max(1));
    parent.set_write_timeout(Some(deadline.max(Duration::from_millis(1)))).map_err(ChannelError::Spawn)?;
    parent.write_all(request_line).map_err(|e| ChannelError::Crashed(format!("request not delivered: {e}")))?;
    let mut reader = BufReader::new(parent.try_clone().map_err(ChannelError::Spawn)?);
    loop {
        let left = deadline.checked_sub(started.elapsed()).filter(|d| !d.is_zero()).ok_or_else(timed_out)?;
        reader.get_ref().set_read_timeout(Some(left)).map_err(ChannelError::Spawn)?;
        let mut buf = Vec::new();
        match (&mut reader).take(spec.max_line_bytes).read_until(b'\n', &mut buf) {
            Ok(0) => return Err(ChannelError::Crashed("the worker closed its channel without a result".into())),
            Ok(_) if buf.last() != Some(&b'\n') => {
                return Err(ChannelError::Crashed("the worker wrote an oversized or unfinished line".into()))
            }
            Ok(_) => {}
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                return Err(timed_out())
            }
            Err(e) => return Err(ChannelError::Crashed(e.to_string())),
        }
        match serde_json::from_slice::<WorkerLine<P, R>>(buf.trim_ascii_end()) {
            Ok(WorkerLine::Progress(p)) => on_progress(p),
            Ok(WorkerLine::Reply(r)) => return Ok(r),
            Err(_) => return Err(ChannelError::Crashed("the worker wrote an invalid line".into())),
        }
    }
}
