//! Black-box tests of `relay-launcher`: the real binary against real files under a temporary
//! HOME/XDG_DATA_HOME, starting real runtime processes. This test binary is also the fake
//! runtime: copied into `runtimes/<build-id>/relay-desktop`, it finds `RELAY_FAKE_RUNTIME_PLAN`
//! in its environment and behaves as its build is told (`fake_runtime`); without that variable
//! it runs the cases below (no libtest harness; a substring argument filters them). The
//! probation clock runs 50 times faster through the launcher's debug-only time scale (60 s of
//! health = 1.2 s, the 195 s deadline = 3.9 s), and the releases page "opener" is a script that
//! records its arguments.

mod support;

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

use support::{fake_runtime, read_catalog_json, seed, tree, Case, Scenario, CANDIDATE, CURRENT, OLDEST, RELEASES_PAGE};

fn main() {
    if std::env::var_os(fake_runtime::PLAN_ENV).is_some() {
        std::process::exit(fake_runtime::run());
    }
    let filter: Option<String> = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
    let cases: &[(&str, fn())] = &[
        ("healthy_candidate_is_promoted_and_three_predecessors_are_retained", healthy_candidate_is_promoted),
        ("crashing_candidate_is_rolled_back_after_two_attempts", crashing_candidate_is_rolled_back),
        ("never_healthy_candidate_is_rolled_back_at_the_deadline", never_healthy_candidate_is_rolled_back),
        ("lost_or_withdrawn_health_restarts_the_window", lost_or_withdrawn_health_restarts_the_window),
        ("first_start_bootstraps_the_catalog_from_the_only_runtime", first_start_bootstraps),
        ("tampered_state_fails_closed_and_opens_only_the_releases_page", tampered_state_fails_closed),
        ("an_unusable_current_build_falls_back_to_a_predecessor", unusable_current_falls_back),
        ("unusable_or_unsnapshottable_candidates_are_discarded_without_quarantine", unusable_candidates_are_discarded),
        ("a_killed_launcher_leaves_no_candidate_and_never_grants_a_third_launch", killed_launcher_mid_probation),
        ("hand_offs_are_bounded_per_launcher_run", hand_offs_are_bounded),
        ("killed_at_each_fault_point_the_next_start_reconciles", killed_at_each_fault_point),
        ("a_manual_rollback_request_makes_a_retained_build_current", manual_rollback_is_applied),
        ("killed_during_a_manual_rollback_the_next_start_settles_it", killed_during_manual_rollback),
        ("the_recovery_entry_starts_a_retained_build_first_and_only_once", recovery_entry_prefers_a_retained_build),
        ("install_then_run_bootstraps_and_starts_the_installed_runtime", install_then_run_bootstraps),
        ("install_refuses_a_second_install_bad_sources_and_bad_command_lines", install_refusals),
        ("a_first_install_killed_at_each_fault_point_leaves_no_half_runtime", killed_first_install),
        ("install_desktop_script_lays_out_the_launcher_runtime_and_desktop_entry", install_desktop_script),
        ("packaged_first_start_installs_the_seed_build_and_runs_it", packaged_first_start),
        ("a_seed_that_does_not_verify_installs_nothing_and_fails_closed", packaged_seed_refused),
        ("an_existing_installation_ignores_the_seed", packaged_seed_ignored_when_installed),
        ("a_first_start_killed_during_the_seed_install_completes_next_time", killed_seed_install),
    ];
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, case) in cases {
        if filter.as_ref().is_some_and(|filter| !name.contains(filter.as_str())) {
            continue;
        }
        ran += 1;
        let started = Instant::now();
        let outcome = std::panic::catch_unwind(case);
        let verdict = if outcome.is_ok() { "ok" } else { "FAILED" };
        println!("test {name} ... {verdict} ({:.1} s)", started.elapsed().as_secs_f64());
        if outcome.is_err() {
            failed.push(*name);
        }
    }
    println!("\nlauncher: {} passed; {} failed", ran - failed.len(), failed.len());
    if !failed.is_empty() {
        println!("failed: {failed:?}");
        std::process::exit(101);
    }
}

/// The current build installs a healthy candidate and hands off (exit 75); the launcher
/// snapshots, supervises, promotes, keeps the candidate running as current, and retention keeps
/// the three newest predecessors (the oldest runtime directory is deleted).
fn healthy_candidate_is_promoted() {
    let case = Case::new();
    seed(&case, &[OLDEST, "v0-8-0-88888888", "v0-9-0-99999999"], CURRENT);
    let before = tree(&case.data_dir);
    let out = case.launcher(&Scenario::promote(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr_text());
    let catalog = read_catalog_json(&case);
    assert_eq!(catalog["current"]["build"], CANDIDATE);
    let predecessors: Vec<&str> =
        catalog["predecessors"].as_array().unwrap().iter().map(|p| p["build"].as_str().unwrap()).collect();
    assert_eq!(predecessors, [CURRENT, "v0-9-0-99999999", "v0-8-0-88888888"]);
    assert!(catalog["candidate"].is_null());
    assert_eq!(
        case.runtime_dirs(),
        [CURRENT, "v0-8-0-88888888", "v0-9-0-99999999", CANDIDATE].map(String::from).to_vec().sorted()
    );
    assert_eq!(case.starts(), [format!("{CURRENT} -"), format!("{CANDIDATE} txn")]);
    // The candidate's write landed on top of the untouched previous data.
    let mut after = tree(&case.data_dir);
    after.retain(|(path, _)| !path.ends_with(format!("written-by-{CANDIDATE}")));
    assert_eq!(after, before);
    assert!(case.data_dir.join(format!("store/written-by-{CANDIDATE}")).exists());
    case.assert_settled();
    assert!(case.opened().is_empty());
}

/// A candidate that crashes at start (after scribbling over the data) is launched twice, then
/// rolled back: data restored byte for byte, `tag@commit` quarantined, its runtime removed, and
/// the previous build resumed, whose next install of that release is refused.
fn crashing_candidate_is_rolled_back() {
    let case = Case::new();
    seed(&case, &[], CURRENT);
    let before = tree(&case.data_dir);
    let out = case.launcher(&Scenario::rollback("crash"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr_text());
    assert_eq!(
        case.starts(),
        [format!("{CURRENT} -"), format!("{CANDIDATE} txn"), format!("{CANDIDATE} txn"), format!("{CURRENT} -")]
    );
    let catalog = read_catalog_json(&case);
    assert_eq!(catalog["current"]["build"], CURRENT);
    assert!(catalog["candidate"].is_null());
    assert_eq!(catalog["quarantine"], serde_json::json!([support::candidate_fingerprint()]));
    assert_eq!(case.runtime_dirs(), [CURRENT]);
    assert_eq!(tree(&case.data_dir), before, "the data is the pre-switch snapshot, byte for byte");
    assert!(case.log().contains("install-refused release_quarantined"), "{}", case.log());
    case.assert_settled();
}

/// A candidate that mounts but never reports health (and sends unhealthy, foreign and malformed
/// lines) keeps running until a full 60 s health window no longer fits in the 195 s deadline
/// (135 s after its launch), then is killed and rolled back.
fn never_healthy_candidate_is_rolled_back() {
    let case = Case::new();
    seed(&case, &[], CURRENT);
    let before = tree(&case.data_dir);
    let started = Instant::now();
    let out = case.launcher(&Scenario::rollback("never-healthy"), &[]);
    let elapsed = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr_text());
    assert!(elapsed >= Duration::from_millis((195_000 - 60_000) / support::TIME_SCALE), "{elapsed:?}");
    assert_eq!(case.starts(), [format!("{CURRENT} -"), format!("{CANDIDATE} txn"), format!("{CURRENT} -")]);
    let catalog = read_catalog_json(&case);
    assert_eq!(catalog["quarantine"], serde_json::json!([support::candidate_fingerprint()]));
    assert_eq!(tree(&case.data_dir), before);
    assert!(out.stderr_text().contains("reason=CannotBecomeHealthyInTime"), "{}", out.stderr_text());
    let ignored = out.stderr_text().contains("ignored_lines=0");
    assert!(!ignored, "foreign and malformed lines are counted: {}", out.stderr_text());
    assert!(!support::process_alive(&case.pid_of(CANDIDATE)), "the candidate's process group was killed");
    case.assert_settled();
}

/// Health must be continuous: a candidate whose heartbeats stop (still running) or that reports
/// `unhealthy` every 0.4 s (20 s of probation time) never completes the 60 s window and is rolled
/// back, though it reported `healthy` early on.
fn lost_or_withdrawn_health_restarts_the_window() {
    for behaviour in ["silent-after-one", "flapping"] {
        let case = Case::new();
        seed(&case, &[], CURRENT);
        let out = case.launcher(&Scenario::rollback(behaviour), &[]);
        assert_eq!(out.status.code(), Some(0), "{behaviour}: {}", out.stderr_text());
        let catalog = read_catalog_json(&case);
        assert_eq!(catalog["current"]["build"], CURRENT, "{behaviour}");
        assert_eq!(catalog["quarantine"], serde_json::json!([support::candidate_fingerprint()]), "{behaviour}");
        case.assert_settled();
    }
}

/// No catalog yet: exactly one runtime with a valid marker becomes current; two runtimes
/// (which one is trusted cannot be proved) fail closed.
fn first_start_bootstraps() {
    let case = Case::new();
    support::write_runtime(&case, CURRENT, &support::self_exe());
    let out = case.launcher(&Scenario::plain(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr_text());
    assert_eq!(read_catalog_json(&case)["current"]["build"], CURRENT);
    assert_eq!(case.starts(), [format!("{CURRENT} -")]);

    let two = Case::new();
    support::write_runtime(&two, CURRENT, &support::self_exe());
    support::write_runtime(&two, OLDEST, &support::self_exe());
    let out = two.launcher(&Scenario::plain(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(two.starts().is_empty());
    assert_eq!(two.opened(), [RELEASES_PAGE]);
}

/// Each tampering fails closed: nothing executed but the releases-page opener, with exactly the
/// fixed URL, and the catalog left as it was.
fn tampered_state_fails_closed() {
    type Tamper = fn(&Case);
    let tampers: [(&str, Tamper); 6] = [
        ("unknown key", |case| support::edit_catalog(case, |text| text.replacen('{', "{\"extra\":1,", 1))),
        ("duplicate key", |case| support::edit_catalog(case, |text| text.replacen('{', "{\"protocol\":1,", 1))),
        ("marker hash mismatch", |case| {
            let marker = case.root.join(format!("runtimes/{CURRENT}/marker.json"));
            let text = fs::read_to_string(&marker).unwrap().replace("\"server\": 1", "\"server\": 2");
            fs::write(marker, text).unwrap();
        }),
        ("executable changed", |case| {
            let exe = case.root.join(format!("runtimes/{CURRENT}/relay-desktop"));
            let mut bytes = fs::read(&exe).unwrap();
            bytes.push(0);
            fs::write(exe, bytes).unwrap();
        }),
        ("unreferenced runtime", |case| {
            support::write_runtime(case, "v0-0-1-00000001", &support::self_exe());
        }),
        ("linked runtimes directory", |case| {
            let runtimes = case.root.join("runtimes");
            fs::rename(&runtimes, case.home.join("moved")).unwrap();
            std::os::unix::fs::symlink(case.home.join("moved"), runtimes).unwrap();
        }),
    ];
    for (name, tamper) in tampers {
        let case = Case::new();
        seed(&case, &[], CURRENT);
        tamper(&case);
        let catalog_before = fs::read(case.root.join("recovery/catalog.json")).ok();
        let out = case.launcher(&Scenario::plain(), &[]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", out.stderr_text());
        assert!(case.starts().is_empty(), "{name}: nothing may run");
        assert_eq!(case.opened(), [RELEASES_PAGE], "{name}");
        assert_eq!(fs::read(case.root.join("recovery/catalog.json")).ok(), catalog_before, "{name}");
    }
}

/// A current build whose executable changed is skipped for the newest verified predecessor;
/// the catalog is not rewritten.
fn unusable_current_falls_back() {
    let case = Case::new();
    seed(&case, &[OLDEST, "v0-9-0-99999999"], CURRENT);
    let exe = case.root.join(format!("runtimes/{CURRENT}/relay-desktop"));
    fs::write(&exe, b"#!/bin/sh\necho replaced\n").unwrap();
    let catalog_before = fs::read(case.root.join("recovery/catalog.json")).unwrap();
    let out = case.launcher(&Scenario::plain(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr_text());
    assert_eq!(case.starts(), ["v0-9-0-99999999 -"]);
    assert_eq!(fs::read(case.root.join("recovery/catalog.json")).unwrap(), catalog_before);
    assert!(case.opened().is_empty());
}

/// A candidate whose runtime is missing (an installation killed between its catalog write and
/// its rename) or changed, or whose data cannot be snapshotted because a server holds the data
/// directory, is discarded: never started, not quarantined, its runtime and any partial
/// directory removed, and the current build runs.
fn unusable_candidates_are_discarded() {
    type Break = fn(&Case, &str);
    let breaks: [(&str, Break); 3] = [
        ("runtime missing", |case, build| {
            let runtimes = case.root.join("runtimes");
            fs::rename(runtimes.join(build), runtimes.join(".partial-0123456789abcdef0123456789abcdef")).unwrap();
        }),
        ("executable changed", |case, build| {
            fs::write(case.root.join(format!("runtimes/{build}/relay-desktop")), b"changed").unwrap();
        }),
        ("data directory in use", |_, _| {}),
    ];
    for (name, breaks) in breaks {
        let case = Case::new();
        seed(&case, &[], CURRENT);
        let before = tree(&case.data_dir);
        let ticket = case.install_candidate();
        breaks(&case, ticket.build.as_str());
        let server = (name == "data directory in use").then(|| infra::dir_lock::lock(&case.data_dir).unwrap());
        let out = case.launcher(&Scenario::plain(), &[]);
        drop(server);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", out.stderr_text());
        assert_eq!(case.starts(), [format!("{CURRENT} -")], "{name}: the candidate never ran");
        let catalog = read_catalog_json(&case);
        assert_eq!(catalog["current"]["build"], CURRENT, "{name}");
        assert_eq!(catalog["quarantine"], serde_json::json!([]), "{name}: not the release's fault");
        assert_eq!(case.runtime_dirs(), [CURRENT], "{name}");
        assert_eq!(tree(&case.data_dir), before, "{name}");
        case.assert_settled();
    }
}

/// The launcher killed while a never-healthy candidate is on probation: the candidate dies with
/// it (PR_SET_PDEATHSIG), and the next start uses the one launch left (attempts are recorded
/// before each launch), then rolls back and restores the data.
fn killed_launcher_mid_probation() {
    let case = Case::new();
    seed(&case, &[], CURRENT);
    let before = tree(&case.data_dir);
    let mut launcher = case.spawn_launcher(&Scenario::rollback("never-healthy"), &[]);
    let line = case.wait_for_log(&format!("pid {CANDIDATE} "));
    let candidate = line.rsplit(' ').next().unwrap().to_owned();
    launcher.kill().unwrap();
    launcher.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while support::process_alive(&candidate) {
        if Instant::now() > deadline {
            // SAFETY: ends the stray test process this case started; no memory involved.
            unsafe { libc::kill(candidate.parse().unwrap(), libc::SIGKILL) };
            panic!("the candidate outlived its launcher");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(read_catalog_json(&case)["candidate"]["attempts"], 1);
    let out = case.launcher(&Scenario::rollback("never-healthy"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr_text());
    let candidate_starts = case.starts().iter().filter(|start| start.starts_with(CANDIDATE)).count();
    assert_eq!(candidate_starts, 2, "{:?}", case.starts());
    assert_eq!(read_catalog_json(&case)["quarantine"], serde_json::json!([support::candidate_fingerprint()]));
    assert_eq!(tree(&case.data_dir), before);
    case.assert_settled();
}

/// A runtime that keeps exiting 75 is restarted at most 3 times in one launcher run; then the
/// launcher stops with exit 1 and opens nothing.
fn hand_offs_are_bounded() {
    let case = Case::new();
    seed(&case, &[], CURRENT);
    let out = case.launcher(&Scenario::handoff_loop(), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr_text());
    assert_eq!(case.starts().len(), 4, "{:?}", case.starts());
    assert!(case.opened().is_empty());
}

/// For every fault point of a promotion (with three predecessors, so retention deletes one) and
/// of a rollback: the launcher is killed there (SIGKILL, proving the point is reached), the next
/// start reconciles, and the end state has
/// exactly one current build, no candidate, no intent or journal, no half-swapped data, and
/// the data either promoted onto or restored to the pre-switch snapshot.
fn killed_at_each_fault_point() {
    for point in support::PROMOTE_POINTS {
        let case = Case::new();
        seed(&case, &[OLDEST, "v0-8-0-88888888", "v0-9-0-99999999"], CURRENT);
        let before = tree(&case.data_dir);
        let first = case.launcher(&Scenario::promote(), &[("RELAY_TEST_FAULT", point)]);
        assert_eq!(support::signal(&first), Some(9), "{point} must be reached: {}", first.stderr_text());
        let second = case.launcher(&Scenario::promote(), &[]);
        assert_eq!(second.status.code(), Some(0), "{point}: {}", second.stderr_text());
        let catalog = read_catalog_json(&case);
        assert_eq!(catalog["current"]["build"], CANDIDATE, "{point}");
        let predecessors: Vec<&str> =
            catalog["predecessors"].as_array().unwrap().iter().map(|p| p["build"].as_str().unwrap()).collect();
        assert_eq!(predecessors, [CURRENT, "v0-9-0-99999999", "v0-8-0-88888888"], "{point}");
        assert!(!case.runtime_dirs().contains(&OLDEST.to_owned()), "{point}: the oldest build is deleted");
        let mut after = tree(&case.data_dir);
        after.retain(|(path, _)| !path.ends_with(format!("written-by-{CANDIDATE}")));
        assert_eq!(after, before, "{point}: nothing lost");
        case.assert_settled();
    }
    for point in support::ROLLBACK_POINTS {
        let case = Case::new();
        seed(&case, &[], CURRENT);
        let before = tree(&case.data_dir);
        let first = case.launcher(&Scenario::rollback("crash"), &[("RELAY_TEST_FAULT", point)]);
        assert_eq!(support::signal(&first), Some(9), "{point} must be reached: {}", first.stderr_text());
        let second = case.launcher(&Scenario::rollback("crash"), &[]);
        assert_eq!(second.status.code(), Some(0), "{point}: {}", second.stderr_text());
        let catalog = read_catalog_json(&case);
        assert_eq!(catalog["current"]["build"], CURRENT, "{point}");
        assert_eq!(catalog["quarantine"], serde_json::json!([support::candidate_fingerprint()]), "{point}");
        assert_eq!(tree(&case.data_dir), before, "{point}: restored, not half-swapped");
        case.assert_settled();
    }
}

/// The current build (the desktop after the Owner's approval) writes a rollback request for a
/// retained predecessor and exits 75; the launcher's next run makes that build current (the old
/// current its newest predecessor), deletes no runtime, leaves the data untouched, consumes the
/// request and starts the target; a later plain start keeps it current. A request for a build
/// the catalog does not retain is refused where it is made and changes nothing.
fn manual_rollback_is_applied() {
    let case = Case::new();
    seed(&case, &[OLDEST], CURRENT);
    let before = tree(&case.data_dir);
    let out = case.launcher(&Scenario::manual_rollback(), &[("RELAY_FAKE_ROLLBACK_TO", OLDEST)]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr_text());
    assert_eq!(case.starts(), [format!("{CURRENT} -"), format!("{OLDEST} -")]);
    let catalog = read_catalog_json(&case);
    assert_eq!(catalog["current"]["build"], OLDEST);
    assert_eq!(catalog["predecessors"][0]["build"], CURRENT);
    assert_eq!(catalog["predecessors"].as_array().unwrap().len(), 1);
    assert_eq!(case.runtime_dirs(), [CURRENT, OLDEST].map(String::from).to_vec().sorted());
    assert_eq!(tree(&case.data_dir), before, "a manual rollback leaves the data as it is");
    assert!(!case.root.join("recovery/rollback-request.json").exists());
    assert!(out.stderr_text().contains("manual rollback applied"), "{}", out.stderr_text());
    case.assert_settled();
    let again = case.launcher(&Scenario::plain(), &[]);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(case.starts().last().unwrap(), &format!("{OLDEST} -"), "the target stays current");

    let refused = Case::new();
    seed(&refused, &[OLDEST], CURRENT);
    let out = refused.launcher(&Scenario::manual_rollback(), &[("RELAY_FAKE_ROLLBACK_TO", "v0-1-0-11111111")]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr_text());
    assert!(refused.log().contains("rollback-refused rollback_refused"), "{}", refused.log());
    assert_eq!(read_catalog_json(&refused)["current"]["build"], CURRENT);
    assert_eq!(refused.starts(), [format!("{CURRENT} -")]);
}

/// Killed at each step of carrying out a manual rollback (before and after the catalog's
/// rename, after the request is applied but before it is removed), the next start ends with the
/// target current exactly once and no request left.
fn killed_during_manual_rollback() {
    for point in [
        "recovery:catalog-manual-rollback:before-rename",
        "recovery:catalog-manual-rollback:after-rename",
        "recovery:rollback-request:after-apply",
    ] {
        let case = Case::new();
        seed(&case, &[OLDEST], CURRENT);
        let first = case
            .launcher(&Scenario::manual_rollback(), &[("RELAY_FAKE_ROLLBACK_TO", OLDEST), ("RELAY_TEST_FAULT", point)]);
        assert_eq!(support::signal(&first), Some(9), "{point} must be reached: {}", first.stderr_text());
        let second = case.launcher(&Scenario::plain(), &[]);
        assert_eq!(second.status.code(), Some(0), "{point}: {}", second.stderr_text());
        let catalog = read_catalog_json(&case);
        assert_eq!(catalog["current"]["build"], OLDEST, "{point}");
        assert_eq!(catalog["predecessors"][0]["build"], CURRENT, "{point}");
        assert!(!case.root.join("recovery/rollback-request.json").exists(), "{point}");
        assert_eq!(case.starts().last().unwrap(), &format!("{OLDEST} -"), "{point}");
        case.assert_settled();
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `relay-launcher install` puts the runtime (the fake runtime binary) under its build id with
/// a marker and no catalog; the normal run bootstraps the catalog from it and starts it.
fn install_then_run_bootstraps() {
    let case = Case::new();
    let out = case.install_first(&support::self_exe(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), CURRENT);
    assert_eq!(case.runtime_dirs(), [CURRENT]);
    assert!(!case.root.join("recovery/catalog.json").exists(), "the run creates the catalog");
    let exe = case.root.join(format!("runtimes/{CURRENT}/relay-desktop"));
    assert_eq!(fs::read(&exe).unwrap(), fs::read(support::self_exe()).unwrap());
    let out = case.launcher(&Scenario::plain(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr_text());
    assert_eq!(read_catalog_json(&case)["current"]["build"], CURRENT);
    assert_eq!(case.starts(), [format!("{CURRENT} -")]);
    assert!(case.opened().is_empty());
    case.assert_settled();
}

/// Refusals change nothing: a second install (exit 1, `already_installed`), a linked or
/// non-ELF source (exit 1, nothing installed), and a malformed version or commit or an unknown
/// argument (exit 2 with the usage or the reason, the managed root not even created).
fn install_refusals() {
    let case = Case::new();
    assert_eq!(case.install_first(&support::self_exe(), &[]).status.code(), Some(0));
    let catalog_before = {
        assert_eq!(case.launcher(&Scenario::plain(), &[]).status.code(), Some(0));
        fs::read(case.root.join("recovery/catalog.json")).unwrap()
    };
    let again = case.install_first(&support::self_exe(), &[]);
    assert_eq!(again.status.code(), Some(1), "{}", text(&again.stderr));
    assert!(text(&again.stderr).contains("(already_installed)"), "{}", text(&again.stderr));
    assert_eq!(case.runtime_dirs(), [CURRENT]);
    assert_eq!(fs::read(case.root.join("recovery/catalog.json")).unwrap(), catalog_before);

    let case = Case::new();
    let link = case.home.join("linked-relay-desktop");
    std::os::unix::fs::symlink(support::self_exe(), &link).unwrap();
    let script = case.home.join("script");
    fs::write(
        &script,
        b"#!/bin/sh
exit 0
",
    )
    .unwrap();
    for (source, code) in [(&link, "(recovery_symlink)"), (&script, "(not_an_elf_executable)")] {
        let out = case.install_first(source, &[]);
        assert_eq!(out.status.code(), Some(1), "{code}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(code), "{code}: {}", text(&out.stderr));
        assert!(case.runtime_dirs().is_empty(), "{code}");
    }

    let case = Case::new();
    let exe = support::self_exe();
    let commit = support::current_commit();
    let bad: [&[&str]; 6] = [
        &["install", "--runtime", exe.to_str().unwrap(), "--version", "1.0", "--commit", &commit],
        &["install", "--runtime", exe.to_str().unwrap(), "--version", "1.0.0", "--commit", "aaaaaaa"],
        &["install", "--runtime", exe.to_str().unwrap(), "--version", "1.0.0"],
        &["install", "--runtime", exe.to_str().unwrap(), "--version", "1.0.0", "--commit", &commit, "--force"],
        &["--data-dir", "/tmp/relay-data", "--verbose"],
        &["uninstall"],
    ];
    for args in bad {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|arg| arg.as_ref()).collect();
        let out = case.launcher_command(&args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
        assert!(!case.root.exists(), "{args:?}: nothing may be created");
    }
    assert!(case.starts().is_empty());
}

/// Killed (SIGKILL) at each fault point of the first install: before the final rename only a
/// recognized `.partial-*` leftover exists, so a run trusts nothing (exit 1, nothing started,
/// only the releases page), and a fresh install then succeeds; after it the runtime is complete
/// and runs. Either way the end state is one settled catalog whose runtime starts.
fn killed_first_install() {
    for point in support::FIRST_INSTALL_POINTS {
        let case = Case::new();
        let killed = case.install_first(&support::self_exe(), &[("RELAY_TEST_FAULT", point)]);
        assert_eq!(killed.status.signal(), Some(9), "{point} must be reached: {}", text(&killed.stderr));
        if point.ends_with("after-rename") {
            assert_eq!(case.runtime_dirs(), [CURRENT], "{point}");
        } else {
            let dirs = case.runtime_dirs();
            assert!(matches!(dirs.as_slice(), [one] if one.starts_with(".partial-")), "{point}: {dirs:?}");
            let out = case.launcher(&Scenario::plain(), &[]);
            assert_eq!(out.status.code(), Some(1), "{point}: {}", out.stderr_text());
            assert!(case.starts().is_empty(), "{point}: no half runtime may run");
            assert_eq!(case.opened(), [RELEASES_PAGE], "{point}");
            let again = case.install_first(&support::self_exe(), &[]);
            assert_eq!(again.status.code(), Some(0), "{point}: {}", text(&again.stderr));
            assert_eq!(case.runtime_dirs(), [CURRENT], "{point}: the leftover is gone");
        }
        let out = case.launcher(&Scenario::plain(), &[]);
        assert_eq!(out.status.code(), Some(0), "{point}: {}", out.stderr_text());
        assert_eq!(case.starts(), [format!("{CURRENT} -")], "{point}");
        case.assert_settled();
    }
}

/// `scripts/install-desktop.sh` with prebuilt binaries under a temporary HOME: the launcher in
/// `~/.local/bin` (0755), the runtime under the managed root, the desktop entry (0644) naming
/// the launcher and the data directory; the installed launcher then starts that runtime, and a
/// second run of the script refreshes the files and leaves the installation alone.
fn install_desktop_script() {
    use std::os::unix::fs::PermissionsExt;
    let case = Case::new();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/install-desktop.sh");
    let commit = "0123abcd".to_owned() + &"f".repeat(32);
    let run = || {
        std::process::Command::new("bash")
            .arg(&script)
            .args(["--desktop".as_ref(), support::self_exe().as_os_str()])
            .args(["--launcher", env!("CARGO_BIN_EXE_relay-launcher"), "--commit", &commit])
            .args(["--data-dir".as_ref(), case.data_dir.as_os_str()])
            .env("HOME", &case.home)
            .env("XDG_DATA_HOME", &case.xdg)
            .env_remove("RELAY_TEST_FAULT")
            .env_remove("CARGO_TARGET_DIR")
            .output()
            .unwrap()
    };
    let out = run();
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    let mode = |path: &std::path::Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let launcher = case.home.join(".local/bin/relay-launcher");
    assert_eq!(mode(&launcher), 0o755);
    assert_eq!(fs::read(&launcher).unwrap(), fs::read(env!("CARGO_BIN_EXE_relay-launcher")).unwrap());
    let version = env!("CARGO_PKG_VERSION").replace('.', "-");
    let build = format!("v{version}-0123abcd");
    assert_eq!(case.runtime_dirs(), std::slice::from_ref(&build));
    let entry_path = case.xdg.join("applications/relay.desktop");
    assert_eq!(mode(&entry_path), 0o644);
    let entry = fs::read_to_string(&entry_path).unwrap();
    let exec = format!("Exec=\"{}\" --data-dir \"{}\"", launcher.display(), case.data_dir.display());
    for line in ["[Desktop Entry]", "Type=Application", "Name=Relay", &exec, "Terminal=false", "Categories=Network;"] {
        assert!(entry.lines().any(|l| l == line), "{line:?} missing from:\n{entry}");
    }
    let recovery_path = case.xdg.join("applications/relay-recovery.desktop");
    assert_eq!(mode(&recovery_path), 0o644);
    let recovery = fs::read_to_string(&recovery_path).unwrap();
    let recovery_exec = format!("Exec=\"{}\" recovery --data-dir \"{}\"", launcher.display(), case.data_dir.display());
    for line in ["Name=Relay (recovery)", &recovery_exec] {
        assert!(recovery.lines().any(|l| l == line), "{line:?} missing from:\n{recovery}");
    }
    let leftovers: Vec<_> = fs::read_dir(case.xdg.join("applications")).unwrap().collect();
    assert_eq!(leftovers.len(), 2, "no temp file left beside the entries");

    let out = case.launcher(&Scenario::plain(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr_text());
    assert_eq!(case.starts(), [format!("{build} -")]);

    let again = run();
    assert_eq!(again.status.code(), Some(0), "{}{}", text(&again.stdout), text(&again.stderr));
    assert!(text(&again.stdout).contains("already installed"), "{}", text(&again.stdout));
    assert_eq!(case.runtime_dirs(), [build]);
}

/// `relay-launcher recovery` starts the newest retained build that verifies (the catalog stays
/// as it is), falling back to the current build when none is retained; from that build the
/// Owner's rollback to it is carried out by the same run, whose next start follows the catalog
/// again.
fn recovery_entry_prefers_a_retained_build() {
    let case = Case::new();
    seed(&case, &[OLDEST], CURRENT);
    let out = case.launcher(&Scenario::plain().via_recovery_entry(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr_text());
    assert_eq!(case.starts(), [format!("{OLDEST} -")]);
    assert_eq!(read_catalog_json(&case)["current"]["build"], CURRENT, "the recovery entry changes no catalog");
    assert!(out.stderr_text().contains("recovery entry: starting a retained predecessor"), "{}", out.stderr_text());

    let rolled =
        case.launcher(&Scenario::any_build_rolls_back().via_recovery_entry(), &[("RELAY_FAKE_ROLLBACK_TO", OLDEST)]);
    assert_eq!(rolled.status.code(), Some(0), "{}", rolled.stderr_text());
    assert_eq!(case.starts()[1..], [format!("{OLDEST} -"), format!("{OLDEST} -")]);
    assert!(case.log().contains(&format!("rollback-requested {OLDEST}")), "{}", case.log());
    let catalog = read_catalog_json(&case);
    assert_eq!(
        (catalog["current"]["build"].as_str(), catalog["predecessors"][0]["build"].as_str()),
        (Some(OLDEST), Some(CURRENT))
    );
    case.assert_settled();

    let alone = Case::new();
    seed(&alone, &[], CURRENT);
    let out = alone.launcher(&Scenario::plain().via_recovery_entry(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr_text());
    assert_eq!(alone.starts(), [format!("{CURRENT} -")], "no retained build: the current one starts");
}

trait Sorted {
    fn sorted(self) -> Self;
}

impl Sorted for Vec<String> {
    fn sorted(mut self) -> Self {
        self.sort();
        self
    }
}

/// The `relay-desktop` package's layout (`usr/bin/relay-launcher`, the seed in
/// `usr/lib/relay-desktop/` with its manifest): the first start, without `--data-dir` as the menu
/// entry runs it, installs the seed into the managed root exactly as `relay-launcher install`
/// would (same build id, bytes, modes, no catalog until the bootstrap), bootstraps and starts it
/// with the default data directory `$XDG_DATA_HOME/relay-desktop`; the next start runs the same
/// build without installing anything.
fn packaged_first_start() {
    use std::os::unix::fs::PermissionsExt;
    let mut case = Case::new();
    let seed = case.install_package(None);
    let out = case.launcher(&Scenario::plain().with_default_data_dir(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr_text());
    assert!(out.stderr_text().contains("the packaged seed build installed"), "{}", out.stderr_text());
    assert_eq!(case.runtime_dirs(), [CURRENT]);
    let dir = case.root.join(format!("runtimes/{CURRENT}"));
    assert_eq!(fs::read(dir.join("relay-desktop")).unwrap(), fs::read(&seed).unwrap());
    let mode = |name: &str| fs::metadata(dir.join(name)).unwrap().permissions().mode() & 0o777;
    assert_eq!((mode("relay-desktop"), mode("marker.json")), (0o700, 0o600));
    assert_eq!(read_catalog_json(&case)["current"]["build"], CURRENT);
    assert_eq!(case.starts(), [format!("{CURRENT} -")]);
    let default_data = case.xdg.join("relay-desktop");
    assert_eq!(case.data_dirs(), [format!("{CURRENT} {}", default_data.display())]);
    case.assert_settled();
    assert!(case.opened().is_empty());

    let again = case.launcher(&Scenario::plain().with_default_data_dir(), &[]);
    assert_eq!(again.status.code(), Some(0), "{}", again.stderr_text());
    assert!(!again.stderr_text().contains("seed"), "{}", again.stderr_text());
    assert_eq!(case.starts(), [format!("{CURRENT} -"), format!("{CURRENT} -")]);
    assert_eq!(case.runtime_dirs(), [CURRENT]);
}

/// A seed whose bytes do not match its manifest's SHA-256, or whose manifest is malformed, is
/// never installed (no runtime, no partial directory): nothing can be proved, so the run fails
/// closed and opens only the releases page.
fn packaged_seed_refused() {
    let malformed = "not json";
    for (name, sha256, code) in
        [("digest", Some("00".repeat(32)), "digest_mismatch"), ("manifest", Some(malformed.into()), "seed_malformed")]
    {
        let mut case = Case::new();
        case.install_package(sha256.as_deref());
        let out = case.launcher(&Scenario::plain(), &[]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", out.stderr_text());
        assert!(out.stderr_text().contains(code), "{name}: {}", out.stderr_text());
        assert!(case.runtime_dirs().is_empty(), "{name}: {:?}", case.runtime_dirs());
        assert!(case.starts().is_empty(), "{name}");
        assert_eq!(case.opened(), [RELEASES_PAGE], "{name}");
    }
}

/// A managed root that already has its runtime, with a catalog or installed by
/// `relay-launcher install` and not yet started, keeps it: the seed is not copied.
fn packaged_seed_ignored_when_installed() {
    let mut case = Case::new();
    seed(&case, &[OLDEST], CURRENT);
    let catalog_before = fs::read(case.root.join("recovery/catalog.json")).unwrap();
    case.install_package(None);
    let out = case.launcher(&Scenario::plain(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr_text());
    assert!(!out.stderr_text().contains("seed"), "{}", out.stderr_text());
    assert_eq!(fs::read(case.root.join("recovery/catalog.json")).unwrap(), catalog_before);
    assert_eq!(case.runtime_dirs(), [CURRENT, OLDEST].map(String::from).to_vec().sorted());

    let mut installed = Case::new();
    support::write_runtime(&installed, OLDEST, &support::self_exe());
    installed.install_package(None);
    let out = installed.launcher(&Scenario::plain(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr_text());
    assert_eq!(installed.runtime_dirs(), [OLDEST]);
    assert_eq!(installed.starts(), [format!("{OLDEST} -")]);
}

/// Killed (SIGKILL) at each fault point of the seed's install on a first start: before the final
/// rename only a recognized leftover exists; the next start removes it, installs the seed again
/// and runs it. After the rename the next start adopts the complete runtime.
fn killed_seed_install() {
    for point in support::FIRST_INSTALL_POINTS {
        let mut case = Case::new();
        case.install_package(None);
        let killed = case.launcher(&Scenario::plain(), &[("RELAY_TEST_FAULT", point)]);
        assert_eq!(support::signal(&killed), Some(9), "{point} must be reached: {}", killed.stderr_text());
        assert!(case.starts().is_empty(), "{point}");
        let out = case.launcher(&Scenario::plain(), &[]);
        assert_eq!(out.status.code(), Some(0), "{point}: {}", out.stderr_text());
        assert_eq!(case.runtime_dirs(), [CURRENT], "{point}");
        assert_eq!(case.starts(), [format!("{CURRENT} -")], "{point}");
        case.assert_settled();
    }
}
