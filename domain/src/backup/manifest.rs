//! The manifest inside every archive (`manifest.json`): format version, the Relay version that
//! wrote it, the migrations applied to the snapshot, the creation time and one entry per other
//! file with its size and SHA-256. Parsing is strict (unknown keys refused, sizes bounded, every
//! path passes the entry-name rules, no duplicates, the database present, no SQLite side file
//! that would change what the snapshot means), so a verifier can trust what it compares.

use serde::{Deserialize, Serialize};

use super::entries::{check_entry_name, EntryNameSet, MAX_ENTRIES, MAX_EXTRACTED_BYTES};

pub const MANIFEST_PATH: &str = "manifest.json";
/// The snapshot of the live store inside the archive.
pub const DATABASE_PATH: &str = "relay.db";
pub const FORMAT_VERSION: u32 = 1;
/// 100,000 entries of ~200 bytes each fit comfortably.
pub const MAX_MANIFEST_BYTES: usize = 32 * 1024 * 1024;
pub const MAX_MIGRATIONS: usize = 10_000;
pub const MAX_LABEL_LEN: usize = 128;

/// Names the archive may not carry besides the database: SQLite would read them with it.
const SQLITE_SIDE_FILES: [&str; 3] = ["relay.db-wal", "relay.db-shm", "relay.db-journal"];

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Manifest {
    pub format_version: u32,
    pub relay_version: String,
    /// Migration versions applied to the snapshot, oldest first.
    pub migrations: Vec<String>,
    #[serde(with = "super::iso_time")]
    pub created: i64,
    /// Every file in the archive except the manifest itself.
    pub entries: Vec<ManifestEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ManifestEntry {
    pub path: String,
    pub size: u64,
    /// Lower-case hex SHA-256 of the entry's bytes.
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    #[error("the backup manifest is too large")]
    TooLarge,
    #[error("the backup manifest is malformed")]
    Malformed,
    #[error("the backup manifest has an unsupported format version")]
    UnsupportedVersion,
    #[error("the backup manifest lists an invalid entry")]
    InvalidEntry,
    #[error("the backup manifest does not list the database")]
    MissingDatabase,
}

fn is_label(text: &str) -> bool {
    !text.is_empty() && text.len() <= MAX_LABEL_LEN && text.chars().all(|c| c.is_ascii_graphic())
}

/// Whether `text` is 64 lower-case hex digits.
pub fn is_sha256_hex(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether `path` may name a file entry: the entry-name rules, not a directory, not a SQLite
/// side file of the database. (Uniqueness is the caller's, with an `EntryNameSet`.)
pub fn is_valid_file_path(path: &str) -> bool {
    check_entry_name(path).is_ok() && !path.ends_with('/') && !SQLITE_SIDE_FILES.contains(&path.to_lowercase().as_str())
}

impl Manifest {
    /// Parses and checks a manifest.
    pub fn parse(bytes: &[u8]) -> Result<Manifest, ManifestError> {
        if bytes.len() > MAX_MANIFEST_BYTES {
            return Err(ManifestError::TooLarge);
        }
        let manifest: Manifest = serde_json::from_slice(bytes).map_err(|_| ManifestError::Malformed)?;
        manifest.check()?;
        Ok(manifest)
    }

    /// The checks [`Manifest::parse`] applies; the writer runs them on what it is about to store.
    pub fn check(&self) -> Result<(), ManifestError> {
        if self.format_version != FORMAT_VERSION {
            return Err(ManifestError::UnsupportedVersion);
        }
        if !is_label(&self.relay_version)
            || self.migrations.len() > MAX_MIGRATIONS
            || !self.migrations.iter().all(|m| is_label(m))
            || self.entries.len() >= MAX_ENTRIES
        {
            return Err(ManifestError::Malformed);
        }
        let mut names = EntryNameSet::new();
        names.insert(MANIFEST_PATH).map_err(|_| ManifestError::InvalidEntry)?;
        let mut total: u64 = 0;
        for entry in &self.entries {
            if !is_valid_file_path(&entry.path) || !is_sha256_hex(&entry.sha256) || names.insert(&entry.path).is_err() {
                return Err(ManifestError::InvalidEntry);
            }
            total = total.checked_add(entry.size).ok_or(ManifestError::InvalidEntry)?;
        }
        if total > MAX_EXTRACTED_BYTES {
            return Err(ManifestError::InvalidEntry);
        }
        if self.entry(DATABASE_PATH).is_none() {
            return Err(ManifestError::MissingDatabase);
        }
        Ok(())
    }

    pub fn entry(&self, path: &str) -> Option<&ManifestEntry> {
        self.entries.iter().find(|e| e.path == path)
    }

    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec_pretty(self).expect("a manifest always serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Manifest {
        Manifest {
            format_version: FORMAT_VERSION,
            relay_version: "0.1.0".into(),
            migrations: vec!["20261202000001".into(), "20261202000002".into()],
            created: 1_796_216_231_123,
            entries: vec![
                ManifestEntry { path: DATABASE_PATH.into(), size: 4096, sha256: "ab".repeat(32) },
                ManifestEntry { path: "files/wiki/a.pdf".into(), size: 10, sha256: "0f".repeat(32) },
            ],
        }
    }

    fn with(change: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
        let mut value = serde_json::to_value(sample()).unwrap();
        change(&mut value);
        serde_json::to_vec(&value).unwrap()
    }

    #[test]
    fn round_trips_with_camel_case_keys_and_iso_time() {
        let json = sample().to_json();
        let text = String::from_utf8(json.clone()).unwrap();
        assert!(text.contains("\"formatVersion\": 1") && text.contains("\"created\": \"2026-12-02T12:57:11.123Z\""));
        assert_eq!(Manifest::parse(&json).unwrap(), sample());
    }

    #[test]
    fn refuses_unknown_keys_bad_values_and_missing_database() {
        let cases: Vec<(Vec<u8>, ManifestError)> = vec![
            (with(|v| v["extra"] = true.into()), ManifestError::Malformed),
            (with(|v| v["entries"][0]["mode"] = 0o777.into()), ManifestError::Malformed),
            (with(|v| v["formatVersion"] = 2.into()), ManifestError::UnsupportedVersion),
            (with(|v| v["created"] = "yesterday".into()), ManifestError::Malformed),
            (with(|v| v["relayVersion"] = "".into()), ManifestError::Malformed),
            (with(|v| v["migrations"][0] = "line\nbreak".into()), ManifestError::Malformed),
            (with(|v| v["entries"][1]["path"] = "../escape".into()), ManifestError::InvalidEntry),
            (with(|v| v["entries"][1]["path"] = "RELAY.DB".into()), ManifestError::InvalidEntry),
            (with(|v| v["entries"][1]["path"] = "manifest.json".into()), ManifestError::InvalidEntry),
            (with(|v| v["entries"][1]["path"] = "relay.db-wal".into()), ManifestError::InvalidEntry),
            (with(|v| v["entries"][1]["path"] = "files/".into()), ManifestError::InvalidEntry),
            (with(|v| v["entries"][1]["sha256"] = "AB".repeat(32).into()), ManifestError::InvalidEntry),
            (with(|v| v["entries"][1]["sha256"] = "ab".into()), ManifestError::InvalidEntry),
            (with(|v| v["entries"][1]["size"] = (MAX_EXTRACTED_BYTES).into()), ManifestError::InvalidEntry),
            (with(|v| v["entries"][0]["path"] = "other.db".into()), ManifestError::MissingDatabase),
            (b"not json".to_vec(), ManifestError::Malformed),
        ];
        for (bytes, error) in cases {
            assert_eq!(Manifest::parse(&bytes), Err(error.clone()), "{}", String::from_utf8_lossy(&bytes));
        }
        assert_eq!(Manifest::parse(&vec![b' '; MAX_MANIFEST_BYTES + 1]), Err(ManifestError::TooLarge));
    }
}
