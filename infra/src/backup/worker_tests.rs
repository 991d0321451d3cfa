//! Tests of the verification worker with real processes: this test binary re-executed as the
//! worker (an ignored child test that calls `serve_child`), a worker that stalls past the
//! deadline, and children that must refuse to run because their channel is not from their
//! parent.

use std::os::unix::io::AsRawFd;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::Instant;

use super::*;
use crate::backup::test_support::{good_archive, live_store};

/// This test binary running one ignored child test.
fn worker(child_test: &str) -> WorkerCommand {
    let args = ["--exact", child_test, "--ignored", "--nocapture", "--test-threads=1"];
    WorkerCommand::current_exe(&args).unwrap()
}

fn leftovers(root: &Path) -> Vec<String> {
    fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".relay-backup-verify-"))
        .collect()
}

#[test]
#[ignore = "the worker side, started by the tests below"]
fn child_worker() {
    // SAFETY: sched_getscheduler of this process has no preconditions.
    let policy = unsafe { libc::sched_getscheduler(0) };
    assert_eq!(policy, libc::SCHED_IDLE, "the verifier runs in the idle scheduling class");
    match serve_child() {
        Ok(_) => {}
        Err(e) => panic!("worker refused: {e}"),
    }
}

#[test]
#[ignore = "a worker that never answers, started by the deadline test"]
fn child_stalls() {
    std::thread::sleep(Duration::from_secs(600));
}

#[test]
#[ignore = "must refuse: started without a channel from its parent"]
fn child_must_refuse() {
    assert!(matches!(serve_child(), Err(ChildRefused::NotOurParent)));
}

#[test]
fn a_good_archive_passes_in_the_worker_and_the_directory_is_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, pool) = live_store(tmp.path());
    let archive = good_archive(&root, &pool, "worker-good-1");
    let mut reports = Vec::new();
    let (verified, kept) = verify_in_worker(
        &worker("backup::worker::tests::child_worker"),
        &archive.path,
        &root,
        VERIFY_DEADLINE,
        false,
        &mut |p: Progress| reports.push(p),
    )
    .unwrap();
    assert!(verified.tables >= 3 && verified.entries >= 3, "{verified:?}");
    assert!(kept.is_none());
    let last = reports.last().expect("progress reached the parent");
    assert_eq!((last.bytes_done, last.entries_done), (last.bytes_total, last.entries_total));
    assert!(leftovers(&root).is_empty(), "verification directory removed");
}

#[test]
fn a_restore_stage_is_kept_only_when_it_passed() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, pool) = live_store(tmp.path());
    let archive = good_archive(&root, &pool, "worker-keep-1");
    let (_, kept) = verify_in_worker(
        &worker("backup::worker::tests::child_worker"),
        &archive.path,
        &root,
        VERIFY_DEADLINE,
        true,
        &mut |_| {},
    )
    .unwrap();
    let stage = kept.expect("the stage is kept");
    assert!(stage.join("relay.db").is_file());
    fs::remove_dir_all(stage).unwrap();

    let junk = root.join("backups/junk.zip");
    fs::write(&junk, b"not a zip at all").unwrap();
    let err = verify_in_worker(
        &worker("backup::worker::tests::child_worker"),
        &junk,
        &root,
        VERIFY_DEADLINE,
        true,
        &mut |_| {},
    )
    .unwrap_err();
    assert!(matches!(err, WorkerError::Rejected(VerifyError::NotAnArchive)), "{err:?}");
    assert!(leftovers(&root).is_empty(), "a failed stage is removed");
}

#[test]
fn a_stalled_worker_is_killed_at_the_deadline_and_leaves_no_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, pool) = live_store(tmp.path());
    let archive = good_archive(&root, &pool, "worker-stall-1");
    let started = Instant::now();
    let err = verify_in_worker(
        &worker("backup::worker::tests::child_stalls"),
        &archive.path,
        &root,
        Duration::from_millis(800),
        false,
        &mut |_| {},
    )
    .unwrap_err();
    assert!(matches!(err, WorkerError::TimedOut(_)), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(30), "killed, not waited for: {:?}", started.elapsed());
    assert!(leftovers(&root).is_empty(), "directory removed after the worker exited");
}

/// Starts `child_must_refuse` with `wrapper` around it and fd 3 set up as `channel` says.
fn run_refusing(wrapper: &[&str], give_channel: bool) -> std::process::ExitStatus {
    let exe = std::env::current_exe().unwrap();
    let mut argv: Vec<String> = wrapper.iter().map(|s| s.to_string()).collect();
    argv.push(exe.to_string_lossy().into_owned());
    argv.extend(
        ["--exact", "backup::worker::tests::child_must_refuse", "--ignored", "--test-threads=1"].map(String::from),
    );
    let (_parent, child_end) = UnixStream::pair().unwrap();
    let fd = child_end.as_raw_fd();
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]).stdout(Stdio::null()).stderr(Stdio::null());
    if give_channel {
        // SAFETY: dup2/fcntl only, as in the parent code.
        unsafe {
            cmd.pre_exec(move || {
                libc::dup2(fd, CHANNEL_FD);
                libc::fcntl(CHANNEL_FD, libc::F_SETFD, 0);
                Ok(())
            });
        }
    }
    cmd.status().unwrap()
}

#[test]
fn the_worker_mode_refuses_to_run_unless_its_parent_holds_the_channel() {
    assert!(run_refusing(&[], false).success(), "no channel on fd 3: refused");
    // A channel created by this process, but the worker's parent is a shell in between.
    assert!(run_refusing(&["bash", "-c", "\"$0\" \"$@\" & wait $!"], true).success(), "foreign peer: refused");
}

#[test]
fn background_work_runs_niced_and_idle_class_on_its_thread_only() {
    let nice_of = |tid: libc::id_t| unsafe { libc::getpriority(libc::PRIO_PROCESS, tid) };
    // SAFETY: sched_getscheduler of the calling thread.
    let policy = || unsafe { libc::sched_getscheduler(0) };
    let me = unsafe { libc::gettid() } as libc::id_t;
    let (mine, my_policy) = (nice_of(me), policy()); // niced already under `nice -n 10 cargo test`
    let handle = std::thread::spawn(move || {
        let tid = unsafe { libc::gettid() } as libc::id_t;
        let before = (nice_of(tid), policy());
        let during = in_background(|| (nice_of(tid), policy()));
        (before, during, (nice_of(tid), policy()))
    });
    let (before, during, after) = handle.join().unwrap();
    assert_eq!(during, (BACKGROUND_NICE.max(before.0), libc::SCHED_IDLE), "the work ran niced, in the idle class");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        assert_eq!(after, before, "the thread's niceness and policy are put back (allowed as root)");
    }
    assert_eq!((nice_of(me), policy()), (mine, my_policy), "other threads are untouched");
}
