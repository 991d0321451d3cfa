use super::*;
use proptest::prelude::*;
use serde_json::json;

const SECRET: [u8; 32] = [7u8; 32];
const OTHER_SECRET: [u8; 32] = [9u8; 32];
const NOW: i64 = 1_767_225_600_000;

fn unsigned() -> Envelope {
    let payload = json!({"title": "Überwachung 🚀", "n": 3, "nested": {"b": [1, 2], "a": null}});
    Envelope {
        version: ENVELOPE_VERSION,
        command: "wiki.publish".into(),
        payload_hash: payload_hash(&payload).unwrap(),
        payload,
        request_id: "req-0123456789abcdef".into(),
        account_id: "acct00000000001".into(),
        device_id: "devc00000000001".into(),
        role_claim: "publisher".into(),
        expected_revision: Some(7),
        issued_at: NOW,
        expires_at: NOW + 60_000,
        signature: String::new(),
    }
}

fn signed(mut env: Envelope) -> Envelope {
    env.payload_hash = payload_hash(&env.payload).unwrap();
    sign_envelope(&mut env, &SECRET).unwrap();
    env
}

fn raw(env: &Envelope) -> Vec<u8> {
    serde_json::to_vec(env).unwrap()
}

fn parse(env: &Envelope) -> Result<Envelope, EnvelopeError> {
    parse_envelope(&raw(env), NOW)
}

fn key() -> PublicJwk {
    public_jwk_from_secret(&SECRET).unwrap()
}

#[test]
fn valid_envelope_round_trips_and_verifies() {
    let env = signed(unsigned());
    let parsed = parse(&env).unwrap();
    assert_eq!(parsed, env);
    verify_signature(&parsed, &key()).unwrap();
    assert_eq!(
        verify_signature(&parsed, &public_jwk_from_secret(&OTHER_SECRET).unwrap()),
        Err(EnvelopeError::BadSignature)
    );
    // expectedRevision may be omitted entirely; it is then signed as null.
    let mut v: Value = serde_json::to_value(signed(Envelope { expected_revision: None, ..unsigned() })).unwrap();
    v.as_object_mut().unwrap().remove("expectedRevision");
    let parsed = parse_envelope(&serde_json::to_vec(&v).unwrap(), NOW).unwrap();
    assert_eq!(parsed.expected_revision, None);
    verify_signature(&parsed, &key()).unwrap();
}

#[test]
fn signing_bytes_layout() {
    let env = Envelope { payload: json!({}), payload_hash: payload_hash(&json!({})).unwrap(), ..unsigned() };
    let env = Envelope { expected_revision: None, signature: "ignored".into(), ..env };
    let s = String::from_utf8(signing_bytes(&env).unwrap()).unwrap();
    let expected = format!(
        "relay-signed-envelope-v1\n{{\"accountId\":\"acct00000000001\",\"command\":\"wiki.publish\",\
         \"deviceId\":\"devc00000000001\",\"expectedRevision\":null,\"expiresAt\":{},\"issuedAt\":{},\
         \"payload\":{{}},\"payloadHash\":\"{}\",\"requestId\":\"req-0123456789abcdef\",\
         \"roleClaim\":\"publisher\",\"version\":1}}",
        NOW + 60_000,
        NOW,
        sha256_hex(b"{}")
    );
    assert_eq!(s, expected);
}

#[test]
fn size_limits() {
    let mut big = unsigned();
    big.payload = json!({ "x": "a".repeat(MAX_PAYLOAD_BYTES) });
    assert_eq!(parse(&signed(big)), Err(EnvelopeError::TooLarge));
    let mut ok = unsigned();
    ok.payload = json!({ "x": "a".repeat(MAX_PAYLOAD_BYTES - 8) }); // {"x":"…"} is 8 bytes of framing
    assert!(parse(&signed(ok)).is_ok());
    let mut huge = raw(&signed(unsigned()));
    huge.extend(std::iter::repeat_n(b' ', MAX_ENVELOPE_BYTES));
    assert_eq!(parse_envelope(&huge, NOW), Err(EnvelopeError::TooLarge));
}

#[test]
fn malformed_and_version() {
    assert_eq!(parse_envelope(b"not json", NOW), Err(EnvelopeError::Malformed));
    assert_eq!(parse_envelope(b"[]", NOW), Err(EnvelopeError::Malformed));
    let base = serde_json::to_value(signed(unsigned())).unwrap();
    let with = |k: &str, v: Value| {
        let mut o = base.clone();
        o.as_object_mut().unwrap().insert(k.into(), v);
        parse_envelope(&serde_json::to_vec(&o).unwrap(), NOW)
    };
    assert_eq!(with("extra", json!(1)), Err(EnvelopeError::Malformed));
    assert_eq!(with("issuedAt", json!(1.5)), Err(EnvelopeError::Malformed));
    assert_eq!(with("issuedAt", json!("1")), Err(EnvelopeError::Malformed));
    assert_eq!(with("version", json!(1.0)), Err(EnvelopeError::Malformed));
    assert_eq!(with("version", json!(2)), Err(EnvelopeError::UnsupportedVersion));
    assert_eq!(with("version", json!(0)), Err(EnvelopeError::UnsupportedVersion));
    let mut missing = base.clone();
    missing.as_object_mut().unwrap().remove("requestId");
    assert_eq!(parse_envelope(&serde_json::to_vec(&missing).unwrap(), NOW), Err(EnvelopeError::Malformed));
    // Duplicate envelope members are rejected by the derived deserializer.
    let text = String::from_utf8(raw(&signed(unsigned()))).unwrap();
    let dup = text.replacen("{\"version\":1,", "{\"version\":1,\"version\":1,", 1);
    assert_eq!(parse_envelope(dup.as_bytes(), NOW), Err(EnvelopeError::Malformed));
    // ...and so are duplicate keys anywhere inside the payload.
    let dup = text.replacen("\"n\":3,", "\"n\":3,\"n\":3,", 1);
    assert_ne!(dup, text);
    assert_eq!(parse_envelope(dup.as_bytes(), NOW), Err(EnvelopeError::Malformed));
    let nested = text.replacen("\"a\":null", "\"a\":null,\"a\":1", 1);
    assert_ne!(nested, text);
    assert_eq!(parse_envelope(nested.as_bytes(), NOW), Err(EnvelopeError::Malformed));
}

#[test]
fn field_formats() {
    type Edit = fn(&mut Envelope);
    let cases: &[(&str, Edit)] = &[
        ("command", |e| e.command = "wiki".into()),
        ("command", |e| e.command = "Wiki.publish".into()),
        ("command", |e| e.command = "wiki.Publish".into()),
        ("command", |e| e.command = "wiki.publish.".into()),
        ("command", |e| e.command = "a.b.c.d.e".into()),
        ("command", |e| e.command = "wiki.pub-lish".into()),
        ("command", |e| e.command = format!("w.{}", "a".repeat(63))),
        ("payload", |e| e.payload = json!([1])),
        ("payload", |e| e.payload = json!("x")),
        ("payloadHash", |e| e.payload_hash = e.payload_hash.to_uppercase()),
        ("payloadHash", |e| e.payload_hash.truncate(63)),
        ("requestId", |e| e.request_id = "short".into()),
        ("requestId", |e| e.request_id = "a".repeat(65)),
        ("requestId", |e| e.request_id = "req 0123456789abcdef".into()),
        ("accountId", |e| e.account_id = "ACCT00000000001".into()),
        ("accountId", |e| e.account_id = "acct0000000001".into()),
        ("deviceId", |e| e.device_id = "devc_0000000001".into()),
        ("roleClaim", |e| e.role_claim = "Owner".into()),
        ("roleClaim", |e| e.role_claim = "superuser".into()),
        ("expectedRevision", |e| e.expected_revision = Some(-1)),
    ];
    for (field, edit) in cases {
        let mut e = unsigned();
        edit(&mut e);
        let e = Envelope { signature: "A".repeat(86), ..e };
        assert_eq!(parse(&e), Err(EnvelopeError::BadField(field)), "{field}: {e:?}");
    }
    // Maximum-length command and the {1,3} segment bound are accepted.
    assert!(is_valid_command(&format!("w.{}", "a".repeat(62))));
    assert!(is_valid_command("a.b.c.d"));
    assert!(is_valid_command("accounts.setActive"));
    assert!(!is_valid_command(""));
    assert!(!is_valid_command("1a.b"));
}

#[test]
fn signature_shape() {
    let good = signed(unsigned());
    let sig_cases = [
        good.signature[..85].to_string(),
        format!("{}=", &good.signature[..85]),
        format!("{}+", &good.signature[..85]),
        format!("{}A", good.signature),
        String::new(),
    ];
    for s in sig_cases {
        let e = Envelope { signature: s.clone(), ..good.clone() };
        assert_eq!(parse(&e), Err(EnvelopeError::BadField("signature")), "{s}");
        assert_eq!(verify_signature(&e, &key()), Err(EnvelopeError::BadSignature));
    }
    // Non-zero trailing bits in the last character are a second spelling of the same bytes.
    let last = good.signature.as_bytes()[85];
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let idx = alphabet.iter().position(|c| *c == last).unwrap();
    let twin = alphabet[idx ^ 1] as char;
    let e = Envelope { signature: format!("{}{}", &good.signature[..85], twin), ..good.clone() };
    assert_eq!(parse(&e), Err(EnvelopeError::BadField("signature")));
    // r = 0 is structurally a signature but never valid.
    let e = Envelope { signature: URL_SAFE_NO_PAD.encode([0u8; 64]), ..good };
    assert_eq!(verify_signature(&e, &key()), Err(EnvelopeError::BadSignature));
}

#[test]
fn payload_hash_mismatch_and_float_payload() {
    let mut e = signed(unsigned());
    e.payload = json!({"title": "changed"});
    assert_eq!(parse(&e), Err(EnvelopeError::PayloadHashMismatch));
    let mut e = signed(unsigned());
    e.payload = json!({"x": 1.5});
    assert_eq!(parse(&e), Err(EnvelopeError::BadField("payload")));
    let mut deep = json!(1);
    for _ in 0..31 {
        deep = json!([deep]);
    }
    // 31 arrays inside the payload object inside the envelope object = depth 33.
    let mut e = unsigned();
    e.payload = json!({ "d": deep });
    e.payload_hash = payload_hash(&e.payload).unwrap();
    e.signature = "A".repeat(86);
    assert_eq!(parse(&e), Err(EnvelopeError::BadField("payload")));
}

#[test]
fn forbidden_command() {
    let e = signed(Envelope { command: "privileged.reauth.confirm".into(), ..unsigned() });
    assert_eq!(parse(&e), Err(EnvelopeError::ForbiddenCommand));
}

#[test]
fn time_window() {
    let at = |issued: i64, expires: i64| signed(Envelope { issued_at: issued, expires_at: expires, ..unsigned() });
    assert!(parse(&at(NOW + MAX_CLOCK_SKEW_MS, NOW + MAX_CLOCK_SKEW_MS + 1)).is_ok());
    assert_eq!(parse(&at(NOW + MAX_CLOCK_SKEW_MS + 1, NOW + 60_000)), Err(EnvelopeError::NotYetValid));
    assert_eq!(parse(&at(NOW - 60_000, NOW)), Err(EnvelopeError::Expired));
    assert!(parse(&at(NOW - 60_000, NOW + 1)).is_ok());
    assert_eq!(parse(&at(NOW - 1, NOW - 1 + MAX_LIFETIME_MS + 1)), Err(EnvelopeError::LifetimeTooLong));
    assert!(parse(&at(NOW - 1, NOW - 1 + MAX_LIFETIME_MS)).is_ok());
    assert_eq!(parse(&at(NOW + 10, NOW + 10)), Err(EnvelopeError::LifetimeTooLong));
    assert_eq!(parse(&at(NOW + 20, NOW + 10)), Err(EnvelopeError::LifetimeTooLong));
    assert_eq!(parse(&at(i64::MIN, i64::MAX)), Err(EnvelopeError::LifetimeTooLong));
    assert_eq!(parse_envelope(&raw(&at(i64::MAX, i64::MAX)), i64::MAX), Err(EnvelopeError::Expired));
}

#[test]
fn tampering_any_signed_field_breaks_the_signature() {
    let good = signed(unsigned());
    type Edit = fn(&mut Envelope);
    let edits: &[Edit] = &[
        |e| e.command = "wiki.delete".into(),
        |e| e.request_id.push('x'),
        |e| e.account_id = "acct00000000002".into(),
        |e| e.device_id = "devc00000000002".into(),
        |e| e.role_claim = "owner".into(),
        |e| e.expected_revision = None,
        |e| e.issued_at += 1,
        |e| e.expires_at -= 1,
        |e| {
            e.payload = json!({"other": true});
            e.payload_hash = payload_hash(&e.payload).unwrap();
        },
    ];
    for edit in edits {
        let mut e = good.clone();
        edit(&mut e);
        assert_eq!(verify_signature(&e, &key()), Err(EnvelopeError::BadSignature), "{e:?}");
    }
    verify_signature(&good, &key()).unwrap();
}

#[test]
fn jwk_validation_and_keys() {
    let k = key();
    k.validate().unwrap();
    let bad = [
        PublicJwk { kty: "RSA".into(), ..k.clone() },
        PublicJwk { crv: "P-384".into(), ..k.clone() },
        PublicJwk { x: k.x[..42].into(), ..k.clone() },
        PublicJwk { x: format!("{}=", &k.x[..42]), ..k.clone() },
        PublicJwk { y: k.x.clone(), ..k.clone() }, // (x, x) is not on the curve
        PublicJwk { y: URL_SAFE_NO_PAD.encode([0xffu8; 32]), ..k.clone() }, // >= p
    ];
    for b in &bad {
        assert_eq!(b.validate(), Err(EnvelopeError::BadKey), "{b:?}");
        assert_eq!(verify_signature(&signed(unsigned()), b), Err(EnvelopeError::BadKey));
    }
    assert_eq!(public_jwk_from_secret(&[0u8; 32]), Err(EnvelopeError::BadKey));
    assert_eq!(public_jwk_from_secret(&[0xffu8; 32]), Err(EnvelopeError::BadKey));
    let mut e = unsigned();
    assert_eq!(sign_envelope(&mut e, &[0u8; 32]), Err(EnvelopeError::BadKey));
    e.payload_hash = "0".repeat(64);
    assert_eq!(sign_envelope(&mut e, &SECRET), Err(EnvelopeError::PayloadHashMismatch));
    // RFC 6979: signing is deterministic.
    assert_eq!(signed(unsigned()).signature, signed(unsigned()).signature);
    assert_ne!(k.fingerprint(), public_jwk_from_secret(&OTHER_SECRET).unwrap().fingerprint());
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Vector {
    name: String,
    secret_hex: String,
    jwk: PublicJwk,
    fingerprint: String,
    envelope: Envelope,
    signing_bytes_b64: String,
    valid: bool,
    #[serde(default)]
    error: Option<String>,
    parse_error: Option<String>,
    deterministic: bool,
}

fn vectors() -> Vec<Vector> {
    serde_json::from_str(include_str!("../../tests/vectors/envelope_vectors.json")).unwrap()
}

fn secret_of(v: &Vector) -> [u8; 32] {
    let mut s = [0u8; 32];
    for (i, b) in s.iter_mut().enumerate() {
        *b = u8::from_str_radix(&v.secret_hex[2 * i..2 * i + 2], 16).unwrap();
    }
    s
}

#[test]
fn python_vectors() {
    use base64::engine::general_purpose::STANDARD;
    let vs = vectors();
    assert!(vs.len() >= 8 && vs.iter().any(|v| v.valid) && vs.iter().any(|v| !v.valid));
    for v in &vs {
        let n = &v.name;
        assert_eq!(STANDARD.encode(signing_bytes(&v.envelope).unwrap()), v.signing_bytes_b64, "{n}");
        assert_eq!(v.jwk.fingerprint(), v.fingerprint, "{n}");
        assert_eq!(public_jwk_from_secret(&secret_of(v)).unwrap(), v.jwk, "{n}");
        let raw = serde_json::to_vec(&v.envelope).unwrap();
        let parsed = parse_envelope(&raw, v.envelope.issued_at + 1000);
        assert_eq!(parsed.err().map(|e| format!("{e:?}")), v.parse_error, "{n}");
        let verified = verify_signature(&v.envelope, &v.jwk);
        if v.valid {
            assert_eq!(verified, Ok(()), "{n}");
        } else {
            assert_eq!(verified.err().map(|e| format!("{e:?}")), v.error, "{n}");
        }
        // With deterministic nonces, OpenSSL's RFC 6979 signature over a valid, low-S vector
        // must equal ours byte for byte.
        if v.valid && v.deterministic && !n.contains("high-s") {
            let mut mine = v.envelope.clone();
            sign_envelope(&mut mine, &secret_of(v)).unwrap();
            assert_eq!(mine.signature, v.envelope.signature, "{n}");
        }
    }
}

/// Writes Rust-signed envelopes to `$RELAY_VECTOR_OUT` (when set) for
/// `gen_envelope_vectors.py --verify-rust-signed`.
#[test]
fn vectors_rust_signed_output() {
    use base64::engine::general_purpose::STANDARD;
    let mut out = Vec::new();
    for (i, secret) in [SECRET, OTHER_SECRET].iter().enumerate() {
        for v in vectors().iter().filter(|v| v.valid) {
            let mut e = v.envelope.clone();
            e.request_id = format!("rust-signed-{i}-{:0>8}", out.len());
            sign_envelope(&mut e, secret).unwrap();
            let jwk = public_jwk_from_secret(secret).unwrap();
            verify_signature(&e, &jwk).unwrap();
            out.push(json!({
                "name": format!("rust-{i}-{}", v.name),
                "jwk": jwk,
                "fingerprint": jwk.fingerprint(),
                "signingBytesB64": STANDARD.encode(signing_bytes(&e).unwrap()),
                "signature": e.signature,
            }));
        }
    }
    assert!(!out.is_empty());
    if let Ok(path) = std::env::var("RELAY_VECTOR_OUT") {
        std::fs::write(path, serde_json::to_vec_pretty(&out).unwrap()).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn parse_never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2048), now in any::<i64>()) {
        let _ = parse_envelope(&bytes, now);
    }

    #[test]
    fn single_byte_mutation_is_rejected_or_unverifiable(pos in any::<prop::sample::Index>(), flip in 1u8..=255) {
        let good = signed(unsigned());
        let mut bytes = raw(&good);
        let i = pos.index(bytes.len());
        bytes[i] ^= flip;
        if let Ok(env) = parse_envelope(&bytes, NOW) {
            prop_assert_eq!(verify_signature(&env, &key()), Err(EnvelopeError::BadSignature));
        }
    }
}
