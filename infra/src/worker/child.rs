//! The worker's side of the channel: [`serve_child`] refuses to run unless fd 3 is a Unix
//! socket whose peer is this process's own parent running as this user (`SO_PEERCRED`), reads
//! one bounded request line within [`REQUEST_DEADLINE`], hands it to the mode's handler with a
//! progress sender, and writes the handler's reply as the last line. It applies no mode logic
//! and opens nothing but the inherited socket; the limits were set by the parent before exec,
//! and it only re-asserts the two that must never be missing (no new privileges, no core dump).

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::parent::WorkerLine;
use super::{CHANNEL_FD, MAX_REQUEST_BYTES, REQUEST_DEADLINE};

/// Why a worker mode refused to run.
#[derive(Debug, thiserror::Error)]
pub enum ChildRefused {
    #[error("the worker runs only when started by Relay itself")]
    NotOurParent,
    #[error("the worker received no valid request")]
    BadRequest,
}

/// Serves one request: checks the channel, reads the request, runs `handler` (which may send
/// progress through its second argument) and writes its reply. Returns the reply so the mode
/// can choose its exit code.
pub fn serve_child<Q, P, R>(handler: impl FnOnce(Q, &mut dyn FnMut(P)) -> R) -> Result<R, ChildRefused>
where
    Q: DeserializeOwned,
    P: Serialize,
    R: Serialize,
{
    let channel = inherited_channel()?;
    harden();
    channel.set_read_timeout(Some(REQUEST_DEADLINE)).map_err(|_| ChildRefused::BadRequest)?;
    let mut line = Vec::new();
    BufReader::new((&channel).take(MAX_REQUEST_BYTES))
        .read_until(b'\n', &mut line)
        .map_err(|_| ChildRefused::BadRequest)?;
    let request: Q = serde_json::from_slice(line.trim_ascii_end()).map_err(|_| ChildRefused::BadRequest)?;
    let send = |line: &WorkerLine<&P, &R>| {
        let mut bytes = serde_json::to_vec(line).unwrap_or_default();
        bytes.push(b'\n');
        let _ = (&channel).write_all(&bytes);
    };
    let reply = handler(request, &mut |p: P| send(&WorkerLine::Progress(&p)));
    send(&WorkerLine::Reply(&reply));
    Ok(reply)
}

/// fd 3 must be a Unix socket whose peer is this process's parent, running as this user.
fn inherited_channel() -> Result<UnixStream, ChildRefused> {
    use std::os::unix::io::FromRawFd;
    // SAFETY: an all-zero `stat` is a valid value to be overwritten.
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

/// No privilege gain through exec and no core dumps of what the worker read, even if the
/// worker was started by something other than [`super::spawn_worker`].
fn harden() {
    // SAFETY: prctl/setrlimit with valid arguments; failures only leave defaults in place.
    unsafe {
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        let none = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        libc::setrlimit(libc::RLIMIT_CORE, &none);
    }
}
