//! Debug-only fault points for crash tests. [`fault_point`] marks a place where a test may kill
//! the process the hard way: in a debug build, when the environment variable [`FAULT_ENV`]
//! equals the point's name, the process sends itself `SIGKILL` (no destructor, no flush, no
//! unwinding: what a power cut or `kill -9` leaves on disk). In a release build the function is
//! an empty inline no-op and the variable is never read, so a shipped binary cannot be made to
//! kill itself through its environment. Names are stable strings such as
//! `restore:before:RenameLiveToOriginal` (see `crate::backup::swap`).

/// The variable naming the one fault point a debug build kills itself at.
pub const FAULT_ENV: &str = "RELAY_TEST_FAULT";

/// Whether fault points can fire in this build (debug builds only).
pub const FAULT_POINTS_ENABLED: bool = cfg!(debug_assertions);

/// Kills this process with `SIGKILL` when [`FAULT_ENV`] equals `name` (debug builds only).
#[cfg(debug_assertions)]
pub fn fault_point(name: &str) {
    if std::env::var_os(FAULT_ENV).is_some_and(|armed| armed == name) {
        tracing::warn!(point = name, "test fault point reached; killing this process");
        loop {
            // SAFETY: kill and getpid have no memory preconditions; SIGKILL cannot be caught.
            unsafe {
                libc::kill(libc::getpid(), libc::SIGKILL);
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

/// Release builds: nothing, and the environment is never read.
#[cfg(not(debug_assertions))]
#[inline(always)]
pub fn fault_point(_name: &str) {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Command;

    const CHILD_MARKER: &str = "RELAY_FAULT_CHILD";

    /// Runs the child below with the fault armed: a debug build dies by SIGKILL at the point,
    /// a release build (where the point is compiled out) passes through it.
    #[test]
    fn an_armed_fault_point_kills_the_process_only_in_debug_builds() {
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "fault::tests::child_reaches_a_fault_point", "--ignored", "--test-threads=1"])
            .env(CHILD_MARKER, "1")
            .env(FAULT_ENV, "test:armed")
            .output()
            .unwrap();
        if FAULT_POINTS_ENABLED {
            assert_eq!(out.status.signal(), Some(libc::SIGKILL), "{out:?}");
        } else {
            assert!(out.status.success(), "{out:?}");
        }
    }

    #[test]
    #[ignore = "child of an_armed_fault_point_kills_the_process_only_in_debug_builds"]
    fn child_reaches_a_fault_point() {
        assert!(std::env::var_os(CHILD_MARKER).is_some());
        fault_point("test:other");
        fault_point("test:armed");
        if FAULT_POINTS_ENABLED {
            panic!("a debug build must not get past an armed fault point");
        }
    }
}
