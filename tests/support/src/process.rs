//! Child processes of a test: the `relay` binary this build made (found beside the running test
//! or bench executable, where cargo puts it before any integration test or bench runs), its
//! one-shot subcommands (`relay admin`, `relay backup`, ...) with their output, and re-runs of
//! an `#[ignore]`d test of the current test binary as a child process, plain ([`child_test`]) or
//! inside an isolated network namespace ([`run_in_netns`]). It never runs a server: that is
//! [`crate::Relay`]'s job. Every wait is bounded.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// This build's `relay` binary: `target/<profile>/relay`, the sibling of the `deps/` folder the
/// running test or bench executable sits in (the path cargo gives `CARGO_BIN_EXE_relay`). Found
/// once per process (the answer cannot change while it runs).
pub fn relay_bin() -> &'static str {
    static BIN: OnceLock<String> = OnceLock::new();
    BIN.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test executable's path");
        let profile_dir = exe.parent().and_then(Path::parent).expect("a test executable in target/<profile>/deps");
        let bin = profile_dir.join(format!("relay{}", std::env::consts::EXE_SUFFIX));
        assert!(bin.is_file(), "no relay binary at {} (cargo builds it before integration tests)", bin.display());
        bin.into_os_string().into_string().expect("a UTF-8 target directory")
    })
}

/// Runs `relay admin --data-dir D <args>` feeding `stdin`; returns (success, stdout+stderr).
pub fn admin_cli(data_dir: &Path, args: &[&str], stdin: &str) -> (bool, String) {
    relay_cli("admin", data_dir, args, stdin)
}

/// Runs `relay <command> --data-dir D <args>` feeding `stdin`; returns (success, stdout+stderr).
pub fn relay_cli(command: &str, data_dir: &Path, args: &[&str], stdin: &str) -> (bool, String) {
    use std::io::Write;
    let mut child = Command::new(relay_bin())
        .arg(command)
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn relay");
    child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write stdin");
    let out = child.wait_with_output().expect("relay output");
    (out.status.success(), text(&out))
}

/// A finished child's stdout followed by its stderr, as text.
pub fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// The name libtest knows a test by: `module_path` (from `module_path!()` in the test's file)
/// without its crate, then `name` (`blackbox::offline_client` + `child` = `offline_client::child`).
pub fn test_path(module_path: &str, name: &str) -> String {
    match module_path.split_once("::") {
        Some((_crate, module)) => format!("{module}::{name}"),
        None => name.to_string(),
    }
}

/// A command that re-runs exactly the `#[ignore]`d test `test` (its full path, see [`test_path`])
/// of the current test binary, alone; the caller adds its environment and runs it.
pub fn child_test(test: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().expect("the test executable's path"));
    command.args([test, "--exact", "--ignored", "--test-threads=1"]);
    command
}

/// Re-runs the `#[ignore]`d test `inner_test` (its full path, see [`test_path`]) of the current
/// test binary inside a new network namespace (`unshare -n`, needs root or CAP_SYS_ADMIN,
/// util-linux and iproute2) whose only interface is `lo`, brought up and given `lo_address` (a
/// /32) so the server has a non-loopback address to use while nothing is sent on a real
/// interface. The child sees `marker=1` (check it with `assert_in_test_netns`). Panics, with the
/// child's output, unless the inner test passed within `deadline`.
pub fn run_in_netns(marker: &str, lo_address: &str, inner_test: &str, deadline: Duration) {
    let exe = std::env::current_exe().unwrap();
    let script = format!("ip link set lo up && ip addr add {lo_address}/32 dev lo && exec \"$@\"");
    let mut child = Command::new("unshare")
        .args(["-n", "--", "bash", "-c", &script, "bash"])
        .arg(&exe)
        .args([inner_test, "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env(marker, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run unshare -n (needs root or CAP_SYS_ADMIN, util-linux and iproute2)");
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report = format!("stdout:\n{stdout}\nstderr:\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "namespaced test {inner_test} failed ({:?}):\n{report}", out.status);
    assert!(stdout.contains("1 passed"), "the inner test {inner_test} did not run:\n{report}");
}

/// Refuses to go on unless this process runs inside `run_in_netns`'s namespace: the marker is
/// set and `lo` is the only interface.
pub fn assert_in_test_netns(marker: &str) {
    assert_eq!(std::env::var(marker).as_deref(), Ok("1"), "refusing to run outside the test namespace");
    let dev = std::fs::read_to_string("/proc/self/net/dev").unwrap();
    let interfaces: Vec<&str> = dev.lines().skip(2).filter_map(|l| l.split(':').next()).map(str::trim).collect();
    assert_eq!(interfaces, ["lo"], "refusing: this namespace has interfaces other than lo");
}
