//! Restore journal rules against a model filesystem: a crash after every install step rolls
//! back to the original with nothing lost, a crash after every commit step finishes with the
//! restored data and the machine's own preserved directories, recovery interrupted at any of
//! its own steps converges when run again, and malformed, unsafe or ambiguous states fail
//! closed without a step.

use std::collections::BTreeSet;

use super::*;

const STAGE: &str = ".relay-backup-verify-0123456789abcdef";
const ORIGINAL: &str = ".relay-backup-original-0123456789abcdef";

fn journal() -> RestoreJournal {
    RestoreJournal::new(STAGE, ORIGINAL, &PreservedDir::ALL).unwrap()
}

/// A directory's identity: which data it holds and which preserved directories sit in it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Tree {
    data: &'static str,
    preserved: BTreeSet<PreservedDir>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Fs {
    live: Option<Tree>,
    original: Option<Tree>,
    stage: Option<Tree>,
    journal: Option<RestoreJournal>,
}

impl Fs {
    /// Before a restore: live holds the old data and both preserved directories; the stage holds
    /// the verified extraction (its archived copies of preserved directories already dropped).
    fn before() -> Fs {
        Fs {
            live: Some(Tree { data: "old", preserved: PreservedDir::ALL.into_iter().collect() }),
            original: None,
            stage: Some(Tree { data: "new", preserved: BTreeSet::new() }),
            journal: None,
        }
    }

    fn apply(&mut self, step: SwapStep) {
        let moved = |from: &mut Option<Tree>, to: &mut Option<Tree>, p: PreservedDir| {
            assert!(from.as_mut().unwrap().preserved.remove(&p), "{p:?} must be there to move");
            assert!(to.as_mut().unwrap().preserved.insert(p), "{p:?} must not be overwritten");
        };
        match step {
            SwapStep::WriteJournal { committed } => {
                self.journal = Some(if committed { journal().committed() } else { journal() })
            }
            SwapStep::RenameLiveToOriginal => self.original = Some(self.live.take().unwrap()),
            SwapStep::RenameStageToLive => self.live = Some(self.stage.take().unwrap()),
            SwapStep::RenameOriginalToLive => {
                assert!(self.live.is_none(), "rename never replaces a directory");
                self.live = Some(self.original.take().unwrap());
            }
            SwapStep::MovePreservedToLive(p) => moved(&mut self.original, &mut self.live, p),
            SwapStep::MovePreservedToOriginal(p) => moved(&mut self.live, &mut self.original, p),
            SwapStep::RemoveLive => self.live = None,
            SwapStep::RemoveOriginal => self.original = None,
            SwapStep::RemoveStage => self.stage = None,
            SwapStep::RemoveJournal => self.journal = None,
        }
    }

    fn observe(&self) -> ObservedRestore {
        let state = |t: &Option<Tree>| if t.is_some() { PathState::Directory } else { PathState::Absent };
        let inside = |t: &Option<Tree>| t.as_ref().map(|t| t.preserved.iter().copied().collect()).unwrap_or_default();
        ObservedRestore {
            live: state(&self.live),
            original: state(&self.original),
            stage: state(&self.stage),
            preserved_in_live: inside(&self.live),
            preserved_in_original: inside(&self.original),
        }
    }

    /// What a cold start does: read the journal, observe, plan, carry out (stopping after
    /// `crash_after` steps when given).
    fn cold_start(&mut self, crash_after: Option<usize>) {
        let Some(journal) = self.journal.clone() else { return };
        let journal = RestoreJournal::parse(&journal.to_json()).unwrap();
        let steps = plan_recovery(&journal, &self.observe()).unwrap();
        for step in steps.into_iter().take(crash_after.unwrap_or(usize::MAX)) {
            self.apply(step);
        }
    }
}

fn all_preserved(data: &'static str) -> Option<Tree> {
    Some(Tree { data, preserved: PreservedDir::ALL.into_iter().collect() })
}

#[test]
fn a_crash_after_any_install_step_rolls_back_to_the_original() {
    let steps = install_steps(&journal());
    assert_eq!(steps.len(), 5);
    for crash in 0..=steps.len() {
        let mut fs = Fs::before();
        steps.iter().take(crash).for_each(|s| fs.apply(*s));
        fs.cold_start(None);
        // Before the journal exists nothing was touched: the stage is a leftover for the sweep.
        let stage = if crash == 0 { Fs::before().stage } else { None };
        let expected = Fs { live: all_preserved("old"), original: None, stage, journal: None };
        assert_eq!(fs, expected, "crash after {crash} install steps");
    }
}

#[test]
fn a_crash_after_any_commit_step_finishes_with_the_restored_data() {
    let install = install_steps(&journal());
    let commit = commit_steps();
    for crash in 1..=commit.len() {
        let mut fs = Fs::before();
        install.iter().chain(commit.iter().take(crash)).for_each(|s| fs.apply(*s));
        fs.cold_start(None);
        let expected = Fs { live: all_preserved("new"), original: None, stage: None, journal: None };
        assert_eq!(fs, expected, "crash after {crash} commit steps");
    }
}

#[test]
fn recovery_interrupted_at_any_of_its_steps_converges_when_run_again() {
    let install = install_steps(&journal());
    for installed in 0..=install.len() {
        for crash in 0..6 {
            let mut fs = Fs::before();
            install.iter().take(installed).for_each(|s| fs.apply(*s));
            fs.cold_start(Some(crash));
            fs.cold_start(None);
            fs.cold_start(None);
            assert_eq!(fs.live, all_preserved("old"), "installed {installed}, recovery crashed after {crash}");
            let stage = if installed == 0 { Fs::before().stage } else { None };
            assert_eq!((fs.original, fs.stage, fs.journal), (None, stage, None));
        }
    }
}

#[test]
fn a_committed_swap_finishes_even_with_preserved_dirs_left_in_the_original() {
    let j = journal().committed();
    let observed = ObservedRestore {
        live: PathState::Directory,
        original: PathState::Directory,
        stage: PathState::Absent,
        preserved_in_live: vec![PreservedDir::LostAndFound],
        preserved_in_original: vec![PreservedDir::Backups],
    };
    assert_eq!(
        plan_recovery(&j, &observed),
        Ok(vec![
            SwapStep::MovePreservedToLive(PreservedDir::Backups),
            SwapStep::RemoveOriginal,
            SwapStep::RemoveJournal
        ]),
        "the machine's backups are never deleted with the original"
    );
    assert_eq!(plan_rollback(&j, &observed), Err(JournalError::AlreadyCommitted));
}

#[test]
fn ambiguous_and_unsafe_states_fail_closed() {
    let both_missing = ObservedRestore {
        live: PathState::Absent,
        original: PathState::Absent,
        stage: PathState::Directory,
        preserved_in_live: vec![],
        preserved_in_original: vec![],
    };
    assert_eq!(plan_recovery(&journal(), &both_missing), Err(JournalError::Ambiguous));
    assert_eq!(plan_recovery(&journal().committed(), &both_missing), Err(JournalError::Ambiguous));
    let duplicate = ObservedRestore {
        live: PathState::Directory,
        original: PathState::Directory,
        stage: PathState::Absent,
        preserved_in_live: vec![PreservedDir::Backups],
        preserved_in_original: vec![PreservedDir::Backups],
    };
    assert_eq!(plan_recovery(&journal(), &duplicate), Err(JournalError::Ambiguous), "keep both copies");
    assert_eq!(plan_recovery(&journal().committed(), &duplicate), Err(JournalError::Ambiguous));
    for unsafe_at in 0..3 {
        let mut observed = duplicate.clone();
        observed.preserved_in_live.clear();
        *[&mut observed.live, &mut observed.original, &mut observed.stage][unsafe_at] = PathState::Unsafe;
        assert_eq!(plan_recovery(&journal(), &observed), Err(JournalError::UnsafeEntry));
    }
}

#[test]
fn the_journal_parses_strictly() {
    let good = journal();
    assert_eq!(RestoreJournal::parse(&good.to_json()), Ok(good.clone()));
    let text = String::from_utf8(good.to_json()).unwrap();
    assert_eq!(
        text,
        format!(
            r#"{{"version":1,"stage":"{STAGE}","original":"{ORIGINAL}","committed":false,"preserved":["backups","lost+found"]}}"#
        )
    );
    let mutate = |change: &dyn Fn(&mut serde_json::Value)| {
        let mut v: serde_json::Value = serde_json::from_slice(&good.to_json()).unwrap();
        change(&mut v);
        RestoreJournal::parse(&serde_json::to_vec(&v).unwrap())
    };
    for original in
        ["../outside", "/outside", "pb_data", ".relay-backup-original-invalid", ".relay-backup-original-../../../etc/x"]
    {
        assert_eq!(mutate(&|v| v["original"] = original.into()), Err(JournalError::UnsafePath), "{original}");
    }
    assert_eq!(
        mutate(&|v| v["stage"] = ".relay-backup-verify-a/b0123456789abcd".into()),
        Err(JournalError::UnsafePath)
    );
    assert_eq!(mutate(&|v| v["stage"] = ORIGINAL.into()), Err(JournalError::UnsafePath));
    assert_eq!(mutate(&|v| v["extra"] = 1.into()), Err(JournalError::Malformed));
    assert_eq!(
        mutate(&|v| v.as_object_mut().unwrap().remove("committed").map(|_| ()).unwrap()),
        Err(JournalError::Malformed)
    );
    assert_eq!(mutate(&|v| v["version"] = 2.into()), Err(JournalError::Malformed));
    assert_eq!(mutate(&|v| v["committed"] = "yes".into()), Err(JournalError::Malformed));
    assert_eq!(mutate(&|v| v["preserved"] = serde_json::json!(["backups", "backups"])), Err(JournalError::Malformed));
    assert_eq!(mutate(&|v| v["preserved"] = serde_json::json!([".autocert_cache"])), Err(JournalError::Malformed));
    assert_eq!(RestoreJournal::parse(&vec![b' '; MAX_JOURNAL_BYTES + 1]), Err(JournalError::Malformed));
    assert_eq!(stage_dir_name("short"), Err(JournalError::UnsafePath));
    assert_eq!(original_dir_name("0123456789abcdef").as_deref(), Ok(ORIGINAL));
    assert!(is_stage_dir_name(STAGE) && !is_stage_dir_name(ORIGINAL) && !is_original_dir_name(STAGE));
}
