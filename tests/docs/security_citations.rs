//! docs/security.md stays true to the code: every test its "proved by" column cites exists.
//! A cited name (a backticked `snake_case` test name, alone or at the end of a `a::b::name`
//! path, or each name inside `{a, b}`) must be a function (`fn name`) or a named test case
//! (`"name"`, the launcher's table-driven harness) in a source file of this repository; a cited
//! file (`ui/src/…test.ts`, `tests/e2e/….test.mjs`, `webdriver_admin.py`) must exist. Module
//! citations (`…::tests::*`, `…::tests`) must name a module or file that exists. Issue #39
//! found two tests cited that had never been written; this makes that a CI failure.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The repository root (this file is `tests/docs/security_citations.rs`, built from `app/`).
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").to_path_buf()
}

const SOURCE_ROOTS: &[&str] = &["domain", "infra", "actors", "web", "app", "tests", "ui/src", "scripts"];
const SKIPPED_DIRS: &[&str] = &["target", "node_modules", "dist", ".git"];
const SOURCE_EXTENSIONS: &[&str] = &["rs", "ts", "tsx", "mjs", "py", "sh"];

/// Every source file under the roots (bounded walk: no links followed).
fn source_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = SOURCE_ROOTS.iter().map(|r| repo().join(r)).collect();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else { continue };
            let name = entry.file_name().to_string_lossy().into_owned();
            if kind.is_dir() && !SKIPPED_DIRS.contains(&name.as_str()) {
                stack.push(path);
            } else if kind.is_file() && path.extension().is_some_and(|e| SOURCE_EXTENSIONS.iter().any(|x| e == *x)) {
                out.push(path);
            }
        }
    }
    out
}

/// What the sources define: function names, quoted test-case names, module and file stems,
/// and file names.
struct Defined {
    names: HashSet<String>,
    files: HashSet<String>,
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

fn defined() -> Defined {
    let mut names = HashSet::new();
    let mut files = HashSet::new();
    for path in source_files() {
        let rel = path.strip_prefix(repo()).unwrap().to_string_lossy().into_owned();
        files.insert(path.file_name().unwrap().to_string_lossy().into_owned());
        files.insert(rel);
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        names.insert(stem.clone());
        if stem == "mod" {
            if let Some(parent) = path.parent().and_then(|p| p.file_name()) {
                names.insert(parent.to_string_lossy().into_owned());
            }
        }
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        for word in ["fn ", "mod ", "def "] {
            for (at, _) in text.match_indices(word) {
                let rest = &text[at + word.len()..];
                let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
                names.insert(rest[..end].to_string());
            }
        }
        for quoted in text.split('"').skip(1).step_by(2) {
            if is_identifier(quoted) {
                names.insert(quoted.to_string());
            }
        }
    }
    Defined { names, files }
}

/// The "proved by" cell (the last column) of each control row of the Built table, with its line.
fn proof_cells(doc: &str) -> Vec<(usize, String)> {
    let built = doc.split("\n## ").find(|s| s.starts_with("Built")).expect("a Built section");
    let first_line = doc[..doc.find(built).unwrap()].lines().count();
    built
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with('|') && !l.starts_with("| ---") && !l.starts_with("| control "))
        .map(|(i, l)| {
            // Escaped pipes (`\|`) sit inside cells; split on the others.
            let cells: Vec<&str> = l.split(" | ").collect();
            (first_line + i, cells.last().unwrap().trim_end_matches('|').to_string())
        })
        .collect()
}

/// The backticked spans of a cell.
fn code_spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

const SOURCE_SUFFIXES: &[&str] = &[".rs", ".ts", ".tsx", ".ts(x)", ".mjs", ".py", ".sh"];

/// The names and files one code span cites (empty when it cites neither): a source file
/// (optionally `file.py::function`), or code names. Data paths (`secrets/`, `/proc/…`) are not
/// citations.
fn citations(span: &str) -> (Vec<String>, Vec<String>) {
    let span = span.trim().trim_end_matches("()");
    let (file_part, function) = match span.split_once("::") {
        Some((file, function)) if SOURCE_SUFFIXES.iter().any(|x| file.ends_with(x)) => (file, Some(function)),
        _ => (span, None),
    };
    if SOURCE_SUFFIXES.iter().any(|x| file_part.ends_with(x)) && !file_part.contains(' ') {
        return (function.map(|f| vec![f.to_string()]).unwrap_or_default(), vec![file_part.to_string()]);
    }
    if span.contains('/') || (span.contains(' ') && !span.contains('{')) {
        return (vec![], vec![]);
    }
    let (head, last) = match span.find("::{") {
        Some(i) => (&span[..i], span[i + 3..].trim_end_matches('}')),
        None => match span.rfind("::") {
            Some(i) => (&span[..i], &span[i + 2..]),
            None => ("", span),
        },
    };
    let mut names: Vec<String> =
        last.split(',').map(|n| n.trim().rsplit("::").next().unwrap_or("").to_string()).collect();
    if names.iter().any(|n| n == "*") {
        // `a::tests::*` cites the module `tests` of `a`: its last path segment.
        names = vec![head.rsplit("::").next().unwrap_or("").to_string()];
    }
    // Only snake_case names are citations of code (types and prose are not checked here); a
    // bare word is taken for a test name only when it reads like one (two underscores or more).
    let names = names
        .into_iter()
        .filter(|n| is_identifier(n) && (span.contains("::") || n.matches('_').count() >= 2))
        .collect();
    (names, vec![])
}

/// Whether `file` (a repository path, a bare file name, or a `dir/*.test.ts(x)` glob) exists.
fn file_exists(defined: &Defined, file: &str) -> bool {
    if let Some((dir, pattern)) = file.rsplit_once("/*") {
        let suffixes: Vec<String> = match pattern.strip_suffix("(x)") {
            Some(ts) => vec![ts.to_string(), format!("{ts}x")],
            None => vec![pattern.to_string()],
        };
        return defined.files.iter().any(|f| {
            f.strip_prefix(dir)
                .and_then(|rest| rest.strip_prefix('/'))
                .is_some_and(|rest| !rest.contains('/') && suffixes.iter().any(|s| rest.ends_with(s.as_str())))
        });
    }
    let base = file.rsplit('/').next().unwrap_or(file);
    defined.files.contains(file) || defined.files.contains(base) || repo().join(file).exists()
}

/// The names of the test binaries (`[[test]] name = "…"` in the manifests).
fn test_binary_names() -> Vec<String> {
    ["app/Cargo.toml", "app/launcher/Cargo.toml", "app/desktop/Cargo.toml", "infra/Cargo.toml"]
        .iter()
        .filter_map(|m| std::fs::read_to_string(repo().join(m)).ok())
        .flat_map(|text| {
            text.lines()
                .filter_map(|l| {
                    l.trim().strip_prefix("name = \"").and_then(|r| r.strip_suffix('"')).map(str::to_string)
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn every_test_docs_security_cites_exists() {
    let doc = std::fs::read_to_string(repo().join("docs/security.md")).expect("docs/security.md");
    let mut defined = defined();
    defined.names.extend(test_binary_names());
    let mut missing = Vec::new();
    let mut checked = 0;
    for (line, cell) in proof_cells(&doc) {
        for span in code_spans(&cell) {
            let (names, files) = citations(span);
            for name in names {
                checked += 1;
                if !defined.names.contains(&name) {
                    missing.push(format!("line {line}: `{span}` ({name} is not defined anywhere)"));
                }
            }
            for file in files {
                checked += 1;
                if !file_exists(&defined, &file) {
                    missing.push(format!("line {line}: `{span}` (no such file)"));
                }
            }
        }
    }
    assert!(checked > 300, "the parser found only {checked} citations: has the table's shape changed?");
    assert!(
        missing.is_empty(),
        "docs/security.md cites {} test(s) that do not exist:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn the_parser_finds_names_paths_groups_and_files() {
    assert_eq!(
        citations("blackbox::auth::other_sources_failures_never_lock_out_the_operator").0,
        ["other_sources_failures_never_lock_out_the_operator"]
    );
    assert_eq!(citations("infra::token::tests::*").0, ["tests"]);
    assert_eq!(citations("bridge::tests::{a_b, c_d}").0, ["a_b", "c_d"]);
    assert_eq!(citations("global_bucket_limits_distributed_guessing").0, ["global_bucket_limits_distributed_guessing"]);
    assert_eq!(citations("ui/src/features/alerts/richBody.test.ts").1, ["ui/src/features/alerts/richBody.test.ts"]);
    assert_eq!(
        citations("tests/desktop/webdriver_bridge.py::check_radar_sign_in"),
        (vec!["check_radar_sign_in".to_string()], vec!["tests/desktop/webdriver_bridge.py".to_string()])
    );
    assert_eq!(citations("secrets/radar-session"), (vec![], vec![]));
    assert!(citations("integrity_check").0.is_empty(), "a pragma, not a test name");
    assert!(citations("no-store").0.is_empty());
    assert!(citations("RELAY_BOOTSTRAP_PASSPHRASE").0.is_empty());
}
