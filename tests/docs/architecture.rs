//! The invariants docs/architecture.md states, checked against the sources (issue #40 item 5):
//! crates depend only downwards (`domain` on nothing of ours), `domain` does no IO, the wall
//! clock is read only through `infra::clock`, every actor message type has a doc line, and
//! every production source file opens with a `//!` paragraph. Each check reads the files as
//! text (no build of the code under test), names every offending file and line, and fails; the
//! doc's "Invariant:" lines cite the test here that checks them, and
//! `every_checked_invariant_in_the_doc_names_an_existing_check` keeps the two in step.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The repository root (this file is `tests/docs/architecture.rs`, built from `app/`).
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").to_path_buf()
}

/// Production source roots: everything compiled into a shipped binary.
const PRODUCTION_ROOTS: &[&str] = &[
    "domain/src",
    "infra/src",
    "actors/src",
    "web/src",
    "app/src",
    "app/desktop/src",
    "app/launcher/src",
    "app/release/src",
];

/// Files that only tests compile (by name), skipped by the production checks.
fn is_test_file(path: &Path) -> bool {
    let name = path.file_name().unwrap().to_string_lossy();
    name == "tests.rs"
        || name == "testkit.rs"
        || name.ends_with("_tests.rs")
        || path.components().any(|c| c.as_os_str() == "tests" || c.as_os_str() == "test_support")
}

/// Every `.rs` file under `root` (bounded walk: no links followed).
fn rust_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else { continue };
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() && path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Production files under `roots`, with their text, relative paths as keys.
fn production_sources(roots: &[&str]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for root in roots {
        for path in rust_files(&repo().join(root)) {
            if is_test_file(&path) {
                continue;
            }
            let rel = path.strip_prefix(repo()).unwrap().to_string_lossy().into_owned();
            out.insert(rel, std::fs::read_to_string(&path).expect("read source"));
        }
    }
    assert!(out.len() > 20, "the walk found only {} production files: wrong root?", out.len());
    out
}

/// The lines of `text` before its first `#[cfg(test)]` item: inline test modules are test code.
fn non_test_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().take_while(|(_, l)| l.trim() != "#[cfg(test)]").map(|(i, l)| (i + 1, l))
}

/// `cargo metadata` of the workspace: each package's name and its normal (non-dev) dependencies
/// that are workspace packages.
fn workspace_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--no-deps", "--offline", "--format-version", "1"])
        .current_dir(repo())
        .output()
        .expect("run cargo metadata");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let packages = meta["packages"].as_array().expect("packages");
    let names: BTreeSet<String> = packages.iter().map(|p| p["name"].as_str().unwrap().to_owned()).collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                // Optional dependencies are the `test-fixtures` features' (fake upstreams for
                // tests), enabled only from dev-dependencies; the layering is about what ships.
                .filter(|d| d["kind"].is_null() && d["optional"] != true)
                .map(|d| d["name"].as_str().unwrap().to_owned())
                .filter(|d| names.contains(d))
                .collect();
            (p["name"].as_str().unwrap().to_owned(), deps)
        })
        .collect()
}

#[test]
fn crates_depend_only_downwards() {
    // Invariant: app -> web -> actors -> infra -> domain; domain depends on nothing of ours;
    // the recovery launcher on domain and infra only (it must start when the runtime cannot).
    let allowed: &[(&str, &[&str])] = &[
        ("domain", &[]),
        ("infra", &["domain"]),
        ("actors", &["domain", "infra"]),
        ("web", &["domain", "infra", "actors"]),
        ("relay-launcher", &["domain", "infra"]),
    ];
    let deps = workspace_dependencies();
    let mut wrong = Vec::new();
    for (krate, may) in allowed {
        let Some(has) = deps.get(*krate) else { panic!("no workspace package {krate}") };
        for d in has {
            if !may.contains(&d.as_str()) {
                wrong.push(format!("{krate} depends on {d}"));
            }
        }
    }
    assert!(wrong.is_empty(), "dependencies against the layering: {wrong:?}");
}

#[test]
fn domain_does_no_io() {
    // Invariant: domain is pure types and rules: no files, processes, environment, sockets,
    // clocks or async.
    const IO: &[&str] = &[
        "std::fs",
        "std::process",
        "std::env",
        "TcpStream",
        "TcpListener",
        "UdpSocket",
        "tokio",
        "async fn",
        "SystemTime::now",
        "Instant::now",
        "thread::sleep",
    ];
    let mut found = Vec::new();
    for (file, text) in production_sources(&["domain/src"]) {
        for (n, line) in non_test_lines(&text) {
            let code = line.split("//").next().unwrap_or("");
            if let Some(io) = IO.iter().find(|io| code.contains(*io)) {
                found.push(format!("{file}:{n} uses {io}"));
            }
        }
    }
    assert!(found.is_empty(), "IO in domain: {found:#?}");
}

#[test]
fn the_wall_clock_is_read_only_through_infra_clock() {
    // Invariant: every time-dependent rule reads `infra::clock` (so tests can move time); only
    // the clock module itself reads the system's wall clock.
    const READS: &[&str] = &["SystemTime::now(", "Utc::now(", "Local::now("];
    let mut found = Vec::new();
    for (file, text) in production_sources(PRODUCTION_ROOTS) {
        if file == "infra/src/clock.rs" {
            continue;
        }
        for (n, line) in non_test_lines(&text) {
            let code = line.split("//").next().unwrap_or("");
            if READS.iter().any(|r| code.contains(r)) {
                found.push(format!("{file}:{n}"));
            }
        }
    }
    assert!(found.is_empty(), "wall-clock reads outside infra/src/clock.rs: {found:#?}");
}

#[test]
fn every_actor_message_has_a_doc_line() {
    // Invariant: an actor's typed messages are its interface; each says what it asks for.
    let mut undocumented = Vec::new();
    let mut seen = 0;
    for (file, text) in production_sources(&["actors/src"]) {
        let lines: Vec<&str> = non_test_lines(&text).map(|(_, l)| l).collect();
        for (i, line) in lines.iter().enumerate() {
            let l = line.trim();
            if !(l.starts_with("#[derive(") && l.contains("Message")) || l.contains("MessageResponse") {
                continue;
            }
            seen += 1;
            let above = lines[..i].iter().rev().map(|l| l.trim()).find(|l| !l.starts_with("#["));
            if !above.is_some_and(|l| l.starts_with("///")) {
                let item = lines[i + 1..].iter().map(|l| l.trim()).find(|l| !l.starts_with("#[")).unwrap_or("");
                undocumented.push(format!("{file}:{} {item}", i + 1));
            }
        }
    }
    assert!(seen > 50, "found only {seen} message types: has the derive changed?");
    assert!(undocumented.is_empty(), "actor messages without a /// doc line: {undocumented:#?}");
}

#[test]
fn every_production_module_opens_with_a_doc_paragraph() {
    // Invariant: one `//!` paragraph per module says what it owns.
    let missing: Vec<String> = production_sources(PRODUCTION_ROOTS)
        .into_iter()
        .filter(|(_, text)| !text.trim_start().starts_with("//!"))
        .map(|(file, _)| file)
        .collect();
    assert!(missing.is_empty(), "modules without a //! paragraph: {missing:#?}");
}

#[test]
fn every_checked_invariant_in_the_doc_names_an_existing_check() {
    // docs/architecture.md marks a checked invariant with "(checked: `test_name`)"; the name must
    // be a test in this file, and every test here must be cited by the doc.
    let doc = std::fs::read_to_string(repo().join("docs/architecture.md")).expect("read architecture.md");
    let this = std::fs::read_to_string(repo().join("tests/docs/architecture.rs")).expect("read this file");
    let tests: BTreeSet<&str> = this
        .split("#[test]\nfn ")
        .skip(1)
        .filter_map(|rest| rest.split('(').next())
        .filter(|name| *name != "every_checked_invariant_in_the_doc_names_an_existing_check")
        .collect();
    let cited: BTreeSet<&str> = doc.split("(checked: `").skip(1).filter_map(|rest| rest.split('`').next()).collect();
    let unknown: Vec<_> = cited.difference(&tests).collect();
    let uncited: Vec<_> = tests.difference(&cited).collect();
    assert!(unknown.is_empty(), "docs/architecture.md cites checks that do not exist: {unknown:?}");
    assert!(uncited.is_empty(), "checks docs/architecture.md does not cite: {uncited:?}");
}

#[test]
fn the_readme_names_every_actor_folder() {
    // The README's subsystem table lists exactly the folders under actors/src.
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("read README.md");
    let folders: BTreeSet<String> = std::fs::read_dir(repo().join("actors/src"))
        .expect("read actors/src")
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(folders.len() > 10, "found only {} actor folders", folders.len());
    let table = readme.split("| actor folder |").nth(1).expect("README has an '| actor folder |' table");
    let listed: BTreeSet<String> = table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.split('`').nth(1).map(str::to_string))
        .collect();
    let missing: Vec<_> = folders.difference(&listed).collect();
    let extra: Vec<_> = listed.difference(&folders).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "README actor table: missing {missing:?}, no such folder {extra:?}"
    );
}

/// The subcommand names a clap `--help` lists under "Commands:" (without `help`).
fn subcommands(args: &[&str]) -> Vec<String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_relay")).args(args).output().expect("run relay --help");
    assert!(out.status.success(), "relay {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).expect("help is UTF-8");
    let Some(commands) = text.split("Commands:\n").nth(1) else { return Vec::new() };
    commands
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l[2..].starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn the_readme_cli_names_every_relay_subcommand() {
    // The README's CLI block has one `relay <command>` line per command of `relay --help`, and
    // that line names every subcommand `relay <command> --help` lists; it names nothing else.
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("read README.md");
    let block = readme.split("## CLI").nth(1).and_then(|s| s.split("```text\n").nth(1)).expect("README CLI block");
    let block = block.split("```").next().unwrap();
    let lines: BTreeMap<&str, &str> = block
        .lines()
        .filter_map(|l| l.strip_prefix("relay "))
        .filter(|rest| !rest.starts_with('-'))
        .map(|rest| (rest.split_whitespace().next().unwrap(), rest))
        .collect();
    let commands = subcommands(&["--help"]);
    assert!(commands.len() >= 9, "relay --help lists only {commands:?}");
    let mut problems = Vec::new();
    for command in &commands {
        let Some(line) = lines.get(command.as_str()) else {
            problems.push(format!("no `relay {command}` line"));
            continue;
        };
        let words: BTreeSet<&str> =
            line.split(|c: char| c.is_whitespace() || c == '|' || c == '[' || c == ']').collect();
        for sub in subcommands(&[command, "--help"]) {
            if !words.contains(sub.as_str()) {
                problems.push(format!("`relay {command}` line does not name `{sub}`"));
            }
        }
    }
    for listed in lines.keys() {
        if !commands.iter().any(|c| c == listed) {
            problems.push(format!("`relay {listed}` is not a command of relay --help"));
        }
    }
    assert!(problems.is_empty(), "README CLI block vs relay --help: {problems:#?}");
}

#[test]
fn every_crate_uses_the_workspace_lints() {
    // The house rules that are lints live once, in the root `[workspace.lints]`; a member that does
    // not opt in escapes them silently.
    let root = std::fs::read_to_string(repo().join("Cargo.toml")).expect("read Cargo.toml");
    assert!(root.contains("[workspace.lints.clippy]"), "the root Cargo.toml has no [workspace.lints.clippy]");
    let members = root.split("members = [").nth(1).and_then(|s| s.split(']').next()).expect("workspace members");
    let members: Vec<&str> = members.split(',').map(|m| m.trim().trim_matches('"')).filter(|m| !m.is_empty()).collect();
    assert!(members.len() >= 8, "found only {members:?}");
    let missing: Vec<&str> = members
        .iter()
        .copied()
        .filter(|m| {
            let manifest = std::fs::read_to_string(repo().join(m).join("Cargo.toml")).expect("read member manifest");
            !manifest.contains("[lints]\nworkspace = true")
        })
        .collect();
    assert!(missing.is_empty(), "members without `[lints] workspace = true`: {missing:?}");
}
