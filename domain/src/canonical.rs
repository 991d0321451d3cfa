//! Canonical JSON, Relay's signing form, and SHA-256 hex digests. This module owns the one
//! byte-exact serialization that signed envelopes, payload hashes, audit-chain hashes and the
//! independent Python test vectors all agree on: object keys sorted by their UTF-8 bytes, no
//! whitespace, minimal string escaping (only `"`, `\` and control characters below U+0020),
//! integers only (any float, even `1.0`, is rejected), and at most 32 levels of nesting.
//! See `docs/signed-envelopes.md` for the byte-by-byte description.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Maximum container nesting depth accepted by [`canonical_json`]. A top-level object or array
/// is depth 1; scalars add no depth.
pub const MAX_DEPTH: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CanonicalError {
    #[error("numbers must be integers")]
    NonIntegerNumber,
    #[error("value is nested too deeply")]
    TooDeep,
}

/// How numbers are written: the signing form accepts integers only; the record form (offline
/// replay fingerprints of stored records, whose number fields may hold fractions) also writes
/// integral floats below 1e16 as integers (`2.0` is `2`) and other finite numbers in their
/// shortest round-trip form as `serde_json` (ryu) prints them (`0.1`, `1.5e+300`, `1e-7`: a signed exponent without
/// leading zeros).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Numbers {
    IntegersOnly,
    ShortestRoundTrip,
}

/// Serializes `v` in Relay's canonical form (see the module documentation).
pub fn canonical_json(v: &Value) -> Result<String, CanonicalError> {
    let mut out = String::new();
    write_value(&mut out, v, 0, Numbers::IntegersOnly)?;
    Ok(out)
}

/// Serializes `v` in the record form: the canonical form, except that non-integer numbers are
/// written in their shortest round-trip form (see `docs/offline-replay.md`).
pub fn canonical_record_json(v: &Value) -> Result<String, CanonicalError> {
    let mut out = String::new();
    write_value(&mut out, v, 0, Numbers::ShortestRoundTrip)?;
    Ok(out)
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex_lower(&Sha256::digest(bytes))
}

/// Lowercase hex encoding.
pub fn hex_lower(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 0x0f) as usize] as char);
    }
    s
}

fn write_value(out: &mut String, v: &Value, depth: usize, numbers: Numbers) -> Result<(), CanonicalError> {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let (Numbers::ShortestRoundTrip, Some(f)) = (numbers, n.as_f64()) {
                if f.fract() == 0.0 && f.abs() < 1e16 {
                    // Integral values read the same in every JSON parser: write them as integers.
                    out.push_str(&(f as i64).to_string());
                } else {
                    // serde_json keeps only finite floats; its Display is ryu's shortest form.
                    out.push_str(&n.to_string());
                }
            } else {
                return Err(CanonicalError::NonIntegerNumber);
            }
        }
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            if depth >= MAX_DEPTH {
                return Err(CanonicalError::TooDeep);
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item, depth + 1, numbers)?;
            }
            out.push(']');
        }
        Value::Object(map) => {
            if depth >= MAX_DEPTH {
                return Err(CanonicalError::TooDeep);
            }
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            // `str` ordering is byte-wise over UTF-8, which is also code point order.
            entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (k, val)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_value(out, val, depth + 1, numbers)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

/// Writes `s` as a JSON string with minimal escaping.
pub(crate) fn write_string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let b = c as u32 as u8;
                out.push_str("\\u00");
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 0x0f) as usize] as char);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn canon(s: &str) -> Result<String, CanonicalError> {
        canonical_json(&serde_json::from_str(s).unwrap())
    }

    #[test]
    fn scalars() {
        assert_eq!(canon("null").unwrap(), "null");
        assert_eq!(canon("true").unwrap(), "true");
        assert_eq!(canon("false").unwrap(), "false");
        assert_eq!(canon("0").unwrap(), "0");
        assert_eq!(canon("-42").unwrap(), "-42");
        assert_eq!(canon("18446744073709551615").unwrap(), "18446744073709551615");
        assert_eq!(canon("-9223372036854775808").unwrap(), "-9223372036854775808");
    }

    #[test]
    fn floats_are_rejected_even_when_integral() {
        for s in ["1.0", "1.5", "1e3", "-0.0", "[1,2.5]", "{\"a\":{\"b\":0.1}}", "18446744073709551616"] {
            assert_eq!(canon(s), Err(CanonicalError::NonIntegerNumber), "{s}");
        }
        assert_eq!(canonical_json(&json!(1.0)), Err(CanonicalError::NonIntegerNumber));
    }

    #[test]
    fn the_record_form_writes_fractions_shortest_and_integers_alike() {
        let v = json!({"b": [0.1, 1.5e300, 1e-7, 2.5, -0.5, 100000000000000000000.0, 2.0, -0.0, 1e16], "a": 3});
        assert_eq!(canonical_record_json(&v).unwrap(), r#"{"a":3,"b":[0.1,1.5e+300,1e-7,2.5,-0.5,1e+20,2,0,1e+16]}"#);
        assert_eq!(canonical_record_json(&json!({"k": "v"})), canonical_json(&json!({"k": "v"})));
    }

    #[test]
    fn keys_sorted_by_utf8_bytes_and_no_whitespace() {
        let v = json!({"b": 1, "a": [true, null, "x"], "B": {"z": 1, "y": 2}, "é": 0, "aa": 0, "": 5});
        assert_eq!(canonical_json(&v).unwrap(), r#"{"":5,"B":{"y":2,"z":1},"a":[true,null,"x"],"aa":0,"b":1,"é":0}"#);
        // U+FFFF (EF BF BF) sorts before U+10000 (F0 90 80 80) in UTF-8 byte order but
        // after it in UTF-16 code unit order; Relay uses bytes.
        let v = json!({"\u{10000}": 1, "\u{ffff}": 2});
        assert_eq!(canonical_json(&v).unwrap(), "{\"\u{ffff}\":2,\"\u{10000}\":1}");
    }

    #[test]
    fn string_escaping_is_minimal() {
        let v = json!("q\" b\\ \u{08}\u{0c}\n\r\t \u{0}\u{1f}\u{0b} / \u{7f} \u{2028} é 日本 🚀");
        assert_eq!(
            canonical_json(&v).unwrap(),
            "\"q\\\" b\\\\ \\b\\f\\n\\r\\t \\u0000\\u001f\\u000b / \u{7f} \u{2028} é 日本 🚀\""
        );
        // Escaped input is normalized to the literal form.
        assert_eq!(canon(r#""\u00e9\/\u001F""#).unwrap(), "\"é/\\u001f\"");
    }

    #[test]
    fn nested_and_depth_limit() {
        let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert_eq!(canon(&nest(32)).unwrap(), nest(32));
        assert_eq!(canon(&nest(33)), Err(CanonicalError::TooDeep));
        let mut v = json!(1);
        for _ in 0..32 {
            v = json!({ "k": v });
        }
        assert!(canonical_json(&v).is_ok());
        assert_eq!(canonical_json(&json!({ "k": v })), Err(CanonicalError::TooDeep));
        assert_eq!(canon(r#"{"a":[{"c":1,"b":[]}],"0":{}}"#).unwrap(), r#"{"0":{},"a":[{"b":[],"c":1}]}"#);
    }

    #[test]
    fn sha256_hex_known_answers() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    fn arb_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|i| json!(i)),
            any::<u64>().prop_map(|u| json!(u)),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(6, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map(any::<String>(), inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
        #[test]
        fn canonical_form_is_a_fixed_point(v in arb_value()) {
            let once = canonical_json(&v).unwrap();
            let reparsed: Value = serde_json::from_str(&once).unwrap();
            prop_assert_eq!(&reparsed, &v);
            prop_assert_eq!(canonical_json(&reparsed).unwrap(), once);
        }
    }
}
