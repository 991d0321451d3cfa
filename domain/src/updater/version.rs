//! Relay's release version: strict `MAJOR.MINOR.PATCH` ([`Version::parse`]) with ASCII digits,
//! no leading zeros and no pre-release or build suffix, ordered numerically by major, then minor,
//! then patch, and written as a GitHub tag `v<version>` ([`Version::tag`], [`Version::parse_tag`]).
//! It refuses everything else (`1.2`, `01.2.3`, `1.2.3-rc.1`, `1.2.3+build`, `V1.2.3`, `+1.2.3`,
//! non-ASCII digits, components beyond `u64`) and never guesses: an unparsable version is an
//! error, never "older" or "newer".

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// The longest version text considered (three 20-digit components and two dots fit).
pub const MAX_VERSION_CHARS: usize = 64;

/// A release version. Derived ordering compares major, then minor, then patch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    major: u64,
    minor: u64,
    patch: u64,
}

/// A version or tag the updater refuses.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VersionError {
    #[error("The version must be MAJOR.MINOR.PATCH with decimal numbers.")]
    Malformed,
    #[error("Version numbers must not have leading zeros.")]
    LeadingZero,
    #[error("A version number is too large.")]
    TooLarge,
    #[error("A release tag must be 'v' followed by the version.")]
    NotATag,
}

impl VersionError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            VersionError::Malformed => "version_malformed",
            VersionError::LeadingZero => "version_leading_zero",
            VersionError::TooLarge => "version_too_large",
            VersionError::NotATag => "tag_malformed",
        }
    }
}

impl Version {
    /// A version from its three numbers.
    pub const fn new(major: u64, minor: u64, patch: u64) -> Version {
        Version { major, minor, patch }
    }

    /// Parses strict `MAJOR.MINOR.PATCH`.
    pub fn parse(text: &str) -> Result<Version, VersionError> {
        if text.len() > MAX_VERSION_CHARS {
            return Err(VersionError::Malformed);
        }
        let mut parts = text.split('.');
        let (Some(major), Some(minor), Some(patch), None) = (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(VersionError::Malformed);
        };
        Ok(Version { major: parse_number(major)?, minor: parse_number(minor)?, patch: parse_number(patch)? })
    }

    /// Parses a release tag: exactly `v` (lowercase) followed by a strict version.
    pub fn parse_tag(tag: &str) -> Result<Version, VersionError> {
        match tag.strip_prefix('v') {
            Some(rest) => Version::parse(rest),
            None => Err(VersionError::NotATag),
        }
    }

    /// The release tag, `v<version>`.
    pub fn tag(&self) -> String {
        format!("v{self}")
    }

    /// Major number.
    pub fn major(&self) -> u64 {
        self.major
    }

    /// Minor number.
    pub fn minor(&self) -> u64 {
        self.minor
    }

    /// Patch number.
    pub fn patch(&self) -> u64 {
        self.patch
    }
}

fn parse_number(text: &str) -> Result<u64, VersionError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(VersionError::Malformed);
    }
    if text.len() > 1 && text.starts_with('0') {
        return Err(VersionError::LeadingZero);
    }
    text.parse::<u64>().map_err(|_| VersionError::TooLarge)
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl FromStr for Version {
    type Err = VersionError;

    fn from_str(text: &str) -> Result<Version, VersionError> {
        Version::parse(text)
    }
}

impl Serialize for Version {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Version, D::Error> {
        let text = String::deserialize(deserializer)?;
        Version::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
#[path = "version_tests.rs"]
mod tests;
