//! Bounded worker processes: the Relay executable re-executed in a hidden mode (selected by its
//! first argument) to do one risky job on untrusted input (verifying a backup archive,
//! extracting a PDF) away from the server. This module owns the pattern both sides share: how
//! the parent starts a worker and talks to it ([`parent::spawn_worker`]: own process group,
//! cleared environment, `PR_SET_PDEATHSIG`, resource limits, paths over an inherited socket on
//! fd 3, bounded lines, progress, deadline kill of the whole group, wait before returning), how
//! the child accepts only its parent's channel ([`child::serve_child`]) and the dispatcher a
//! binary's `main` calls first ([`run_if_worker`]). It knows nothing about archives or PDFs: the
//! modes (`crate::backup::worker`, `crate::wiki::worker`) bring their request and reply types,
//! their limits and their handler. It never passes data through argv or the environment and
//! never lets a worker outlive its parent.

pub mod child;
pub mod parent;

use std::io;
use std::path::PathBuf;
use std::time::Duration;

pub use child::{serve_child, ChildRefused};
pub use parent::{describe_exit, spawn_worker, WorkerExit};

/// The file descriptor a worker receives its channel on.
pub const CHANNEL_FD: i32 = 3;
/// Largest request line a worker accepts (requests carry paths and small numbers only).
pub const MAX_REQUEST_BYTES: u64 = 64 * 1024;
/// How long a worker waits for its request.
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(10);
/// The niceness workers run at, so requests keep their share of the CPU.
pub const BACKGROUND_NICE: libc::c_int = 10;

/// How to start a worker: the Relay binary and the arguments selecting its hidden mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
}

impl WorkerCommand {
    /// This executable in the mode selected by `args` (e.g. `[crate::wiki::worker::WORKER_ARG]`).
    pub fn current_exe(args: &[&str]) -> io::Result<WorkerCommand> {
        Ok(WorkerCommand { program: std::env::current_exe()?, args: args.iter().map(|a| a.to_string()).collect() })
    }
}

/// The kernel limits a worker runs under (set between fork and exec, so they cover the whole
/// worker and whatever it starts). Core dumps are always off and `no_new_privs` always on;
/// `None` leaves a limit as inherited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceLimits {
    /// `RLIMIT_AS`: address space (bytes); allocations beyond it fail inside the worker.
    pub address_space_bytes: Option<u64>,
    /// `RLIMIT_CPU`: CPU seconds before the kernel kills the worker (a backstop to the deadline).
    pub cpu_seconds: Option<u64>,
    /// `RLIMIT_FSIZE`: largest file the worker may write (bytes).
    pub file_size_bytes: Option<u64>,
    /// `RLIMIT_NOFILE`: open file descriptors.
    pub open_files: u64,
}

/// Everything about one worker run but the command and the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerSpec {
    /// Wall-clock time from start to reply; then the whole process group is killed.
    pub deadline: Duration,
    /// Largest line (progress or reply) the parent reads from the worker.
    pub max_line_bytes: u64,
    /// Niceness of the worker process.
    pub nice: libc::c_int,
    /// Whether the worker also runs in the idle scheduling class ([`enter_idle_class`]): for
    /// work no one waits on (backup verification), not for work an operator waits for.
    pub idle_class: bool,
    pub limits: ResourceLimits,
}

/// Why a worker produced no reply.
#[derive(Debug, thiserror::Error)]
pub enum ChannelError {
    #[error("the worker did not finish within {0} s and was stopped")]
    TimedOut(u64),
    #[error("the worker failed ({0})")]
    Crashed(String),
    #[error("the worker could not be started: {0}")]
    Spawn(#[source] io::Error),
}

/// A Relay executable's `main` calls this before parsing arguments: when its first argument
/// names a worker mode, it serves that mode and returns the process exit code; otherwise
/// `None`.
pub fn run_if_worker() -> Option<i32> {
    let mode = std::env::args_os().nth(1)?;
    if mode == crate::backup::worker::WORKER_ARG {
        Some(crate::backup::worker::run_as_process())
    } else if mode == crate::wiki::worker::WORKER_ARG {
        Some(crate::wiki::worker::run_as_process())
    } else {
        None
    }
}

/// Puts the calling thread (or, between fork and exec, the new process) in Linux's idle
/// scheduling class, `SCHED_IDLE`: it runs on CPU time nothing else wants, and a request thread
/// that wakes up preempts it at once, where a niced thread may finish its time slice first. It
/// still gets a small share on a saturated host, so it is never starved outright. `false` when
/// the kernel refuses (the niceness then still applies). Async-signal-safe.
pub fn enter_idle_class() -> bool {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: sched_setscheduler on the calling thread with a valid parameter; no memory is
    // shared and a refusal changes nothing.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) == 0 }
}

/// Runs `work` with the calling thread in the idle scheduling class ([`enter_idle_class`]) and
/// at [`BACKGROUND_NICE`] (Linux sets both per thread), then tries to put the thread's previous
/// policy and niceness back. An unprivileged process may be refused the way back (Linux lets it
/// leave `SCHED_IDLE` only within its `RLIMIT_NICE`); the threads calling this serve only
/// background work, so that is harmless, and it is logged.
pub fn in_background<T>(work: impl FnOnce() -> T) -> T {
    // SAFETY: gettid/getpriority/sched_getscheduler/setpriority on this thread only; failures
    // change nothing.
    let (tid, nice_before, policy_before) = unsafe {
        let tid = libc::gettid() as libc::id_t;
        (tid, libc::getpriority(libc::PRIO_PROCESS, tid), libc::sched_getscheduler(0))
    };
    // SAFETY: as above.
    unsafe { libc::setpriority(libc::PRIO_PROCESS, tid, BACKGROUND_NICE) };
    let idle = enter_idle_class();
    let result = work();
    if idle && policy_before >= 0 {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: as above, back to the policy this thread had (a non-real-time one, priority 0).
        if unsafe { libc::sched_setscheduler(0, policy_before, &param) } != 0 {
            tracing::debug!(error = %io::Error::last_os_error(), "a background thread stays in the idle class");
        }
    }
    // SAFETY: as above.
    unsafe { libc::setpriority(libc::PRIO_PROCESS, tid, nice_before) };
    result
}
