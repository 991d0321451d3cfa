//! What an archive may contain before a single byte of it is extracted: the entry-name rules
//! (relative, `/`-separated, no empty, `.` or `..` part, no `\`, `:`, NUL or other control
//! character, no duplicate even when only the case differs) and the size limits (entries,
//! extracted bytes, free-space margin) with the backup preflight. Entry kinds (symlinks,
//! encryption) are read from the ZIP headers by `infra::backup::verifier`, which applies these
//! rules to every entry.

use std::collections::HashSet;

pub const MIB: u64 = 1024 * 1024;
pub const GIB: u64 = 1024 * MIB;
/// At most this many entries in one archive.
pub const MAX_ENTRIES: usize = 100_000;
/// At most this many bytes extracted from one archive (the declared sizes, and then the
/// bytes actually streamed).
pub const MAX_EXTRACTED_BYTES: u64 = 8 * GIB;
/// Extraction must leave at least this much free space on the data filesystem.
pub const FREE_SPACE_MARGIN_BYTES: u64 = 512 * MIB;
/// The longest entry name accepted, in bytes.
pub const MAX_ENTRY_NAME_BYTES: usize = 1024;

/// The extraction limits. `Default` gives the documented numbers; tests lower them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtractionLimits {
    pub max_entries: usize,
    pub max_extracted_bytes: u64,
    pub free_space_margin_bytes: u64,
}

impl Default for ExtractionLimits {
    fn default() -> Self {
        ExtractionLimits {
            max_entries: MAX_ENTRIES,
            max_extracted_bytes: MAX_EXTRACTED_BYTES,
            free_space_margin_bytes: FREE_SPACE_MARGIN_BYTES,
        }
    }
}

impl ExtractionLimits {
    /// Whether `total_bytes` may be extracted onto a filesystem with `free_bytes` available.
    pub fn fits_free_space(&self, total_bytes: u64, free_bytes: u64) -> bool {
        total_bytes <= free_bytes.saturating_sub(self.free_space_margin_bytes)
    }
}

/// Free space a backup needs before it starts: 512 MiB plus twice the live data size (the
/// snapshot and the archive side by side).
pub fn preflight_required_bytes(live_data_bytes: u64) -> u64 {
    FREE_SPACE_MARGIN_BYTES.saturating_add(live_data_bytes.saturating_mul(2))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EntryNameError {
    #[error("an archive entry has an empty name")]
    Empty,
    #[error("an archive entry name is too long")]
    TooLong,
    #[error("an archive entry name is absolute")]
    Absolute,
    #[error("an archive entry name contains a backslash")]
    Backslash,
    #[error("an archive entry name contains a colon")]
    Colon,
    #[error("an archive entry name contains a control character")]
    ControlCharacter,
    #[error("an archive entry name has an empty, '.' or '..' part")]
    BadPart,
    #[error("an archive holds the same entry name twice")]
    Duplicate,
}

/// Checks one entry name. A single trailing `/` (a directory entry) is allowed.
pub fn check_entry_name(name: &str) -> Result<(), EntryNameError> {
    if name.is_empty() {
        return Err(EntryNameError::Empty);
    }
    if name.len() > MAX_ENTRY_NAME_BYTES {
        return Err(EntryNameError::TooLong);
    }
    if name.starts_with('/') {
        return Err(EntryNameError::Absolute);
    }
    if name.contains('\\') {
        return Err(EntryNameError::Backslash);
    }
    if name.contains(':') {
        return Err(EntryNameError::Colon);
    }
    if name.chars().any(char::is_control) {
        return Err(EntryNameError::ControlCharacter);
    }
    let body = name.strip_suffix('/').unwrap_or(name);
    if body.split('/').any(|part| part.is_empty() || part == "." || part == "..") {
        return Err(EntryNameError::BadPart);
    }
    Ok(())
}

/// The names seen so far in one archive, compared case-insensitively (an archive extracted on
/// a case-insensitive filesystem must not overwrite one entry with another). Directory entries
/// compare without their trailing `/`, so `a/` and a file `A` collide.
#[derive(Debug, Default)]
pub struct EntryNameSet {
    seen: HashSet<String>,
}

impl EntryNameSet {
    pub fn new() -> EntryNameSet {
        EntryNameSet::default()
    }

    /// Checks `name` and records it.
    pub fn insert(&mut self, name: &str) -> Result<(), EntryNameError> {
        check_entry_name(name)?;
        let key = name.strip_suffix('/').unwrap_or(name).to_lowercase();
        if !self.seen.insert(key) {
            return Err(EntryNameError::Duplicate);
        }
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.seen.len()
    }
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_plain_relative_names() {
        for name in ["relay.db", "manifest.json", "files/wiki/runbook 1.pdf", "files/logos/", "a/b/c.d"] {
            assert_eq!(check_entry_name(name), Ok(()), "{name}");
        }
    }

    #[test]
    fn refuses_traversal_and_odd_names() {
        use EntryNameError::*;
        let long = "a".repeat(MAX_ENTRY_NAME_BYTES + 1);
        for (name, error) in [
            ("", Empty),
            ("/absolute", Absolute),
            ("../escape", BadPart),
            ("storage/../escape", BadPart),
            ("./x", BadPart),
            ("a//b", BadPart),
            ("/", Absolute),
            ("C:/escape", Colon),
            ("dir\\file", Backslash),
            ("nul\0byte", ControlCharacter),
            ("line\nbreak", ControlCharacter),
            ("del\u{7f}", ControlCharacter),
            (long.as_str(), TooLong),
            ("a//", BadPart),
        ] {
            assert_eq!(check_entry_name(name), Err(error), "{name:?}");
        }
    }

    #[test]
    fn duplicates_are_caught_case_insensitively() {
        let mut set = EntryNameSet::new();
        set.insert("files/Runbook.pdf").unwrap();
        assert_eq!(set.insert("files/runbook.PDF"), Err(EntryNameError::Duplicate));
        set.insert("files/").unwrap();
        assert_eq!(set.insert("FILES"), Err(EntryNameError::Duplicate), "a directory and a file of one name");
        assert_eq!(set.insert("../x"), Err(EntryNameError::BadPart), "the set applies the name rules too");
        assert_eq!(set.len(), 2);
    }

    #[test]
    fn free_space_and_preflight_keep_the_margin() {
        let limits = ExtractionLimits::default();
        assert!(limits.fits_free_space(GIB, GIB + 512 * MIB));
        assert!(!limits.fits_free_space(GIB + 1, GIB + 512 * MIB));
        assert!(!limits.fits_free_space(1, 100 * MIB), "less free space than the margin fits nothing");
        assert!(limits.fits_free_space(0, 0));
        assert_eq!(preflight_required_bytes(0), 512 * MIB);
        assert_eq!(preflight_required_bytes(GIB), 512 * MIB + 2 * GIB);
        assert_eq!(preflight_required_bytes(u64::MAX), u64::MAX);
        assert_eq!((limits.max_entries, limits.max_extracted_bytes), (100_000, 8 * GIB));
    }
}
