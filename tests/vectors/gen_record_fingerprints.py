#!/usr/bin/env python3
"""Independent computation of Relay's record fingerprints (offline replay, Servers sync).

The fingerprint of a record is the lowercase hex SHA-256 of its canonical record-form JSON:
a top-level `expand` removed, object keys sorted by code point (= UTF-8 byte order), no
whitespace, strings escaped only for `"`, `\\` and characters below U+0020 (\\b \\f \\n \\r \\t
short forms, otherwise \\u00xx), integers as digits, integral floats below 1e16 as integers,
other floats in their shortest round-trip digits laid out as serde_json does (exponent
when the decimal exponent is above 16 or at most -5, `e+N` / `e-N`) (docs/offline-replay.md).

  gen_record_fingerprints.py          rewrite record_fingerprints.json from CASES
  gen_record_fingerprints.py --check  recompute every vector and compare (CI)
"""
import hashlib
import json
import sys
from pathlib import Path

OUT = Path(__file__).with_name("record_fingerprints.json")

CASES = [
    ("contact", {
        "collectionId": "pbc_contacts", "collectionName": "contacts", "id": "a1b2c3d4e5f6g7h",
        "created": "2026-12-01 08:00:00.000Z", "updated": "2026-12-03 21:15:42.123Z", "revision": 42,
        "name": "Ada Lovelace", "email": "ada@example.com", "phone": "+1 555 0100", "title": "NOC lead",
    }),
    ("server with unicode, quotes and control characters", {
        "collectionId": "pbc_servers", "collectionName": "servers", "id": "srv000000000001",
        "created": "2026-12-01 08:00:00.000Z", "updated": "2026-12-01 08:00:00.000Z", "revision": 7,
        "name": "db-01 \"primary\"", "comment": "Zürich → 東京 🚀\nline\ttab \\ back \u0001\u001f\u007f\u2028",
        "businessArea": "", "lob": "Payments", "os": "Linux", "owner": "", "contact": "",
    }),
    ("expand is dropped", {
        "id": "abcdefghijklmno", "updated": "2026-12-03 00:00:00.000Z", "revision": 1, "name": "x",
        "expand": {"group": {"id": "zzzzzzzzzzzzzzz"}},
    }),
    ("numbers: integral floats as integers, fractions shortest", {
        "id": "numbers00000001", "updated": "2026-12-03 00:00:00.000Z", "revision": 9007199254740993,
        "sortOrder": 1.5, "a": 2.0, "b": -0.0, "c": 0.1, "d": 1e-7, "e": 1.5e300, "f": 1e16, "g": 123.456,
        "h": 0.0001, "i": 0.00001, "j": -42, "k": 12345678.9, "l": 0.000001, "m": 1.234e-5, "n": 1.5e-6,
        "o": 1e21, "p": 123456789012345.67, "q": 5e-324, "r": 1.7976931348623157e308,
    }),
    ("nested objects, arrays and key order by code point", {
        "id": "nested000000001", "updated": "2026-12-03 00:00:00.000Z", "revision": 3,
        "teamOrder": ["b", "a", "é"], "items": [{"z": 1, "a": [True, False, None]}, {}],
        "B": 1, "a": 2, "é": 3, "\U00010000": 4, "\uffff": 5, "": 6,
    }),
]


def exponent(e: int) -> str:
    return "e" + ("+" if e > 0 else "") + str(e)


def fmt_float(x: float) -> str:
    if x == int(x) and abs(x) < 1e16:
        return str(int(x))
    r = repr(x)
    sign = "-" if r.startswith("-") else ""
    r = r.lstrip("-")
    mant, _, exp = r.partition("e")
    exp = int(exp) if exp else 0
    intpart, _, frac = mant.partition(".")
    if intpart.strip("0") == "":
        kk = -(len(frac) - len(frac.lstrip("0"))) + exp
        digits = frac.lstrip("0")
    else:
        kk = len(intpart.lstrip("0")) + exp
        digits = (intpart.lstrip("0") + frac)
    digits = digits.rstrip("0") or "0"
    n = len(digits)
    if 0 < kk <= 16:
        body = digits + "0" * (kk - n) + ".0" if n <= kk else digits[:kk] + "." + digits[kk:]
    elif -5 < kk <= 0:
        body = "0." + "0" * (-kk) + digits
    elif n == 1:
        body = digits + exponent(kk - 1)
    else:
        body = digits[0] + "." + digits[1:] + exponent(kk - 1)
    return sign + body


SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def string(s: str) -> str:
    out = []
    for c in s:
        if c in SHORT:
            out.append(SHORT[c])
        elif ord(c) < 0x20:
            out.append("\\u%04x" % ord(c))
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def canonical(v) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return fmt_float(v)
    if isinstance(v, str):
        return string(v)
    if isinstance(v, list):
        return "[" + ",".join(canonical(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(string(k) + ":" + canonical(v[k]) for k in sorted(v)) + "}"
    raise TypeError(type(v))


def fingerprint(record: dict) -> tuple:
    public = {k: v for k, v in record.items() if k != "expand"}
    text = canonical(public)
    return text, hashlib.sha256(text.encode("utf-8")).hexdigest()


def vectors() -> dict:
    cases = []
    for name, record in CASES:
        text, digest = fingerprint(record)
        cases.append({"name": name, "record": record, "canonical": text, "fingerprint": digest})
    return {"cases": cases}


def main() -> int:
    if "--check" in sys.argv:
        stored = json.loads(OUT.read_text(encoding="utf-8"))
        bad = 0
        for case in stored["cases"]:
            text, digest = fingerprint(case["record"])
            if (text, digest) != (case["canonical"], case["fingerprint"]):
                print(f"MISMATCH {case['name']}: {text}", file=sys.stderr)
                bad += 1
        print(f"record fingerprints: {len(stored['cases']) - bad}/{len(stored['cases'])} vectors agree")
        return 1 if bad else 0
    OUT.write_text(json.dumps(vectors(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
