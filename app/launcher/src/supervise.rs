//! Starting and watching one runtime. The verified executable is started through the
//! descriptor the launcher hashed (`/proc/self/fd/<n>`, argv[0] `relay-desktop`), in its own
//! process group (so the whole group can be killed), with `PR_SET_PDEATHSIG=SIGKILL` (a killed
//! launcher leaves no runtime behind), stdin closed, and `RELAY_DATA_DIR` set; the launcher's own
//! test fault variable is not passed on. A candidate on probation also gets the write end of a
//! health pipe as fd 3 with `RELAY_LAUNCHER_FD=3` and `RELAY_LAUNCHER_TRANSACTION=<uuid>`; a
//! reader thread turns its lines into [`HealthEvent`]s: `mounted <txn>`, `healthy <txn>`
//! (heartbeat) and `unhealthy <txn>` for this transaction; anything else (another
//! transaction, an unknown word, a line over 128 bytes, invalid UTF-8) is [`HealthEvent::Ignored`].

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use infra::recovery::{TransactionId, VerifiedRuntime};

/// The descriptor number the health pipe has in the child.
pub const HEALTH_FD: i32 = 3;
const MAX_LINE: usize = 128;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HealthEvent {
    Mounted,
    Healthy,
    Unhealthy,
    /// A malformed line or one for another transaction (counted, otherwise ignored).
    Ignored,
}

/// Parses one health line (without its newline) for `transaction`.
pub fn parse_health_line(line: &[u8], transaction: &str) -> HealthEvent {
    let Ok(text) = std::str::from_utf8(line) else { return HealthEvent::Ignored };
    match text.split_once(' ') {
        Some(("mounted", txn)) if txn == transaction => HealthEvent::Mounted,
        Some(("healthy", txn)) if txn == transaction => HealthEvent::Healthy,
        Some(("unhealthy", txn)) if txn == transaction => HealthEvent::Unhealthy,
        _ => HealthEvent::Ignored,
    }
}

/// A started runtime.
#[derive(Debug)]
pub struct Runtime {
    child: Child,
    events: Option<Receiver<HealthEvent>>,
    exited: Option<ExitStatus>,
}

fn dup_high(fd: i32) -> io::Result<OwnedFd> {
    // SAFETY: F_DUPFD_CLOEXEC on a descriptor the caller owns returns a new one we own.
    let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10) };
    if new < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `new` is a fresh descriptor owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(new) })
}

fn health_pipe() -> io::Result<(File, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two-element array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned here.
    let (read, write) = unsafe { (File::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let write_high = dup_high(write.as_raw_fd())?;
    Ok((read, write_high))
}

/// Starts `runtime`; with `probation`, wires the health pipe for that transaction.
pub fn start(runtime: &VerifiedRuntime, data_dir: &Path, probation: Option<&TransactionId>) -> io::Result<Runtime> {
    let executable = dup_high(runtime.executable().as_raw_fd())?;
    let mut command = Command::new(format!("/proc/self/fd/{}", executable.as_raw_fd()));
    command
        .arg0(infra::recovery::EXECUTABLE_NAME)
        .stdin(Stdio::null())
        .env("RELAY_DATA_DIR", data_dir)
        .env_remove(infra::fault::FAULT_ENV)
        .env_remove("RELAY_LAUNCHER_FD")
        .env_remove("RELAY_LAUNCHER_TRANSACTION");
    let pipe = match probation {
        Some(transaction) => {
            let (read, write) = health_pipe()?;
            command
                .env("RELAY_LAUNCHER_FD", HEALTH_FD.to_string())
                .env("RELAY_LAUNCHER_TRANSACTION", transaction.as_str());
            Some((read, write, transaction.to_string()))
        }
        None => None,
    };
    let write_fd = pipe.as_ref().map(|(_, write, _)| write.as_raw_fd());
    // SAFETY: getpid has no preconditions.
    let launcher = unsafe { libc::getpid() };
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        command.pre_exec(move || {
            if libc::setpgid(0, 0) != 0 || libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::getppid() != launcher {
                return Err(io::Error::other("the launcher is gone"));
            }
            if let Some(fd) = write_fd {
                // The source is >= 10, so dup2 always makes a fresh fd 3 without close-on-exec.
                if libc::dup2(fd, HEALTH_FD) != HEALTH_FD {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let child = command.spawn()?;
    drop(executable);
    let events = pipe.map(|(read, write, transaction)| {
        drop(write);
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || read_health(read, &transaction, &sender));
        receiver
    });
    Ok(Runtime { child, events, exited: None })
}

fn read_health(mut pipe: File, transaction: &str, sender: &mpsc::Sender<HealthEvent>) {
    let mut line = Vec::with_capacity(MAX_LINE);
    let mut overlong = false;
    let mut buffer = [0u8; 512];
    loop {
        let read = match pipe.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(read) => read,
        };
        for &byte in &buffer[..read] {
            if byte == b'\n' {
                let event = if overlong { HealthEvent::Ignored } else { parse_health_line(&line, transaction) };
                if sender.send(event).is_err() {
                    // Nobody listens any more; keep draining so the runtime never blocks.
                }
                line.clear();
                overlong = false;
            } else if line.len() < MAX_LINE {
                line.push(byte);
            } else {
                overlong = true;
            }
        }
    }
}

impl Runtime {
    /// The next health event within `timeout` (`None`: none arrived, or no pipe).
    pub fn next_event(&self, timeout: Duration) -> Option<HealthEvent> {
        match &self.events {
            Some(events) => match events.recv_timeout(timeout) {
                Ok(event) => Some(event),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => {
                    std::thread::sleep(timeout);
                    None
                }
            },
            None => {
                std::thread::sleep(timeout);
                None
            }
        }
    }

    /// Whether the runtime's process is still running.
    pub fn running(&mut self) -> bool {
        if self.exited.is_none() {
            self.exited = self.child.try_wait().ok().flatten();
        }
        self.exited.is_none()
    }

    /// Kills the runtime's whole process group and reaps the runtime.
    pub fn kill(&mut self) {
        let group = self.child.id() as i32;
        // SAFETY: signals the group this launcher created for the runtime; no memory involved.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
        if self.exited.is_none() {
            self.exited = self.child.wait().ok();
        }
    }

    /// Waits for the runtime to exit, then kills whatever is left of its process group.
    pub fn wait(&mut self) -> io::Result<ExitStatus> {
        let status = match self.exited {
            Some(status) => status,
            None => self.child.wait()?,
        };
        self.exited = Some(status);
        self.kill();
        Ok(status)
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if self.exited.is_none() {
            self.kill();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_well_formed_lines_for_this_transaction_count() {
        let txn = "0f8fad5b-d9cb-469f-a165-70867728950e";
        assert_eq!(parse_health_line(format!("mounted {txn}").as_bytes(), txn), HealthEvent::Mounted);
        assert_eq!(parse_health_line(format!("healthy {txn}").as_bytes(), txn), HealthEvent::Healthy);
        assert_eq!(parse_health_line(format!("unhealthy {txn}").as_bytes(), txn), HealthEvent::Unhealthy);
        let other = "1f8fad5b-d9cb-469f-a165-70867728950e";
        for line in [
            format!("healthy {other}"),
            format!("healthy  {txn}"),
            format!("HEALTHY {txn}"),
            format!("healthy {txn} extra"),
            "healthy".into(),
            String::new(),
        ] {
            assert_eq!(parse_health_line(line.as_bytes(), txn), HealthEvent::Ignored, "{line:?}");
        }
        assert_eq!(parse_health_line(b"healthy \xff", txn), HealthEvent::Ignored);
    }
}
