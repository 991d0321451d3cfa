//! Reads a Data Manager import body (`{records: [...], apply?: bool}`, already bounded by the
//! route's body limit) without building it: serde_json walks the bytes once and each record is
//! taken as borrowed raw JSON (`&RawValue`, syntax checked, nothing allocated), counted and
//! measured as it arrives, so the 10,001st record (`MAX_IMPORT_RECORDS`) or one record over
//! `MAX_IMPORT_RECORD_BYTES` is refused at that point, before any record is a `Value`. What it
//! keeps is the body itself plus one byte range per record ([`RawRecords`]); planning then parses
//! one record at a time, so the records never cost more than the body did (a `Vec<Value>` of
//! the same bytes can cost 16 times as much: every `0` in an array is a 32-byte `Value`).

use std::cell::Cell;
use std::fmt;
use std::ops::Range;

use bytes::Bytes;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

use domain::import::{ImportError, MAX_IMPORT_RECORDS, MAX_IMPORT_RECORD_BYTES};

/// An import body as read: its records (as JSON text) and whether to apply them.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportBody {
    pub records: RawRecords,
    pub apply: bool,
}

/// Import records as JSON text: the body they arrived in and where each one lies in it.
#[derive(Clone, Default, PartialEq)]
pub struct RawRecords {
    text: Bytes,
    spans: Vec<Range<usize>>,
}

impl RawRecords {
    /// Records given as values (callers other than the HTTP body, tests), stored as JSON text.
    pub fn from_values(records: &[Value]) -> RawRecords {
        let mut text = Vec::new();
        let mut spans = Vec::with_capacity(records.len());
        for record in records {
            let start = text.len();
            // Writing a `Value` into a Vec cannot fail (string keys, no IO).
            let _ = serde_json::to_writer(&mut text, record);
            spans.push(start..text.len());
        }
        RawRecords { text: Bytes::from(text), spans }
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Each record parsed only when the iterator reaches it, or why it is not a readable value
    /// (nested past serde_json's 128 levels, a number out of range).
    pub fn values(&self) -> impl ExactSizeIterator<Item = Result<Value, String>> + '_ {
        self.spans.iter().map(|span| {
            serde_json::from_slice(&self.text[span.clone()]).map_err(|e| format!("The record could not be read: {e}."))
        })
    }
}

impl fmt::Debug for RawRecords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RawRecords").field("records", &self.spans.len()).field("bytes", &self.text.len()).finish()
    }
}

/// Reads `body`, refusing too many records or one too large as soon as it is reached, and
/// anything that is not an object with a `records` array (extra keys are ignored, unread).
pub fn read_import_body(body: Bytes) -> Result<ImportBody, ImportError> {
    let refusal = Cell::new(None);
    let mut parser = serde_json::Deserializer::from_slice(&body);
    let read = BodySeed { base: &body, refusal: &refusal }.deserialize(&mut parser).and_then(|read| {
        parser.end()?;
        Ok(read)
    });
    let (spans, apply) = match (read, refusal.take()) {
        (_, Some(refused)) => return Err(refused),
        (Ok(read), None) => read,
        (Err(_), None) => return Err(ImportError::Malformed),
    };
    Ok(ImportBody { records: RawRecords { text: body.clone(), spans }, apply })
}

/// The body object: `records` (required, once), `apply` (default false), anything else skipped.
/// A bound's refusal is left in `refusal` (serde errors carry only text).
struct BodySeed<'a> {
    base: &'a [u8],
    refusal: &'a Cell<Option<ImportError>>,
}

impl<'de> DeserializeSeed<'de> for BodySeed<'_> {
    type Value = (Vec<Range<usize>>, bool);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for BodySeed<'_> {
    type Value = (Vec<Range<usize>>, bool);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object with a records array")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut records = None;
        let mut apply = None;
        while let Some(key) = map.next_key::<BodyKey>()? {
            match key {
                BodyKey::Records if records.is_none() => {
                    records = Some(map.next_value_seed(RecordsSeed { base: self.base, refusal: self.refusal })?);
                }
                BodyKey::Apply if apply.is_none() => apply = Some(map.next_value::<bool>()?),
                BodyKey::Records | BodyKey::Apply => return Err(de::Error::custom("a key appears twice")),
                BodyKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let records = records.ok_or_else(|| de::Error::missing_field("records"))?;
        Ok((records, apply.unwrap_or(false)))
    }
}

/// A body key, matched without keeping it.
enum BodyKey {
    Records,
    Apply,
    Other,
}

impl<'de> de::Deserialize<'de> for BodyKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(BodyKeyVisitor)
    }
}

struct BodyKeyVisitor;

impl Visitor<'_> for BodyKeyVisitor {
    type Value = BodyKey;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<BodyKey, E> {
        Ok(match key {
            "records" => BodyKey::Records,
            "apply" => BodyKey::Apply,
            _ => BodyKey::Other,
        })
    }
}

/// The `records` array: each element's byte range in `base`, counted and measured as it arrives.
struct RecordsSeed<'a> {
    base: &'a [u8],
    refusal: &'a Cell<Option<ImportError>>,
}

impl<'de> DeserializeSeed<'de> for RecordsSeed<'_> {
    type Value = Vec<Range<usize>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RecordsSeed<'_> {
    type Value = Vec<Range<usize>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of records")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut spans = Vec::new();
        while let Some(record) = seq.next_element::<&'de RawValue>()? {
            let text = record.get();
            if spans.len() == MAX_IMPORT_RECORDS {
                return Err(self.refuse(ImportError::TooManyRecords));
            }
            if text.len() > MAX_IMPORT_RECORD_BYTES {
                return Err(self.refuse(ImportError::RecordTooLarge { row: spans.len() + 1 }));
            }
            // Borrowed from the body (serde_json reads raw values from a slice in place).
            let start = (text.as_ptr() as usize).checked_sub(self.base.as_ptr() as usize);
            match start.map(|start| start..start + text.len()) {
                Some(span) if span.end <= self.base.len() => spans.push(span),
                _ => return Err(de::Error::custom("a record outside the body")),
            }
        }
        Ok(spans)
    }
}

impl RecordsSeed<'_> {
    fn refuse<E: de::Error>(&self, refusal: ImportError) -> E {
        let message = refusal.to_string();
        self.refusal.set(Some(refusal));
        E::custom(message)
    }
}

#[cfg(test)]
mod tests;
