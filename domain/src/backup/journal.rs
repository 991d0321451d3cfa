//! The restore journal (`.relay-backup-restore.json` in the data directory) and the swap it
//! protects. A restore replaces the live store directory with a verified extraction (the
//! stage): journal written uncommitted, live renamed to the original, stage renamed to live,
//! preserved directories (`backups`, `lost+found`) moved from the original into the new live;
//! then the journal is rewritten committed and the original and stage are deleted. The journal
//! has exact keys and bounded, pattern-checked names (direct children of the data directory,
//! nothing else). [`plan_recovery`] says what a cold start must do before the store opens: an
//! uncommitted swap is rolled back to the original, a committed one has its cleanup finished;
//! every plan is idempotent (re-observe and re-plan after a crash), and a malformed or ambiguous
//! journal is a typed error that leaves everything in place (fail closed). The live directory's
//! own name is the caller's; this module only says "live".

use serde::{Deserialize, Serialize};

pub const JOURNAL_FILE_NAME: &str = ".relay-backup-restore.json";
pub const MAX_JOURNAL_BYTES: usize = 4096;
pub const JOURNAL_VERSION: u32 = 1;
/// Private extraction directories (verification and restore stage) are named this + suffix.
pub const STAGE_PREFIX: &str = ".relay-backup-verify-";
/// The live directory moved aside during a restore is named this + suffix.
pub const ORIGINAL_PREFIX: &str = ".relay-backup-original-";
pub const MIN_DIR_SUFFIX_LEN: usize = 16;
pub const MAX_DIR_SUFFIX_LEN: usize = 64;

/// Directories of the live store that stay the machine's own across a restore.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum PreservedDir {
    #[serde(rename = "backups")]
    Backups,
    #[serde(rename = "lost+found")]
    LostAndFound,
}

impl PreservedDir {
    pub const ALL: [PreservedDir; 2] = [PreservedDir::Backups, PreservedDir::LostAndFound];

    pub fn dir_name(self) -> &'static str {
        match self {
            PreservedDir::Backups => "backups",
            PreservedDir::LostAndFound => "lost+found",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RestoreJournal {
    pub version: u32,
    /// The verified extraction being installed (a direct child of the data directory).
    pub stage: String,
    /// Where the previous live directory is kept until commit (a direct child too).
    pub original: String,
    pub committed: bool,
    pub preserved: Vec<PreservedDir>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum JournalError {
    #[error("the restore journal is malformed; recovery requires an administrator")]
    Malformed,
    #[error("the restore journal names an unsafe path; recovery requires an administrator")]
    UnsafePath,
    #[error("a restore path is a link or not a directory; recovery requires an administrator")]
    UnsafeEntry,
    #[error("the interrupted restore is ambiguous; both copies were kept for an administrator")]
    Ambiguous,
    #[error("a committed restore cannot be rolled back")]
    AlreadyCommitted,
}

fn dir_suffix_ok(suffix: &str) -> bool {
    (MIN_DIR_SUFFIX_LEN..=MAX_DIR_SUFFIX_LEN).contains(&suffix.len())
        && suffix.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn named(prefix: &str, suffix: &str) -> Result<String, JournalError> {
    dir_suffix_ok(suffix).then(|| format!("{prefix}{suffix}")).ok_or(JournalError::UnsafePath)
}

/// `.relay-backup-verify-<suffix>` (suffix: 16-64 of `[A-Za-z0-9_-]`, random, from the caller).
pub fn stage_dir_name(suffix: &str) -> Result<String, JournalError> {
    named(STAGE_PREFIX, suffix)
}

/// `.relay-backup-original-<suffix>`.
pub fn original_dir_name(suffix: &str) -> Result<String, JournalError> {
    named(ORIGINAL_PREFIX, suffix)
}

/// Whether `name` is a stage directory name Relay generates (for start-up sweeps of leftovers).
pub fn is_stage_dir_name(name: &str) -> bool {
    name.strip_prefix(STAGE_PREFIX).is_some_and(dir_suffix_ok)
}

/// Whether `name` is an original-directory name Relay generates.
pub fn is_original_dir_name(name: &str) -> bool {
    name.strip_prefix(ORIGINAL_PREFIX).is_some_and(dir_suffix_ok)
}

impl RestoreJournal {
    /// An uncommitted journal for installing `stage`, moving live aside to `original`.
    pub fn new(stage: &str, original: &str, preserved: &[PreservedDir]) -> Result<RestoreJournal, JournalError> {
        let journal = RestoreJournal {
            version: JOURNAL_VERSION,
            stage: stage.to_string(),
            original: original.to_string(),
            committed: false,
            preserved: preserved.to_vec(),
        };
        journal.check()?;
        Ok(journal)
    }

    fn check(&self) -> Result<(), JournalError> {
        if self.version != JOURNAL_VERSION {
            return Err(JournalError::Malformed);
        }
        if !is_stage_dir_name(&self.stage) || !is_original_dir_name(&self.original) {
            return Err(JournalError::UnsafePath);
        }
        let mut seen = self.preserved.clone();
        seen.sort();
        seen.dedup();
        if seen.len() != self.preserved.len() {
            return Err(JournalError::Malformed);
        }
        Ok(())
    }

    /// Parses the journal file strictly (at most 4096 bytes, exact keys).
    pub fn parse(bytes: &[u8]) -> Result<RestoreJournal, JournalError> {
        if bytes.len() > MAX_JOURNAL_BYTES {
            return Err(JournalError::Malformed);
        }
        let journal: RestoreJournal = serde_json::from_slice(bytes).map_err(|_| JournalError::Malformed)?;
        journal.check()?;
        Ok(journal)
    }

    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a journal always serializes")
    }

    /// The journal as rewritten at commit.
    pub fn committed(&self) -> RestoreJournal {
        RestoreJournal { committed: true, ..self.clone() }
    }
}

/// One filesystem step of the swap, its commit or its recovery, in the order given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwapStep {
    /// Write the journal (atomically, fsynced) with this committed flag.
    WriteJournal {
        committed: bool,
    },
    RenameLiveToOriginal,
    RenameStageToLive,
    MovePreservedToLive(PreservedDir),
    MovePreservedToOriginal(PreservedDir),
    RemoveLive,
    RenameOriginalToLive,
    RemoveOriginal,
    RemoveStage,
    RemoveJournal,
}

/// The install, up to (not including) commit. Stage copies of preserved directories must
/// already be gone from the stage (they come from the live store instead).
pub fn install_steps(journal: &RestoreJournal) -> Vec<SwapStep> {
    let mut steps = vec![SwapStep::WriteJournal { committed: false }, SwapStep::RenameLiveToOriginal];
    steps.push(SwapStep::RenameStageToLive);
    steps.extend(journal.preserved.iter().map(|p| SwapStep::MovePreservedToLive(*p)));
    steps
}

/// Commit once the restored store served reads: the journal says committed, then cleanup.
pub fn commit_steps() -> Vec<SwapStep> {
    vec![
        SwapStep::WriteJournal { committed: true },
        SwapStep::RemoveOriginal,
        SwapStep::RemoveStage,
        SwapStep::RemoveJournal,
    ]
}

/// What is on disk for one journal path, read with `lstat` (no link followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathState {
    Absent,
    Directory,
    /// A symbolic link, a file or anything else: never touched.
    Unsafe,
}

/// The state a cold start observes for the journal's paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObservedRestore {
    pub live: PathState,
    pub original: PathState,
    pub stage: PathState,
    /// Preserved directories present directly inside live / inside the original.
    pub preserved_in_live: Vec<PreservedDir>,
    pub preserved_in_original: Vec<PreservedDir>,
}

/// What a cold start does for `journal` given what is on disk: roll back an uncommitted swap
/// (the original becomes live again, preserved directories go back with it), or finish the
/// cleanup of a committed one. The last step always removes the journal; on error nothing is
/// touched and the journal stays.
pub fn plan_recovery(journal: &RestoreJournal, observed: &ObservedRestore) -> Result<Vec<SwapStep>, JournalError> {
    use PathState::*;
    if [observed.live, observed.original, observed.stage].contains(&Unsafe) {
        return Err(JournalError::UnsafeEntry);
    }
    let in_live = |p: &PreservedDir| observed.preserved_in_live.contains(p);
    let in_original = |p: &PreservedDir| observed.preserved_in_original.contains(p);
    let mut steps = Vec::new();
    if journal.committed {
        if observed.live != Directory {
            return Err(JournalError::Ambiguous);
        }
        if observed.original == Directory {
            for p in &journal.preserved {
                match (in_live(p), in_original(p)) {
                    (true, true) => return Err(JournalError::Ambiguous),
                    (false, true) => steps.push(SwapStep::MovePreservedToLive(*p)),
                    _ => {}
                }
            }
            steps.push(SwapStep::RemoveOriginal);
        }
    } else {
        match (observed.live, observed.original) {
            (Directory, Directory) => {
                for p in &journal.preserved {
                    match (in_live(p), in_original(p)) {
                        (true, true) => return Err(JournalError::Ambiguous),
                        (true, false) => steps.push(SwapStep::MovePreservedToOriginal(*p)),
                        _ => {}
                    }
                }
                steps.extend([SwapStep::RemoveLive, SwapStep::RenameOriginalToLive]);
            }
            (Absent, Directory) => steps.push(SwapStep::RenameOriginalToLive),
            (Directory, Absent) => {}
            _ => return Err(JournalError::Ambiguous),
        }
    }
    if observed.stage == Directory {
        steps.push(SwapStep::RemoveStage);
    }
    steps.push(SwapStep::RemoveJournal);
    Ok(steps)
}

/// Rolling back a swap that is still running (the restored store failed to start): the same
/// plan as a cold start, refused once committed.
pub fn plan_rollback(journal: &RestoreJournal, observed: &ObservedRestore) -> Result<Vec<SwapStep>, JournalError> {
    if journal.committed {
        return Err(JournalError::AlreadyCommitted);
    }
    plan_recovery(journal, observed)
}

#[cfg(test)]
#[path = "journal_tests.rs"]
mod tests;
