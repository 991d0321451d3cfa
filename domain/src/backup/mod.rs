//! Backup rules (issue #12), pure and deterministic: what a Relay archive is called
//! ([`names`]), which entry names and sizes an archive may hold ([`entries`]), the manifest
//! inside it ([`manifest`]), when the next backup cycle runs ([`schedule`]), the operator-owned
//! `backup-health.json` ([`health`]), when backups make the subsystem degraded ([`condition`]),
//! when destructive retention is allowed and which archives
//! are pruned ([`retention`]), what a cold start does with a restore journal ([`journal`]), and the status values the
//! server-local interfaces show ([`status`]).
//! Nothing here reads a file or the clock: callers pass bytes, observed file fingerprints and
//! `now_ms`, and carry out the decisions (`infra::backup` for the archive IO).

pub mod condition;
pub mod entries;
pub mod health;
pub mod journal;
pub mod manifest;
pub mod names;
pub mod retention;
pub mod schedule;
pub mod status;

/// ISO-8601 UTC with milliseconds (`2026-12-02T12:57:11.123Z`), the form the health file and
/// the manifest store times in.
pub fn iso_ms(epoch_ms: i64) -> String {
    crate::time::format_ms(epoch_ms).replacen(' ', "T", 1)
}

/// Parses [`iso_ms`]'s form back, strictly: anything that does not round-trip is refused.
pub fn parse_iso_ms(raw: &str) -> Option<i64> {
    let ms = crate::time::parse_datetime(raw).ok()?;
    (ms >= 0 && iso_ms(ms) == raw).then_some(ms)
}

/// Serde adapter storing epoch milliseconds as [`iso_ms`] strings.
pub(crate) mod iso_time {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(ms: &i64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::iso_ms(*ms))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        let raw = String::deserialize(d)?;
        super::parse_iso_ms(&raw).ok_or_else(|| serde::de::Error::custom("invalid time"))
    }

    pub mod option {
        use serde::{Deserialize, Deserializer, Serializer};

        pub fn serialize<S: Serializer>(ms: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
            match ms {
                Some(ms) => super::serialize(ms, s),
                None => s.serialize_none(),
            }
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
            match Option::<String>::deserialize(d)? {
                None => Ok(None),
                Some(raw) => {
                    super::super::parse_iso_ms(&raw).map(Some).ok_or_else(|| serde::de::Error::custom("invalid time"))
                }
            }
        }
    }
}
