#!/usr/bin/env python3
"""Independent test vectors for Relay signed envelopes (domain/src/envelope.rs).

Everything here is computed without Relay's Rust code: canonical JSON is implemented by hand
(and cross-checked against json.dumps for these inputs), the RFC 7638 thumbprint is computed
here, and signatures come from the Python `cryptography` package (OpenSSL).

Usage:
  python3 tests/vectors/gen_envelope_vectors.py [--out tests/vectors/envelope_vectors.json]
      Regenerate the committed vectors. Signatures use RFC 6979 deterministic nonces when the
      installed cryptography supports it (>= 43), so regeneration is byte-identical.
  python3 tests/vectors/gen_envelope_vectors.py --check [--out FILE]
      Regenerate in memory and fail if FILE differs (only meaningful with deterministic nonces).
  python3 tests/vectors/gen_envelope_vectors.py --verify-rust-signed PATH
      Verify a JSON list of {"jwk", "signingBytesB64", "signature"[, "fingerprint"]} produced by
      the Rust test `envelope::tests::vectors_rust_signed_output` when RELAY_VECTOR_OUT=PATH.

CI:
  RELAY_VECTOR_OUT=target/rust_signed_vectors.json cargo test -p domain --lib envelope
  python3 tests/vectors/gen_envelope_vectors.py --verify-rust-signed target/rust_signed_vectors.json
"""

import argparse
import base64
import hashlib
import json
import sys

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

SIGNING_CONTEXT = "relay-signed-envelope-v1"
P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
ISSUED_AT = 1767225600000  # 2026-01-01T00:00:00Z
EXPIRES_AT = ISSUED_AT + 60000

# Fixed private scalars (test keys only; never use them anywhere else).
SECRETS = [
    "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721",
    "0f56db78ca460b055c500064824bed999a25aaf48ebb519ac201537b85479813",
    "1e7a3f2c5d9b8e4a6c0f2d1b3a5c7e9f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d",
]


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode("ascii")


def b64u_dec(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


# ---- canonical JSON, by hand --------------------------------------------------------------

def canon_str(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif o < 0x20:
            out.append("\\u%04x" % o)
        elif 0xD800 <= o <= 0xDFFF:
            raise ValueError("lone surrogate")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def canon(v, depth=0):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        raise ValueError("non-integer number")
    if isinstance(v, str):
        return canon_str(v)
    if depth >= 32:
        raise ValueError("too deep")
    if isinstance(v, list):
        return "[" + ",".join(canon(x, depth + 1) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v.keys(), key=lambda k: k.encode("utf-8"))
        return "{" + ",".join(canon_str(k) + ":" + canon(v[k], depth + 1) for k in keys) + "}"
    raise TypeError(type(v))


def canon_checked(v):
    mine = canon(v)
    theirs = json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert mine == theirs, (mine, theirs)
    return mine


# ---- keys ---------------------------------------------------------------------------------

def key_from_secret(hex_scalar):
    return ec.derive_private_key(int(hex_scalar, 16), ec.SECP256R1())


def jwk_of(pub):
    nums = pub.public_numbers()
    return {"kty": "EC", "crv": "P-256", "x": b64u(nums.x.to_bytes(32, "big")), "y": b64u(nums.y.to_bytes(32, "big"))}


def thumbprint(jwk):
    # RFC 7638: required members only, lexicographic order, no whitespace.
    s = '{"crv":%s,"kty":%s,"x":%s,"y":%s}' % tuple(canon_str(jwk[k]) for k in ("crv", "kty", "x", "y"))
    return b64u(hashlib.sha256(s.encode("utf-8")).digest())


def public_key_of(jwk):
    x = int.from_bytes(b64u_dec(jwk["x"]), "big")
    y = int.from_bytes(b64u_dec(jwk["y"]), "big")
    return ec.EllipticCurvePublicNumbers(x, y, ec.SECP256R1()).public_key()


def ecdsa_algo():
    try:
        return ec.ECDSA(hashes.SHA256(), deterministic_signing=True), True
    except (TypeError, UnsupportedAlgorithm):  # cryptography < 43, or OpenSSL without RFC 6979
        return ec.ECDSA(hashes.SHA256()), False


# ---- envelopes ----------------------------------------------------------------------------

def payload_hash(payload):
    return hashlib.sha256(canon_checked(payload).encode("utf-8")).hexdigest()


def signing_bytes(env):
    body = {k: v for k, v in env.items() if k != "signature"}
    body.setdefault("expectedRevision", None)
    return (SIGNING_CONTEXT + "\n" + canon_checked(body)).encode("utf-8")


def sign(priv, msg):
    algo, _ = ecdsa_algo()
    r, s = decode_dss_signature(priv.sign(msg, algo))
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def base_envelope(command, payload, request_id, account_id, device_id, role, expected_revision):
    return {
        "version": 1,
        "command": command,
        "payload": payload,
        "payloadHash": payload_hash(payload),
        "requestId": request_id,
        "accountId": account_id,
        "deviceId": device_id,
        "roleClaim": role,
        "expectedRevision": expected_revision,
        "issuedAt": ISSUED_AT,
        "expiresAt": EXPIRES_AT,
        "signature": "",
    }


def vector(name, key_index, env, valid, error=None, parse_error=None, note=None):
    priv = key_from_secret(SECRETS[key_index])
    jwk = jwk_of(priv.public_key())
    v = {
        "name": name,
        "secretHex": SECRETS[key_index],
        "jwk": jwk,
        "fingerprint": thumbprint(jwk),
        "envelope": env,
        "signingBytesB64": base64.b64encode(signing_bytes(env)).decode("ascii"),
        "valid": valid,
        "deterministic": ecdsa_algo()[1],
    }
    if not valid:
        v["error"] = error
    v["parseError"] = parse_error
    if note:
        v["note"] = note
    return v


def signed(key_index, env):
    env = dict(env)
    env["signature"] = b64u(sign(key_from_secret(SECRETS[key_index]), signing_bytes(env)))
    return env


def build():
    vs = []
    e1 = signed(0, base_envelope(
        "wiki.publish",
        {"title": "Runbook: Überwachung 日本 🚀", "body": "line1\nline2\t\"quoted\" \\ back", "tags": ["noc", "é"],
         "meta": {"z": 1, "a": {"nested": [1, -2, {"deep": None}]}, "B": True}, "ctl": "\u0001\u001f"},
        "req_0001-ABCDEFGHIJ", "a1b2c3d4e5f6g7h", "d1e2v3i4c5e6x7y", "publisher", None))
    vs.append(vector("unicode-nested-no-revision", 0, e1, True))

    e2 = signed(1, base_envelope(
        "accounts.setActive", {"accountId": "p0p1p2p3p4p5p6p", "active": False},
        "Zz9-Yy8_Xx7-Ww6_Vv5-Uu4_Tt3-Ss2", "ownerowner00001", "device000000001", "owner", 42))
    vs.append(vector("expected-revision-set", 1, e2, True))

    e3 = signed(2, base_envelope(
        "privileged.probe", {}, "probeprobeprobe1", "admin0000000002", "device000000002", "administrator", 0))
    vs.append(vector("empty-payload-revision-zero", 2, e3, True))

    # High-S form of a valid signature: accepted by Relay (documented).
    raw = b64u_dec(e2["signature"])
    r, s = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
    e2h = dict(e2, signature=b64u(r.to_bytes(32, "big") + (P256_N - s).to_bytes(32, "big")))
    vs.append(vector("high-s-accepted", 1, e2h, True, note="same message as expected-revision-set, s replaced by n - s"))

    # Invalid ones.
    t1 = dict(e1, payload=dict(e1["payload"], title="Runbook: tampered"))
    vs.append(vector("tampered-payload-stale-hash", 0, t1, False, "BadSignature", "PayloadHashMismatch"))
    t2 = dict(t1, payloadHash=payload_hash(t1["payload"]))
    vs.append(vector("tampered-payload-rehashed", 0, t2, False, "BadSignature"))
    vs.append(vector("wrong-key", 2, e1, False, "BadSignature", note="signed with key 0, checked against key 2"))
    t3 = dict(e2, signature=e2["signature"][:-2])
    vs.append(vector("truncated-signature", 1, t3, False, "BadSignature", "BadField(\"signature\")"))
    t4 = dict(e3, roleClaim="owner")
    vs.append(vector("role-claim-changed", 2, t4, False, "BadSignature"))
    t5 = dict(e2, expectedRevision=43)
    vs.append(vector("expected-revision-changed", 1, t5, False, "BadSignature"))
    der = key_from_secret(SECRETS[2]).sign(signing_bytes(e3), ecdsa_algo()[0])
    t6 = dict(e3, signature=b64u(der))
    vs.append(vector("der-signature-rejected", 2, t6, False, "BadSignature", "BadField(\"signature\")"))
    return vs


def dump(doc):
    return json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def verify_rust_signed(path):
    with open(path, encoding="utf-8") as f:
        items = json.load(f)
    if not items:
        print("no entries in", path, file=sys.stderr)
        return 1
    algo = ec.ECDSA(hashes.SHA256())
    failures = 0
    for i, it in enumerate(items):
        sig = b64u_dec(it["signature"])
        msg = base64.b64decode(it["signingBytesB64"])
        ok = len(sig) == 64 and len(it["signature"]) == 86
        if ok:
            der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
            try:
                public_key_of(it["jwk"]).verify(der, msg, algo)
            except InvalidSignature:
                ok = False
        if ok and "fingerprint" in it and it["fingerprint"] != thumbprint(it["jwk"]):
            ok = False
        if not ok:
            failures += 1
            print("FAIL entry", i, it.get("name", ""), file=sys.stderr)
    print("verified %d Rust-signed entries, %d failures" % (len(items), failures))
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="tests/vectors/envelope_vectors.json")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--verify-rust-signed", metavar="PATH")
    a = ap.parse_args()
    if a.verify_rust_signed:
        return verify_rust_signed(a.verify_rust_signed)
    doc = build()
    text = dump(doc)
    if a.check:
        with open(a.out, encoding="utf-8") as f:
            same = f.read() == text
        print("vectors up to date" if same else "vectors differ from regenerated output")
        return 0 if same else 1
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote %d vectors to %s (deterministic nonces: %s)" % (len(doc), a.out, ecdsa_algo()[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
