//! The launcher link over real `pipe()` pairs: the variables' rule, the fd checks, close-on-exec,
//! the environment clean-up (seen by a spawned child), the exact lines, and the link thread's
//! order (nothing before both signals, `mounted` once, then heartbeats; a broken pipe ends it),
//! and client mode's data-plane health over a real client backend.

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use super::*;

const TXN: &str = "3f2c8a4e-9b1d-4c7e-8a5f-0d6e2b9c1a74";

fn txn() -> Transaction {
    Transaction::parse(OsStr::new(TXN)).unwrap()
}

/// A real pipe: (read end, write end), close-on-exec so children of parallel tests never hold it.
fn pipe() -> (File, File) {
    pipe_with(libc::O_CLOEXEC)
}

/// A real pipe as a launcher hands it over: inheritable.
fn inheritable_pipe() -> (File, File) {
    pipe_with(0)
}

fn pipe_with(flags: libc::c_int) -> (File, File) {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two-int array we own.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), flags) }, 0);
    // SAFETY: both fds are fresh and owned by nobody else.
    unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) }
}

fn cloexec(fd: RawFd) -> bool {
    // SAFETY: F_GETFD reads the fd's flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
    assert!(flags >= 0);
    flags & libc::FD_CLOEXEC != 0
}

/// Whether `fd` has data (or EOF) to read within `ms`.
fn readable_within(fd: RawFd, ms: i32) -> bool {
    let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: one pollfd we own.
    unsafe { libc::poll(&mut p, 1, ms) == 1 }
}

/// Reads one `\n`-terminated line, waiting at most `ms` for each byte.
fn read_line(r: &mut File, ms: i32) -> Option<String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        if !readable_within(r.as_raw_fd(), ms) || r.read(&mut byte).ok()? == 0 {
            return None;
        }
        line.push(byte[0]);
        if byte[0] == b'\n' {
            return Some(String::from_utf8(line).unwrap());
        }
    }
}

fn os(s: &str) -> Option<&OsStr> {
    Some(OsStr::new(s))
}

#[test]
fn the_transaction_must_be_a_lowercase_uuid_v4() {
    assert_eq!(txn().as_str(), TXN);
    for variant in ['8', '9', 'a', 'b'] {
        let t = format!("3f2c8a4e-9b1d-4c7e-{variant}a5f-0d6e2b9c1a74");
        assert!(Transaction::parse(OsStr::new(&t)).is_some(), "{t}");
    }
    for bad in [
        "",
        "3F2C8A4E-9B1D-4C7E-8A5F-0D6E2B9C1A74",  // uppercase
        "3f2c8a4e-9b1d-1c7e-8a5f-0d6e2b9c1a74",  // version 1
        "3f2c8a4e-9b1d-4c7e-7a5f-0d6e2b9c1a74",  // variant 0xxx
        "3f2c8a4e-9b1d-4c7e-ca5f-0d6e2b9c1a74",  // variant 110x
        "3f2c8a4e9b1d4c7e8a5f0d6e2b9c1a74",      // no hyphens
        "3f2c8a4e-9b1d-4c7e-8a5f-0d6e2b9c1a7",   // short
        "3f2c8a4e-9b1d-4c7e-8a5f-0d6e2b9c1a745", // long
        "3f2c8a4e-9b1d-4c7e-8a5f-0d6e2b9c1a7g",  // not hex
        "3f2c8a4e-9b1d-4c7e-8a5f-0d6e2b9c1a7\n", // a line break
        " 3f2c8a4e-9b1d-4c7e-8a5f-0d6e2b9c1a7",
        "{3f2c8a4e-9b1d-4c7e-8a5f-0d6e2b9c1a7}",
        "3f2c8a4e_9b1d_4c7e_8a5f_0d6e2b9c1a74",
    ] {
        assert_eq!(Transaction::parse(OsStr::new(bad)), None, "{bad:?}");
    }
    use std::os::unix::ffi::OsStrExt;
    let mut not_utf8 = TXN.as_bytes().to_vec();
    not_utf8[0] = 0xff;
    assert_eq!(Transaction::parse(OsStr::from_bytes(&not_utf8)), None);
}

#[test]
fn the_variables_are_both_absent_or_exactly_3_and_a_transaction() {
    assert_eq!(check_vars(None, None), Ok(None));
    assert_eq!(check_vars(os("3"), os(TXN)), Ok(Some(txn())));
    assert_eq!(check_vars(None, os(TXN)), Err(Refusal::MissingFd));
    assert_eq!(check_vars(os("3"), None), Err(Refusal::MissingTransaction));
    for fd in ["", "4", "03", " 3", "3 ", "+3", "3\n", "0", "-1", "three"] {
        assert_eq!(check_vars(os(fd), os(TXN)), Err(Refusal::FdNotThree), "{fd:?}");
    }
    assert_eq!(check_vars(os("3"), os("not-a-uuid")), Err(Refusal::BadTransaction));
}

#[test]
fn the_fd_must_be_an_open_writable_pipe() {
    let (r, w) = pipe();
    assert_eq!(check_pipe_fd(w.as_raw_fd()), Ok(()));
    assert_eq!(check_pipe_fd(r.as_raw_fd()), Err(Refusal::NotWritable));
    let file = tempfile::tempfile().unwrap();
    assert_eq!(check_pipe_fd(file.as_raw_fd()), Err(Refusal::NotAPipe));
    let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    assert_eq!(check_pipe_fd(a.as_raw_fd()), Err(Refusal::NotAPipe));
    let null = std::fs::OpenOptions::new().write(true).open("/dev/null").unwrap();
    assert_eq!(check_pipe_fd(null.as_raw_fd()), Err(Refusal::NotAPipe));
    let closed = w.as_raw_fd();
    drop(w);
    // A freshly closed number may be reused by a parallel test; a number no test reaches is not.
    assert_eq!(check_pipe_fd(closed.max(4000)), Err(Refusal::NotOpen));
    assert_eq!(check_pipe_fd(-1), Err(Refusal::NotOpen));
}

#[test]
fn a_valid_link_owns_the_fd_and_makes_it_close_on_exec() {
    let (mut r, w) = inheritable_pipe();
    let fd = OwnedFd::from(w);
    let raw = fd.as_raw_fd();
    assert!(!cloexec(raw), "pipe2(0) gives an inheritable fd");
    // The link takes ownership of `raw`.
    let raw = std::os::fd::IntoRawFd::into_raw_fd(fd);
    let Found::Link(link) = open_at(os("3"), os(TXN), raw) else { panic!("a valid link") };
    assert!(cloexec(raw), "FD_CLOEXEC set on the link's fd");
    assert_eq!(link.txn, txn());
    drop(link);
    // Dropping the link closes its end: the reader sees EOF and nothing was written.
    assert!(readable_within(r.as_raw_fd(), 1000));
    assert_eq!(r.read(&mut [0u8; 8]).unwrap(), 0);
}

#[test]
fn a_refused_link_writes_nothing_but_still_keeps_its_pipe_from_children() {
    let (mut r, w) = inheritable_pipe();
    let Found::Refused(Refusal::BadTransaction) =
        open_at(os("3"), os("3F2C8A4E-9B1D-4C7E-8A5F-0D6E2B9C1A74"), w.as_raw_fd())
    else {
        panic!("an uppercase transaction is refused")
    };
    assert!(cloexec(w.as_raw_fd()), "RELAY_LAUNCHER_FD=3 on a pipe: close-on-exec even when refused");
    drop(w);
    assert_eq!(r.read(&mut [0u8; 8]).unwrap(), 0, "nothing was written");

    // Another number in RELAY_LAUNCHER_FD: the fd is left exactly as it was.
    let (_r, w) = inheritable_pipe();
    assert!(matches!(open_at(os("4"), os(TXN), w.as_raw_fd()), Found::Refused(Refusal::FdNotThree)));
    assert!(!cloexec(w.as_raw_fd()));
    // Not a pipe: refused.
    let file = tempfile::tempfile().unwrap();
    assert!(matches!(open_at(os("3"), os(TXN), file.as_raw_fd()), Found::Refused(Refusal::NotAPipe)));
    let (r, _w) = pipe();
    assert!(matches!(open_at(os("3"), os(TXN), r.as_raw_fd()), Found::Refused(Refusal::NotWritable)));
    // Neither variable: a normal start.
    assert!(matches!(open_at(None, None, -1), Found::Absent));
}

#[test]
fn taking_the_variables_removes_them_from_the_environment_and_from_children() {
    std::env::set_var(FD_ENV, "3");
    std::env::set_var(TRANSACTION_ENV, TXN);
    let (fd, txn) = take_vars();
    assert_eq!((fd.as_deref(), txn.as_deref()), (os("3"), os(TXN)));
    assert_eq!(std::env::var_os(FD_ENV), None);
    assert_eq!(std::env::var_os(TRANSACTION_ENV), None);
    // What a process the desktop starts (a worker, a relaunch) sees.
    let child = std::process::Command::new("/usr/bin/env").output().unwrap();
    let env = String::from_utf8_lossy(&child.stdout);
    assert!(!env.contains(FD_ENV) && !env.contains(TRANSACTION_ENV) && !env.contains(TXN), "{env}");
    // Nothing to take a second time.
    assert_eq!(take_vars(), (None, None));
}

#[test]
fn lines_are_the_fixed_ascii_words_and_the_transaction() {
    let t = txn();
    assert_eq!(Line::Mounted.render(&t), format!("mounted {TXN}\n"));
    assert_eq!(Line::Healthy.render(&t), format!("healthy {TXN}\n"));
    assert_eq!(Line::Unhealthy.render(&t), format!("unhealthy {TXN}\n"));
    for line in [Line::Mounted, Line::Healthy, Line::Unhealthy] {
        let s = line.render(&t);
        assert!(s.len() <= MAX_LINE_BYTES && s.is_ascii() && s.matches('\n').count() == 1, "{s:?}");
    }
}

const FAST: LinkTiming = LinkTiming { heartbeat: Duration::from_millis(30), probe_timeout: Duration::from_millis(30) };

#[test]
fn mounted_waits_for_both_signals_is_written_once_then_heartbeats_follow_the_probe() {
    let (mut r, w) = pipe();
    let signals = Arc::new(LinkSignals::default());
    let healthy = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let probe = {
        let healthy = healthy.clone();
        move || healthy.load(std::sync::atomic::Ordering::SeqCst)
    };
    let link = LauncherLink { out: w, txn: txn() };
    let thread = link.start(signals.clone(), FAST, probe).unwrap();

    // The renderer alone (even repeatedly) is not enough: start-up has not completed.
    signals.renderer_mounted();
    signals.renderer_mounted();
    assert!(!readable_within(r.as_raw_fd(), 300), "nothing before start-up completed");
    signals.startup_complete();
    assert_eq!(read_line(&mut r, 2000).as_deref(), Some(format!("mounted {TXN}\n").as_str()));
    for _ in 0..3 {
        assert_eq!(read_line(&mut r, 2000), Some(format!("healthy {TXN}\n")));
    }
    // Repeated signals after the mount write no second `mounted`.
    signals.renderer_mounted();
    signals.startup_complete();
    healthy.store(false, std::sync::atomic::Ordering::SeqCst);
    let mut seen = Vec::new();
    while seen.last() != Some(&format!("unhealthy {TXN}\n")) {
        seen.push(read_line(&mut r, 2000).expect("a heartbeat"));
    }
    assert!(seen.iter().all(|l| l == &format!("healthy {TXN}\n") || l == &format!("unhealthy {TXN}\n")), "{seen:?}");
    healthy.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut next = read_line(&mut r, 2000).unwrap();
    while next != format!("healthy {TXN}\n") {
        next = read_line(&mut r, 2000).unwrap();
    }

    // The launcher goes away: the next write fails and the link ends quietly.
    drop(r);
    assert_eq!(thread.join().unwrap(), Ended::LauncherGone);
}

#[test]
fn the_other_order_of_signals_also_mounts_once() {
    let (mut r, w) = pipe();
    let signals = LinkSignals::default();
    signals.startup_complete();
    signals.renderer_mounted();
    let mut probes = 0;
    let mut out = w;
    // `run` on this thread, stopped after two heartbeats by its own probe.
    let ended = std::thread::scope(|s| {
        let signals = &signals;
        let h = s.spawn(move || {
            run(&mut out, &txn(), signals, FAST, || {
                probes += 1;
                if probes == 2 {
                    signals.stop();
                }
                true
            })
        });
        h.join().unwrap()
    });
    assert_eq!(ended, Ended::Stopped);
    let mut all = String::new();
    r.read_to_string(&mut all).unwrap();
    assert_eq!(all, format!("mounted {TXN}\nhealthy {TXN}\nhealthy {TXN}\n"));
}

#[test]
fn a_launcher_gone_before_the_mount_ends_the_link_quietly() {
    let (r, w) = pipe();
    drop(r);
    let signals = Arc::new(LinkSignals::default());
    let thread = LauncherLink { out: w, txn: txn() }.start(signals.clone(), FAST, || true).unwrap();
    signals.renderer_mounted();
    signals.startup_complete();
    // EPIPE, not SIGPIPE: the test process (like the app) ignores SIGPIPE, so the write fails.
    assert_eq!(thread.join().unwrap(), Ended::LauncherGone);
}

#[test]
fn a_stopped_link_writes_nothing_and_without_a_link_the_state_is_inert() {
    let (mut r, w) = pipe();
    let signals = Arc::new(LinkSignals::default());
    let thread = LauncherLink { out: w, txn: txn() }.start(signals.clone(), FAST, || true).unwrap();
    signals.renderer_mounted();
    LinkState::with(signals.clone()).stop();
    assert_eq!(thread.join().unwrap(), Ended::Stopped);
    let mut all = String::new();
    r.read_to_string(&mut all).unwrap();
    assert_eq!(all, "");

    // Without a link every call is a no-op.
    let none = LinkState::default();
    assert!(none.0.is_none());
    none.renderer_mounted();
    none.startup_complete();
    none.stop();
}

#[test]
fn client_mode_health_is_the_shell_backend_running_and_the_setup_screen_has_none() {
    let healthy = |bridge: &Bridge| tauri::async_runtime::block_on(bridge.data_plane_healthy());
    let tmp = tempfile::tempdir().unwrap();
    let backend =
        crate::backend::start_client(Some("http://127.0.0.1:9".into()), false, tmp.path().to_path_buf()).unwrap();
    let client = Bridge::new(crate::bridge::trusted_origin(), Some(backend));
    assert!(healthy(&client), "the client backend runs");
    let mut backend = client.backend.lock().unwrap().take().unwrap();
    backend.stop();
    assert!(!healthy(&client), "the client backend stopped");

    let setup = crate::backend::start_client(None, false, tmp.path().to_path_buf()).unwrap();
    let setup = Bridge::new(crate::bridge::trusted_origin(), Some(setup));
    assert!(!healthy(&setup), "the setup screen has no data plane");
    setup.backend.lock().unwrap().take().unwrap().stop();
}

#[test]
fn server_mode_is_unhealthy_while_a_restore_restarts_the_server() {
    let live: crate::backend::SharedLive = Arc::new(Mutex::new(None));
    let bridge = Bridge::for_server_tests(live);
    assert!(bridge.is_server_mode());
    assert!(!tauri::async_runtime::block_on(bridge.data_plane_healthy()), "no running generation");
}
