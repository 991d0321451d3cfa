//! Archive file names. Relay writes `backup_YYYY-MM-DD_HH-MM-SS_<suffix>.zip` for regular
//! backups and `pre_restore_YYYY-MM-DD_HH-MM-SS_<suffix>.zip` for the safety archive taken
//! before a restore; the time is UTC and the suffix is random, supplied by the caller (8-64
//! ASCII letters, digits or `-`). Parsing is strict: a name is ours only if generating it again
//! from what was parsed gives the same bytes, so traversal, other extensions, impossible dates
//! and look-alikes are all "not ours" and never listed, verified, restored or pruned.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub const REGULAR_PREFIX: &str = "backup_";
pub const PRE_RESTORE_PREFIX: &str = "pre_restore_";
pub const ARCHIVE_EXTENSION: &str = ".zip";
/// Appended to a name while the archive is being written; never listed.
pub const PART_EXTENSION: &str = ".part";
pub const MIN_SUFFIX_LEN: usize = 8;
pub const MAX_SUFFIX_LEN: usize = 64;

/// Which budget an archive counts against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ArchiveKind {
    /// A scheduled or operator-requested backup (`backup_…`).
    Regular,
    /// The safety archive taken before a restore (`pre_restore_…`).
    PreRestore,
}

impl ArchiveKind {
    pub fn prefix(self) -> &'static str {
        match self {
            ArchiveKind::Regular => REGULAR_PREFIX,
            ArchiveKind::PreRestore => PRE_RESTORE_PREFIX,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("Invalid backup name")]
    Invalid,
    #[error("the random suffix must be 8-64 ASCII letters, digits or '-'")]
    InvalidSuffix,
    #[error("the archive time must be between 1970 and 9999")]
    InvalidTime,
}

/// A validated archive name. Its time is whole seconds (the name has no finer resolution).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ArchiveName {
    kind: ArchiveKind,
    created_ms: i64,
    text: String,
}

const MAX_CREATED_MS: i64 = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z

fn valid_suffix(suffix: &str) -> bool {
    (MIN_SUFFIX_LEN..=MAX_SUFFIX_LEN).contains(&suffix.len())
        && suffix.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

fn render(kind: ArchiveKind, created_ms: i64, suffix: &str) -> String {
    // format_ms: `YYYY-MM-DD HH:MM:SS.mmmZ`
    let wire = crate::time::format_ms(created_ms);
    let (date, clock) = (&wire[..10], &wire[11..19]);
    format!("{}{date}_{}_{suffix}{ARCHIVE_EXTENSION}", kind.prefix(), clock.replace(':', "-"))
}

impl ArchiveName {
    /// The name for an archive created at `created_ms` (truncated to the second).
    pub fn new(kind: ArchiveKind, created_ms: i64, suffix: &str) -> Result<ArchiveName, NameError> {
        if !valid_suffix(suffix) {
            return Err(NameError::InvalidSuffix);
        }
        if !(0..=MAX_CREATED_MS).contains(&created_ms) {
            return Err(NameError::InvalidTime);
        }
        let created_ms = created_ms - created_ms % 1000;
        Ok(ArchiveName { kind, created_ms, text: render(kind, created_ms, suffix) })
    }

    /// Parses a file name; anything Relay would not have generated is [`NameError::Invalid`].
    pub fn parse(name: &str) -> Result<ArchiveName, NameError> {
        let (kind, rest) = if let Some(rest) = name.strip_prefix(REGULAR_PREFIX) {
            (ArchiveKind::Regular, rest)
        } else if let Some(rest) = name.strip_prefix(PRE_RESTORE_PREFIX) {
            (ArchiveKind::PreRestore, rest)
        } else {
            return Err(NameError::Invalid);
        };
        let rest = rest.strip_suffix(ARCHIVE_EXTENSION).ok_or(NameError::Invalid)?;
        // `YYYY-MM-DD_HH-MM-SS_` is 20 ASCII bytes.
        if rest.len() < 20 || !rest.is_char_boundary(20) || !rest.is_ascii() {
            return Err(NameError::Invalid);
        }
        let (stamp, suffix) = rest.split_at(20);
        let b = stamp.as_bytes();
        if b[10] != b'_' || b[19] != b'_' || b[13] != b'-' || b[16] != b'-' {
            return Err(NameError::Invalid);
        }
        let iso = format!("{}T{}:{}:{}Z", &stamp[..10], &stamp[11..13], &stamp[14..16], &stamp[17..19]);
        let created_ms = crate::time::parse_datetime(&iso).map_err(|_| NameError::Invalid)?;
        let parsed = ArchiveName::new(kind, created_ms, suffix).map_err(|_| NameError::Invalid)?;
        if parsed.text != name {
            return Err(NameError::Invalid);
        }
        Ok(parsed)
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }
    pub fn kind(&self) -> ArchiveKind {
        self.kind
    }
    /// The creation time encoded in the name (whole seconds, epoch ms).
    pub fn created_ms(&self) -> i64 {
        self.created_ms
    }
    /// The file name used while the archive is being written (`NAME.zip.part`).
    pub fn part_file_name(&self) -> String {
        format!("{}{PART_EXTENSION}", self.text)
    }
}

impl fmt::Display for ArchiveName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for ArchiveName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for ArchiveName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ArchiveName, D::Error> {
        let raw = String::deserialize(d)?;
        ArchiveName::parse(&raw).map_err(|_| serde::de::Error::custom("invalid backup name"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: i64 = 1_796_216_231_123; // 2026-12-02T12:57:11.123Z

    #[test]
    fn generates_both_kinds_and_parses_them_back() {
        let regular = ArchiveName::new(ArchiveKind::Regular, T, "a1b2c3d4").unwrap();
        assert_eq!(regular.as_str(), "backup_2026-12-02_12-57-11_a1b2c3d4.zip");
        assert_eq!(regular.created_ms(), T - 123);
        assert_eq!(regular.part_file_name(), "backup_2026-12-02_12-57-11_a1b2c3d4.zip.part");
        let safety = ArchiveName::new(ArchiveKind::PreRestore, 0, "0000-1111-2222").unwrap();
        assert_eq!(safety.as_str(), "pre_restore_1970-01-01_00-00-00_0000-1111-2222.zip");
        for name in [&regular, &safety] {
            assert_eq!(&ArchiveName::parse(name.as_str()).unwrap(), name);
        }
        assert_eq!(ArchiveName::parse(safety.as_str()).unwrap().kind(), ArchiveKind::PreRestore);
    }

    #[test]
    fn refuses_bad_suffixes_and_times() {
        for suffix in ["short", "has_underscore1", "with/slash123", "dots..dots", &"x".repeat(65), "ünïcödé12"] {
            assert_eq!(ArchiveName::new(ArchiveKind::Regular, T, suffix), Err(NameError::InvalidSuffix), "{suffix}");
        }
        assert_eq!(ArchiveName::new(ArchiveKind::Regular, -1, "abcdefgh"), Err(NameError::InvalidTime));
        assert_eq!(ArchiveName::new(ArchiveKind::Regular, MAX_CREATED_MS + 1, "abcdefgh"), Err(NameError::InvalidTime));
    }

    #[test]
    fn anything_relay_would_not_generate_is_not_ours() {
        for name in [
            "",
            "../data.db",
            "backup_2026-12-02_12-57-11_a1b2c3d4.db",
            "backup_2026-12-02_12-57-11_a1b2c3d4.zip.part",
            "backup_2026-12-02_12-57-11_a1b2c3d4.ZIP",
            "Backup_2026-12-02_12-57-11_a1b2c3d4.zip",
            "backup_2026-02-30_12-57-11_a1b2c3d4.zip",
            "backup_2026-12-02_24-00-00_a1b2c3d4.zip",
            "backup_2026-12-02_12:57:11_a1b2c3d4.zip",
            "backup_2026-12-02T12-57-11_a1b2c3d4.zip",
            "backup_2026-12-02_12-57-11_a1b2.zip",
            "backup_2026-12-02_12-57-11_../../x1.zip",
            "backup_2026-12-02_12-57-11_a1b2c3d4.zip/",
            "/backups/backup_2026-12-02_12-57-11_a1b2c3d4.zip",
            "pre_restore_2026-12-02_12-57-11_a1b2c3d4.zip.zip",
            "invalid..zip",
            "backup_２０２６-12-02_12-57-11_a1b2c3d4.zip",
            "backup_2026-12-02_12-57-11_a1b2c3d4\0.zip",
        ] {
            assert_eq!(ArchiveName::parse(name), Err(NameError::Invalid), "{name:?}");
        }
    }

    #[test]
    fn serde_uses_the_strict_parse() {
        let name = ArchiveName::new(ArchiveKind::Regular, T, "abcdefgh").unwrap();
        let json = serde_json::to_string(&name).unwrap();
        assert_eq!(json, "\"backup_2026-12-02_12-57-11_abcdefgh.zip\"");
        assert_eq!(serde_json::from_str::<ArchiveName>(&json).unwrap(), name);
        assert!(serde_json::from_str::<ArchiveName>("\"../x.zip\"").is_err());
    }
}
