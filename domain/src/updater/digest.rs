//! The two fixed-width hexadecimal identities the updater compares: a SHA-256 digest
//! ([`Sha256Digest`], 64 lowercase hex characters) and a full git commit ([`CommitSha`], 40
//! lowercase hex characters). It owns only their strict parsing, formatting and comparison; it
//! refuses uppercase, prefixes, whitespace and abbreviated commits, and it never hashes bytes
//! itself (the caller streams the file through SHA-256 and hands the 32 bytes in).

use std::fmt;

/// A SHA-256 digest, compared byte for byte.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sha256Digest([u8; 32]);

impl Sha256Digest {
    /// The digest from its 32 raw bytes (what a hasher returns).
    pub const fn from_bytes(bytes: [u8; 32]) -> Sha256Digest {
        Sha256Digest(bytes)
    }

    /// Parses exactly 64 lowercase hex characters; anything else is `None`.
    pub fn parse_hex(text: &str) -> Option<Sha256Digest> {
        parse_lower_hex::<32>(text).map(Sha256Digest)
    }

    /// The 32 raw bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The 64 lowercase hex characters.
    pub fn to_hex(&self) -> String {
        to_lower_hex(&self.0)
    }
}

impl fmt::Debug for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sha256Digest({})", self.to_hex())
    }
}

impl fmt::Display for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// A full git commit SHA-1: what GitHub's `target_commitish` must be for an installable release.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CommitSha([u8; 20]);

impl CommitSha {
    /// Parses exactly 40 lowercase hex characters; branch names, abbreviations and uppercase
    /// are `None`.
    pub fn parse_hex(text: &str) -> Option<CommitSha> {
        parse_lower_hex::<20>(text).map(CommitSha)
    }

    /// The 40 lowercase hex characters.
    pub fn to_hex(&self) -> String {
        to_lower_hex(&self.0)
    }
}

impl fmt::Debug for CommitSha {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CommitSha({})", self.to_hex())
    }
}

impl fmt::Display for CommitSha {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

fn parse_lower_hex<const N: usize>(text: &str) -> Option<[u8; N]> {
    let bytes = text.as_bytes();
    if bytes.len() != N * 2 {
        return None;
    }
    let mut out = [0u8; N];
    for (slot, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        *slot = (lower_hex_value(pair[0])? << 4) | lower_hex_value(pair[1])?;
    }
    Some(out)
}

fn lower_hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        _ => None,
    }
}

fn to_lower_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    out
}

#[cfg(test)]
#[path = "digest_tests.rs"]
mod tests;
