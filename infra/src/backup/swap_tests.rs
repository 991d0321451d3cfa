//! The journaled swap on real directories: install and commit, every install and commit step
//! failing (undone at once) or interrupted (a panic stands in for a crash; recovery run twice),
//! interrupted rollback and recovery resumed, a second restore refused, unsafe, ambiguous and
//! linked journals, stores and stages refused without touching data, preserved directories
//! keeping their identity, and kill -9 of a real child process at every fault point followed by
//! a cold start on a real SQLite store.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::*;
use crate::datadir::DataDir;

const SUFFIX: &str = "0123456789abcdef";

fn stage_name(suffix: &str) -> String {
    domain::backup::journal::stage_dir_name(suffix).unwrap()
}

/// A data directory whose store holds `original` and a stage (with a manifest) holding
/// `restored`. Returns the canonical root and the stage's name.
fn setup(tmp: &Path) -> (PathBuf, String) {
    let dir = DataDir::open(tmp.join("data")).unwrap();
    let root = dir.root().to_path_buf();
    fs::write(dir.db_path(), b"original").unwrap();
    fs::create_dir(dir.store_dir().join("files")).unwrap();
    fs::write(dir.store_dir().join("files/logo.png"), b"original logo").unwrap();
    let stage = stage_name(SUFFIX);
    make_stage(&root, &stage, b"restored");
    (root, stage)
}

fn make_stage(root: &Path, name: &str, db: &[u8]) {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new().mode(0o700).create(root.join(name)).unwrap();
    fs::write(root.join(name).join("relay.db"), db).unwrap();
    fs::write(root.join(name).join("manifest.json"), b"{}").unwrap();
}

fn live(root: &Path) -> String {
    String::from_utf8(fs::read(root.join("store/relay.db")).unwrap()).unwrap()
}

/// The data directory's entries other than `secrets` and `store`.
fn others(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "secrets" && n != "store")
        .collect();
    names.sort();
    names
}

fn fail_at(point: String) -> impl Fn(&str) -> io::Result<()> {
    move |name| if name == point { Err(io::Error::other("injected")) } else { Ok(()) }
}

fn crash_at(point: String) -> impl Fn(&str) -> io::Result<()> {
    move |name| if name == point { panic!("crash at {point}") } else { Ok(()) }
}

fn install_points() -> Vec<String> {
    install_and_commit_fault_points().into_iter().filter(|p| !p.starts_with("restore:commit:")).collect()
}

fn recover_points(steps: &[SwapStep]) -> Vec<String> {
    steps.iter().flat_map(|s| ["before", "after"].map(|w| fault_name(Phase::Recover, w, *s))).collect()
}

#[test]
fn install_then_commit_swaps_the_store_and_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, stage) = setup(tmp.path());
    let mut pending = install(&root, &stage).unwrap();
    assert_eq!(live(&root), "restored");
    assert!(!root.join("store/manifest.json").exists(), "the manifest belongs to the archive");
    let journal = read_journal(&root).unwrap().unwrap();
    assert_eq!(&journal, pending.journal());
    assert!(!journal.committed && journal.stage == stage && journal.preserved.is_empty());
    assert_eq!(fs::read(root.join(&journal.original).join("relay.db")).unwrap(), b"original");
    assert_eq!(fs::metadata(root.join(JOURNAL_FILE_NAME)).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(pending.store_dir(), root.join("store"));

    assert_eq!(pending.commit().unwrap(), CommitOutcome::Finished);
    assert_eq!(live(&root), "restored");
    assert_eq!(others(&root), Vec::<String>::new(), "no original, stage or journal left");
    assert!(matches!(pending.commit(), Err(SwapError::AlreadyCommitted)));
    assert!(matches!(pending.rollback(), Err(SwapError::AlreadyCommitted)), "refused after commit");
    assert_eq!(recover_at_start(&root).unwrap(), RecoveryOutcome::Nothing);
}

#[test]
fn a_rollback_puts_the_original_back() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, stage) = setup(tmp.path());
    install(&root, &stage).unwrap().rollback().unwrap();
    assert_eq!(live(&root), "original");
    assert_eq!(fs::read(root.join("store/files/logo.png")).unwrap(), b"original logo");
    assert_eq!(others(&root), Vec::<String>::new());
}

#[test]
fn each_install_step_failing_preserves_the_original() {
    for point in install_points() {
        let tmp = tempfile::tempdir().unwrap();
        let (root, stage) = setup(tmp.path());
        let refused = install_with(&root, &stage, &[], &fail_at(point.clone()));
        assert!(matches!(refused, Err(SwapError::Io { .. })), "{point}: {refused:?}");
        assert_eq!(live(&root), "original", "{point}");
        assert_eq!(others(&root), Vec::<String>::new(), "{point}: undone, stage and journal removed");
    }
}

#[test]
fn an_install_or_commit_interrupted_anywhere_is_recovered_and_recovery_is_idempotent() {
    let marker = fault_name(Phase::Commit, "after", SwapStep::WriteJournal { committed: true });
    let points = install_and_commit_fault_points();
    let committed_from = points.iter().position(|p| *p == marker).unwrap();
    for (i, point) in points.iter().enumerate() {
        let tmp = tempfile::tempdir().unwrap();
        let (root, stage) = setup(tmp.path());
        let crash = crash_at(point.clone());
        let crashed = catch_unwind(AssertUnwindSafe(|| {
            let mut pending = install_with(&root, &stage, &[], &crash).unwrap();
            pending.commit_with(&crash).unwrap();
        }));
        assert!(crashed.is_err(), "{point} was not reached");
        let first = recover_at_start(&root).unwrap();
        assert_eq!(
            recover_at_start(&root).unwrap(),
            RecoveryOutcome::Nothing,
            "{point}: the second run has nothing to do"
        );
        let expected = if i >= committed_from { "restored" } else { "original" };
        assert_eq!(live(&root), expected, "{point} ({first:?})");
        assert_eq!(others(&root), Vec::<String>::new(), "{point}: nothing half-swapped left");
    }
}

#[test]
fn an_interrupted_rollback_is_resumed_at_the_next_start() {
    let probe = tempfile::tempdir().unwrap();
    let (root, stage) = setup(probe.path());
    let pending = install(&root, &stage).unwrap();
    let journal = pending.journal().clone();
    let plan = plan_rollback(&journal, &Layout { root: &root, journal: &journal }.observe().unwrap()).unwrap();
    assert_eq!(plan, vec![SwapStep::RemoveLive, SwapStep::RenameOriginalToLive, SwapStep::RemoveJournal]);
    for point in recover_points(&plan) {
        let tmp = tempfile::tempdir().unwrap();
        let (root, stage) = setup(tmp.path());
        let pending = install(&root, &stage).unwrap();
        let crashed = catch_unwind(AssertUnwindSafe(|| pending.rollback_with(&crash_at(point.clone()))));
        assert!(crashed.is_err(), "{point}");
        recover_at_start(&root).unwrap();
        recover_at_start(&root).unwrap();
        assert_eq!(live(&root), "original", "{point}");
        assert_eq!(others(&root), Vec::<String>::new(), "{point}");
    }
}

#[test]
fn a_recovery_interrupted_at_each_of_its_steps_converges_when_run_again() {
    let after_install = fault_name(Phase::Install, "after", SwapStep::RenameStageToLive);
    let plan = [SwapStep::RemoveLive, SwapStep::RenameOriginalToLive, SwapStep::RemoveJournal];
    for point in recover_points(&plan) {
        let tmp = tempfile::tempdir().unwrap();
        let (root, stage) = setup(tmp.path());
        let crash = crash_at(after_install.clone());
        assert!(catch_unwind(AssertUnwindSafe(|| install_with(&root, &stage, &[], &crash))).is_err());
        let crash = crash_at(point.clone());
        assert!(catch_unwind(AssertUnwindSafe(|| recover_with(&root, &crash))).is_err(), "{point}");
        recover_at_start(&root).unwrap();
        assert_eq!(recover_at_start(&root).unwrap(), RecoveryOutcome::Nothing);
        assert_eq!(live(&root), "original", "{point}");
        assert_eq!(others(&root), Vec::<String>::new(), "{point}");
    }
}

#[test]
fn a_second_restore_is_refused_while_a_journal_exists() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, stage) = setup(tmp.path());
    let pending = install(&root, &stage).unwrap();
    let second = stage_name("fedcba9876543210");
    make_stage(&root, &second, b"second");
    let refused = install(&root, &second);
    assert!(matches!(refused, Err(SwapError::RecoveryPending)), "{refused:?}");
    assert_eq!(refused.unwrap_err().to_string(), "Another backup restore needs recovery");
    assert_eq!(live(&root), "restored");
    assert!(root.join(&second).join("manifest.json").exists(), "the second stage was not touched");
    pending.rollback().unwrap();
    assert_eq!(live(&root), "original");
}

/// Writes a journal by hand and says what recovery made of it; the data is never touched.
fn recover_hand_written(root: &Path, journal: serde_json::Value) -> SwapError {
    fs::write(root.join(JOURNAL_FILE_NAME), serde_json::to_vec(&journal).unwrap()).unwrap();
    let before = others(root);
    let error = recover_at_start(root).unwrap_err();
    assert_eq!(others(root), before, "nothing touched, journal kept");
    assert_eq!(live(root), "original");
    fs::remove_file(root.join(JOURNAL_FILE_NAME)).unwrap();
    error
}

#[test]
fn unsafe_journal_paths_are_refused_without_touching_data() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, stage) = setup(tmp.path());
    for original in ["../outside", "/outside", "store", ".relay-backup-original-invalid"] {
        let journal = serde_json::json!({
            "version": 1, "stage": stage, "original": original, "committed": false, "preserved": []
        });
        let error = recover_hand_written(&root, journal);
        assert!(matches!(error, SwapError::Journal(JournalError::UnsafePath)), "{original}: {error:?}");
    }
    let journal = serde_json::json!({"version": 1, "stage": stage, "committed": false});
    assert!(matches!(recover_hand_written(&root, journal), SwapError::Journal(JournalError::Malformed)));
    fs::write(root.join(JOURNAL_FILE_NAME), vec![b' '; MAX_JOURNAL_BYTES + 1]).unwrap();
    assert!(matches!(recover_at_start(&root), Err(SwapError::Journal(JournalError::Malformed))));
}

#[test]
fn both_live_and_original_missing_fails_closed_and_keeps_the_journal() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, stage) = setup(tmp.path());
    let pending = install(&root, &stage).unwrap();
    let original = root.join(&pending.journal().original);
    fs::rename(root.join("store"), tmp.path().join("elsewhere")).unwrap();
    fs::rename(&original, tmp.path().join("elsewhere-original")).unwrap();
    let error = recover_at_start(&root).unwrap_err();
    assert!(matches!(error, SwapError::Journal(JournalError::Ambiguous)), "{error:?}");
    assert!(root.join(JOURNAL_FILE_NAME).is_file(), "the journal is kept for an administrator");
    assert!(matches!(pending.rollback(), Err(SwapError::Journal(JournalError::Ambiguous))));
    assert!(root.join(JOURNAL_FILE_NAME).is_file());
}

#[test]
fn linked_stores_stages_and_journals_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, stage) = setup(tmp.path());
    // A linked stage, a stage outside the data directory, a stage without a database.
    let linked = stage_name("linkedlinkedlink");
    std::os::unix::fs::symlink(root.join(&stage), root.join(&linked)).unwrap();
    assert!(matches!(install(&root, &linked), Err(SwapError::UnsafeStage)));
    assert!(matches!(install(&root, "../.relay-backup-verify-0123456789abcdef"), Err(SwapError::UnsafeStage)));
    assert!(matches!(install(&root, "store"), Err(SwapError::UnsafeStage)));
    let empty = stage_name("emptyemptyempty0");
    fs::create_dir(root.join(&empty)).unwrap();
    assert!(matches!(install(&root, &empty), Err(SwapError::StageWithoutDatabase)));
    assert!(matches!(install(&root.join("store/.."), &stage), Err(SwapError::UnsafeDataRoot)));
    // A link inside the stage or the live store.
    std::os::unix::fs::symlink("/etc/passwd", root.join(&stage).join("files")).unwrap();
    assert!(matches!(install(&root, &stage), Err(SwapError::LinkOrSpecialFile)));
    fs::remove_file(root.join(&stage).join("files")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", root.join("store/files/link")).unwrap();
    assert!(matches!(install(&root, &stage), Err(SwapError::LinkOrSpecialFile)));
    fs::remove_file(root.join("store/files/link")).unwrap();
    // A linked live store.
    fs::rename(root.join("store"), root.join("real-store")).unwrap();
    std::os::unix::fs::symlink(root.join("real-store"), root.join("store")).unwrap();
    assert!(matches!(install(&root, &stage), Err(SwapError::UnsafeLive)));
    fs::remove_file(root.join("store")).unwrap();
    fs::rename(root.join("real-store"), root.join("store")).unwrap();
    assert!(root.join(&stage).join("manifest.json").exists(), "refusals touch nothing");

    // Recovery: a linked live store after install, then a linked journal.
    let pending = install(&root, &stage).unwrap();
    fs::rename(root.join("store"), root.join("moved")).unwrap();
    std::os::unix::fs::symlink(root.join("moved"), root.join("store")).unwrap();
    assert!(matches!(recover_at_start(&root), Err(SwapError::Journal(JournalError::UnsafeEntry))));
    fs::remove_file(root.join("store")).unwrap();
    fs::rename(root.join("moved"), root.join("store")).unwrap();
    fs::rename(root.join(JOURNAL_FILE_NAME), root.join("journal-elsewhere")).unwrap();
    std::os::unix::fs::symlink(root.join("journal-elsewhere"), root.join(JOURNAL_FILE_NAME)).unwrap();
    assert!(matches!(recover_at_start(&root), Err(SwapError::UnsafeJournal)));
    assert!(matches!(install(&root, &stage), Err(SwapError::RecoveryPending)));
    fs::remove_file(root.join(JOURNAL_FILE_NAME)).unwrap();
    fs::rename(root.join("journal-elsewhere"), root.join(JOURNAL_FILE_NAME)).unwrap();
    pending.rollback().unwrap();
    assert_eq!(live(&root), "original");
}

#[test]
fn trees_are_counted_without_following_links_and_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, stage) = setup(tmp.path());
    // store: relay.db, files/, files/logo.png
    assert_eq!(inspect_tree(&root.join("store"), MAX_TREE_ENTRIES).unwrap(), 3);
    assert!(matches!(inspect_tree(&root.join("store"), 2), Err(SwapError::TooManyEntries)));
    assert_eq!(inspect_tree(&root.join(&stage), 2).unwrap(), 2);
    std::os::unix::fs::symlink(root.join("store"), root.join(&stage).join("linked-dir")).unwrap();
    assert!(matches!(inspect_tree(&root.join(&stage), MAX_TREE_ENTRIES), Err(SwapError::LinkOrSpecialFile)));
}

#[test]
fn a_committed_journal_whose_cleanup_failed_is_finished_at_the_next_start() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, stage) = setup(tmp.path());
    let mut pending = install(&root, &stage).unwrap();
    let point = fault_name(Phase::Commit, "before", SwapStep::RemoveOriginal);
    assert_eq!(pending.commit_with(&fail_at(point)).unwrap(), CommitOutcome::CleanupDeferred);
    let journal = read_journal(&root).unwrap().unwrap();
    assert!(journal.committed && root.join(&journal.original).is_dir());
    assert!(matches!(pending.rollback(), Err(SwapError::AlreadyCommitted)));
    assert_eq!(recover_at_start(&root).unwrap(), RecoveryOutcome::FinishedCommit);
    assert_eq!(live(&root), "restored");
    assert_eq!(others(&root), Vec::<String>::new());
}

#[test]
fn a_commit_marker_that_reads_committed_after_a_failed_sync_is_never_rolled_back() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, stage) = setup(tmp.path());
    let mut pending = install(&root, &stage).unwrap();
    let synced = fault_name(Phase::Commit, "after", SwapStep::WriteJournal { committed: true });
    assert_eq!(pending.commit_with(&fail_at(synced)).unwrap(), CommitOutcome::Finished);
    assert_eq!(live(&root), "restored");
    assert_eq!(others(&root), Vec::<String>::new());

    // A marker that never landed: the commit fails and the swap can still be rolled back.
    let tmp = tempfile::tempdir().unwrap();
    let (root, stage) = setup(tmp.path());
    let mut pending = install(&root, &stage).unwrap();
    let unwritten = fault_name(Phase::Commit, "before", SwapStep::WriteJournal { committed: true });
    assert!(matches!(pending.commit_with(&fail_at(unwritten)), Err(SwapError::Io { .. })));
    pending.rollback().unwrap();
    assert_eq!(live(&root), "original");
}

#[test]
fn preserved_directories_keep_their_identity_and_archived_copies_are_dropped() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, stage) = setup(tmp.path());
    fs::create_dir(root.join("store/backups")).unwrap();
    fs::write(root.join("store/backups/local.zip"), b"local").unwrap();
    fs::create_dir(root.join(&stage).join("backups")).unwrap();
    fs::write(root.join(&stage).join("backups/archived.zip"), b"archived").unwrap();
    let inode = fs::metadata(root.join("store/backups")).unwrap().ino();
    let all = PreservedDir::ALL;

    let pending = install_with(&root, &stage, &all, &real_faults).unwrap();
    assert_eq!(pending.journal().preserved, vec![PreservedDir::Backups], "only what the live store has");
    assert_eq!(fs::metadata(root.join("store/backups")).unwrap().ino(), inode);
    assert!(!root.join("store/backups/archived.zip").exists());
    pending.rollback().unwrap();
    assert_eq!(fs::metadata(root.join("store/backups")).unwrap().ino(), inode, "moved back with the original");
    assert_eq!(live(&root), "original");

    make_stage(&root, &stage, b"restored");
    let mut pending = install_with(&root, &stage, &all, &real_faults).unwrap();
    pending.commit().unwrap();
    assert_eq!(fs::read(root.join("store/backups/local.zip")).unwrap(), b"local");
    assert_eq!((live(&root), others(&root)), ("restored".to_string(), Vec::<String>::new()));

    // A file where a preserved directory belongs is refused.
    fs::write(root.join("store/lost+found"), b"not a directory").unwrap();
    make_stage(&root, &stage, b"refused");
    assert!(matches!(install_with(&root, &stage, &all, &real_faults), Err(SwapError::LinkOrSpecialFile)));
    fs::remove_file(root.join("store/lost+found")).unwrap();
    fs::remove_dir_all(root.join(&stage)).unwrap();

    // Interrupted after the move into the new live store: recovery moves it back.
    make_stage(&root, &stage, b"again");
    let point = fault_name(Phase::Install, "after", SwapStep::MovePreservedToLive(PreservedDir::Backups));
    let crash = crash_at(point);
    assert!(catch_unwind(AssertUnwindSafe(|| install_with(&root, &stage, &all, &crash))).is_err());
    assert_eq!(recover_at_start(&root).unwrap(), RecoveryOutcome::RolledBack);
    assert_eq!(fs::metadata(root.join("store/backups")).unwrap().ino(), inode);
    assert_eq!(live(&root), "restored");
}

#[test]
fn orphan_stages_and_journal_temp_files_are_swept_at_start_and_links_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, stage) = setup(tmp.path());
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    let linked = stage_name("linkedlinkedlink");
    std::os::unix::fs::symlink(&elsewhere, root.join(&linked)).unwrap();
    fs::write(root.join(".relay-backup-restore.tmp-4242"), b"{").unwrap();
    assert_eq!(recover_at_start(&root).unwrap(), RecoveryOutcome::Nothing);
    assert!(!root.join(&stage).exists());
    assert_eq!(others(&root), vec![linked]);
    assert!(elsewhere.is_dir());
}

mod kill9 {
    //! kill -9 of a real process at every fault point, then a cold start on real SQLite files.

    use std::os::unix::process::ExitStatusExt;
    use std::process::Command;

    use diesel::connection::SimpleConnection;
    use diesel::RunQueryDsl;

    use super::*;

    const CHILD_MARKER: &str = "RELAY_SWAP_KILL_CHILD";
    const CHILD_DIR: &str = "RELAY_SWAP_KILL_DIR";
    const ORIGINAL_ROWS: i64 = 40;
    const RESTORED_ROWS: i64 = 25;

    /// Writes a migrated store with `n` rows of `origin` at `target`. The rows are written in a
    /// scratch directory and checkpointed into the main file, which is then copied into place:
    /// r2d2 may close a dropped pool's last connection on its own thread a moment later, and
    /// SQLite then deletes that store's `-wal` by path, so no pool ever opens a file in the tree
    /// being swapped (the server closes its pool before a restore for the same reason).
    fn write_rows(scratch: &Path, target: &Path, origin: &str, n: i64) {
        use diesel::Connection;
        fs::create_dir(scratch).unwrap();
        let path = scratch.join("relay.db");
        drop(crate::db::open(&path, 1).unwrap());
        let mut conn = diesel::SqliteConnection::establish(path.to_str().unwrap()).unwrap();
        conn.batch_execute("PRAGMA busy_timeout = 10000;").unwrap(); // the pool may still be closing
        conn.batch_execute(&format!(
            "CREATE TABLE swap_probe (id INTEGER PRIMARY KEY, origin TEXT NOT NULL); \
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n}) \
             INSERT INTO swap_probe (origin) SELECT '{origin}' FROM n; \
             PRAGMA wal_checkpoint(TRUNCATE);"
        ))
        .unwrap();
        drop(conn);
        fs::copy(&path, target).unwrap();
    }

    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::Text)]
        origin: String,
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }

    #[derive(diesel::QueryableByName)]
    struct Check {
        #[diesel(sql_type = diesel::sql_types::Text)]
        integrity_check: String,
    }

    #[test]
    fn kill_9_at_every_swap_step_then_a_cold_start_recovers_a_whole_store() {
        if !crate::fault::FAULT_POINTS_ENABLED {
            return; // fault points are compiled out without debug assertions (see `fault`)
        }
        let points = install_and_commit_fault_points();
        let marker = fault_name(Phase::Commit, "after", SwapStep::WriteJournal { committed: true });
        let committed_from = points.iter().position(|p| *p == marker).unwrap();
        for (i, point) in points.iter().enumerate() {
            let tmp = tempfile::tempdir().unwrap();
            let out = Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "backup::swap::tests::kill9::child_restores_until_killed", "--ignored"])
                .args(["--nocapture", "--test-threads=1"])
                .env(CHILD_MARKER, "1")
                .env(CHILD_DIR, tmp.path())
                .env(crate::fault::FAULT_ENV, point)
                .output()
                .unwrap();
            let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            assert_eq!(out.status.signal(), Some(libc::SIGKILL), "{point}: the child was not killed:\n{text}");

            let root = fs::canonicalize(tmp.path().join("data")).unwrap();
            recover_at_start(&root).unwrap();
            assert_eq!(recover_at_start(&root).unwrap(), RecoveryOutcome::Nothing, "{point}");
            assert_eq!(others(&root), Vec::<String>::new(), "{point}: no stage, original or journal left");
            let dir = DataDir::open(&root).unwrap();
            let (pool, applied) = crate::db::open(&dir.db_path(), 1).unwrap();
            assert!(applied.is_empty(), "{point}: a whole, migrated store");
            let mut conn = pool.get().unwrap();
            let check: Vec<Check> = diesel::sql_query("PRAGMA integrity_check").load(&mut conn).unwrap();
            assert_eq!(check.iter().map(|c| c.integrity_check.as_str()).collect::<Vec<_>>(), ["ok"], "{point}");
            let counts: Vec<Count> = diesel::sql_query("SELECT origin, count(*) AS n FROM swap_probe GROUP BY origin")
                .load(&mut conn)
                .unwrap();
            let got: Vec<(String, i64)> = counts.into_iter().map(|c| (c.origin, c.n)).collect();
            let expected = if i >= committed_from {
                ("restored".to_string(), RESTORED_ROWS)
            } else {
                ("original".to_string(), ORIGINAL_ROWS)
            };
            assert_eq!(got, vec![expected], "{point}");
        }
    }

    #[test]
    #[ignore = "child of kill_9_at_every_swap_step_then_a_cold_start_recovers_a_whole_store"]
    fn child_restores_until_killed() {
        assert!(std::env::var_os(CHILD_MARKER).is_some(), "run through the kill -9 test");
        let base = PathBuf::from(std::env::var_os(CHILD_DIR).unwrap());
        let dir = DataDir::open(base.join("data")).unwrap();
        let root = dir.root().to_path_buf();
        write_rows(&base.join("scratch-original"), &dir.db_path(), "original", ORIGINAL_ROWS);
        let stage = stage_name(SUFFIX);
        make_stage(&root, &stage, b"");
        let staged = root.join(&stage).join("relay.db");
        write_rows(&base.join("scratch-restored"), &staged, "restored", RESTORED_ROWS);
        let mut pending = install(&root, &stage).unwrap();
        pending.commit().unwrap();
    }
}
