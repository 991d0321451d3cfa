//! Log redaction: the one place that decides what must never reach a log line. It owns the
//! list of sensitive field names, the text rules that strip URLs down to their origin and
//! mask credentials, key/value secrets, superuser-upsert arguments, e-mail addresses and
//! phone numbers, the JSON walker that applies them to structured payloads, and escaping of
//! line breaks and control characters so one logged value cannot forge extra log lines.
//! Every function is pure and total: any input produces output, nothing panics, and
//! `redact_text(redact_text(x)) == redact_text(x)` for realistic input.

use std::fmt::Write as _;
use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde_json::Value;

pub const REDACTED: &str = "[REDACTED]";
const REDACTED_EMAIL: &str = "[REDACTED_EMAIL]";
const REDACTED_PHONE: &str = "[REDACTED_PHONE]";
const REDACTED_TOKEN: &str = "[REDACTED_TOKEN]";
const UNPARSEABLE_URL: &str = "<unparseable-url>";

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("redaction regex is valid")
}

static SENSITIVE_KEY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)password|passphrase|token|api[_-]?key|secret|authorization|cookie|email|phone|mobile|telephone|address|pairing[_-]?code|signature|private[_-]?key|credential",
    )
});
/// Rule 1. `*` rather than `+` after `://` so that an origin with an empty host (`foo://`)
/// is recognised again on a second pass, and the `<unparseable-url>` marker is matched too
/// so later rules never treat it as a value: both keep redaction idempotent.
static URL: LazyLock<Regex> = LazyLock::new(|| re(r#"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]*|<unparseable-url>"#));
static AUTH_SCHEME: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+"));
static JWT: LazyLock<Regex> = LazyLock::new(|| re(r"eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*"));
/// Rule 3 is two regexes so each byte is scanned a bounded number of times: `KEY_SEP` finds
/// `key=` / `key: ` / `"key":` candidates, and `VALUE` (anchored) reads a sensitive key's value.
static KEY_SEP: LazyLock<Regex> = LazyLock::new(|| re(r#"(?P<key>[A-Za-z_][A-Za-z0-9_.-]*)["']?[ \t]*[=:][ \t]*"#));
static VALUE: LazyLock<Regex> = LazyLock::new(|| re(r#"^(?s:"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|[^\s,}]+)"#));
static SUPERUSER_UPSERT: LazyLock<Regex> = LazyLock::new(|| {
    // A quoted argument swallows anything glued to its closing quote, so it always ends at
    // whitespace and a second pass sees the same argument boundaries.
    let arg = r#"(?:"(?:[^"\\]|\\.)*"\S*|'(?:[^'\\]|\\.)*'\S*|\S+)"#;
    re(&format!(r"(?i)\b(superuser[ \t]+upsert)[ \t]+{arg}[ \t]+{arg}"))
});
static EMAIL: LazyLock<Regex> = LazyLock::new(|| re(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"));
/// `keep` matches things that look numeric but are not phone numbers (ISO dates and
/// timestamps, clock times, dotted-quad IPv4 addresses, UUIDs, the recovery launcher's build
/// ids `v<major>-<minor>-<patch>-<8 hex>`); because alternatives are tried leftmost-first, they
/// shield their digits from the `phone` alternative.
static PHONE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?x)
        (?P<keep>
            \b[0-9]{4}-[0-9]{2}-[0-9]{2}
              (?:[T\x20][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:[.,][0-9]+)?)?(?:Z|[+-][0-9]{2}(?::?[0-9]{2})?)?)?\b
          | \b[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?(?:[.,][0-9]+)?\b
          | \b[0-9]{1,3}(?:\.[0-9]{1,3}){3}\b
          | \b[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b
          | \bv[0-9]{1,9}-[0-9]{1,9}-[0-9]{1,9}-[0-9a-f]{8}\b
        )
      | (?P<phone>
            (?:\+?\([0-9]+\)|\+?\b[0-9]+\b)
            (?:[\x20.\-]?(?:\([0-9]+\)|[0-9]+\b))*
        )")
});

/// Whether a field or header name holds data that must not be logged (case-insensitive
/// substring match, so `user_password`, `X-Api-Key` and `accessToken` all count).
pub fn is_sensitive_key(key: &str) -> bool {
    SENSITIVE_KEY.is_match(key)
}

/// Redacts free text. Rules, in order: (1) URLs become their origin; (2) `Bearer`/`Basic`
/// credentials and JWTs; (3) values of sensitive `key=value`, `key: value` and
/// `"key":"value"` pairs (quotes around a quoted value are kept: `"[REDACTED]"`);
/// (4) `superuser upsert <email> <secret>` arguments; (5) e-mail addresses; (6) phone
/// numbers. Rules 2–6 never alter the origins produced by rule 1.
pub fn redact_text(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    let mut plain = String::new();
    let mut last = 0;
    for m in URL.find_iter(input) {
        let before = &input[last..m.start()];
        last = m.end();
        if let Some(start) = glued_email_start(before).filter(|_| m.as_str() != UNPARSEABLE_URL) {
            // `bob@example.com://…`: the "scheme" completes an e-mail address, so the whole
            // thing is redacted as one. It stays in the plain text so that a second pass sees
            // the same text and changes nothing.
            plain.push_str(&before[..start]);
            plain.push_str(REDACTED_EMAIL);
            plain.push_str(trailing_punctuation(m.as_str()));
            continue;
        }
        plain.push_str(before);
        out.push_str(&redact_plain(&plain));
        plain.clear();
        if m.as_str() == UNPARSEABLE_URL {
            out.push_str(UNPARSEABLE_URL);
        } else {
            out.push_str(&origin_of_match(m.as_str()));
        }
    }
    plain.push_str(&input[last..]);
    out.push_str(&redact_plain(&plain));
    out
}

/// If `before` ends like the start of an e-mail address that a following URL "scheme" would
/// complete (`bob@`, `x@1.`), the byte offset where that address starts.
fn glued_email_start(before: &str) -> Option<usize> {
    let head =
        before.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '.' || c == '-').strip_suffix('@')?;
    let is_local = |b: &u8| b.is_ascii_alphanumeric() || b"._%+-".contains(b);
    Some(head.len() - head.bytes().rev().take_while(is_local).count())
}

fn trailing_punctuation(url: &str) -> &str {
    let kept = url.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '}']);
    &url[kept.len()..]
}

/// Origin of a URL found in text. Trailing punctuation (`(see https://x.io/a).`) is kept
/// verbatim after the origin when it is cosmetic: when stripping it leaves a URL that still
/// has a path/query/fragment (so the origin is unaffected) or that already is an origin.
/// That rule reproduces the same split on a second pass, keeping redaction idempotent.
fn origin_of_match(url: &str) -> String {
    let trailing = trailing_punctuation(url).len();
    // A handful of attempts bounds the cost of pathological runs like `http://]]]]…`.
    for strip in (1..=trailing).rev().take(8) {
        let prefix = &url[..url.len() - strip];
        let origin = describe_url_for_log(prefix);
        if origin != UNPARSEABLE_URL && (origin == prefix || has_path(prefix)) {
            return origin + &url[prefix.len()..];
        }
    }
    describe_url_for_log(url)
}

fn has_path(url: &str) -> bool {
    url.split_once("://").is_some_and(|(_, rest)| rest.contains(['/', '?', '#', '\\']))
}

/// Rules 2–6 on text that contains no URL.
fn redact_plain(text: &str) -> String {
    let text = AUTH_SCHEME.replace_all(text, "${1} [REDACTED]");
    let text = JWT.replace_all(&text, REDACTED_TOKEN);
    let text = redact_key_values(&text);
    let text = SUPERUSER_UPSERT.replace_all(&text, "${1} [REDACTED_EMAIL] [REDACTED]");
    let text = EMAIL.replace_all(&text, REDACTED_EMAIL);
    PHONE
        .replace_all(&text, |caps: &Captures| match caps.name("phone") {
            Some(m) if m.as_str().bytes().filter(u8::is_ascii_digit).count() >= 7 => REDACTED_PHONE.to_string(),
            _ => caps[0].to_string(),
        })
        .into_owned()
}

/// Rule 3. Scanning resumes right after a non-sensitive key's separator, so a sensitive pair
/// inside another value (`q=password=x`) is still found.
fn redact_key_values(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut pos = 0;
    while let Some(caps) = KEY_SEP.captures_at(text, pos) {
        let value_start = caps.get(0).map_or(pos, |m| m.end());
        pos = value_start;
        if !is_sensitive_key(&caps["key"]) {
            continue;
        }
        let Some(value) = VALUE.find(&text[value_start..]) else {
            continue;
        };
        out.push_str(&text[copied..value_start]);
        match value.as_str().as_bytes()[0] {
            q @ (b'"' | b'\'') => {
                let q = char::from(q);
                let _ = write!(out, "{q}{REDACTED}{q}");
            }
            _ => out.push_str(REDACTED),
        }
        copied = value_start + value.end();
        pos = copied;
    }
    out.push_str(&text[copied..]);
    out
}

/// Redacts a JSON value: the value of any object member with a sensitive key becomes
/// `"[REDACTED]"` whatever its type; every other string (including object keys) goes
/// through [`redact_text`]; arrays and objects are walked recursively.
pub fn redact_json(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(redact_text(s)),
        Value::Array(items) => Value::Array(items.iter().map(redact_json).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if is_sensitive_key(k) { Value::String(REDACTED.to_string()) } else { redact_json(v) };
                    (redact_text(k), v)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Makes a value safe to embed in one log line: `\r`, `\n`, U+2028, U+2029 and U+0085 (NEL)
/// become `\r`, `\n`, `\u2028`, `\u2029`, `\u0085`; other ASCII control characters except
/// tab become `\xNN` (e.g. ESC → `\x1b`). Everything else, backslashes included, is unchanged.
pub fn escape_line_breaks(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    for c in input.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            '\u{85}' => out.push_str("\\u0085"),
            '\t' => out.push('\t'),
            c if c.is_ascii_control() => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// A URL reduced to what is safe to log: `scheme://host[:port]` (port only when explicit and
/// not the scheme's default); userinfo, path, query and fragment are dropped. Opaque URLs
/// (`mailto:`, `data:`) become `scheme:`; unparseable input becomes `<unparseable-url>`.
pub fn describe_url_for_log(raw: &str) -> String {
    let Ok(url) = url::Url::parse(raw) else {
        return UNPARSEABLE_URL.to_string();
    };
    if !url.has_authority() {
        return format!("{}:", url.scheme());
    }
    let mut out = format!("{}://{}", url.scheme(), url.host_str().unwrap_or(""));
    if let Some(port) = url.port() {
        let _ = write!(out, ":{port}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn r(s: &str) -> String {
        redact_text(s)
    }

    #[test]
    fn sensitive_keys() {
        let sensitive = "password PASSWORD user_password passphrase token accessToken api_key \
            X-Api-Key apikey client_secret Authorization Set-Cookie email emailAddress phone \
            mobile telephone ip_address pairing_code pairingcode pairing-code signature \
            private_key privatekey credentials";
        for key in sensitive.split_whitespace() {
            assert!(is_sensitive_key(key), "{key}");
        }
        for key in "name user id created status api pairing key".split_whitespace() {
            assert!(!is_sensitive_key(key), "{key}");
        }
    }

    #[test]
    fn describe_url() {
        let d = describe_url_for_log;
        assert_eq!(d("https://user:pw@example.com/a/b?token=x#frag"), "https://example.com");
        assert_eq!(d("https://example.com:443/"), "https://example.com");
        assert_eq!(d("https://Example.COM:8443/x"), "https://example.com:8443");
        assert_eq!(d("http://10.0.0.1:80/x"), "http://10.0.0.1");
        assert_eq!(d("http://[::1]:8090/api"), "http://[::1]:8090");
        assert_eq!(d("postgres://u:p@db:5432/relay"), "postgres://db:5432");
        assert_eq!(d("ws://münchen.de/socket"), "ws://xn--mnchen-3ya.de");
        assert_eq!(d("file:///etc/passwd"), "file://");
        assert_eq!(d("mailto:bob@example.com"), "mailto:");
        assert_eq!(d("data:text/plain,secret"), "data:");
        assert_eq!(d("not a url"), "<unparseable-url>");
        assert_eq!(d("http://"), "<unparseable-url>");
        assert_eq!(d("http://exa mple.com"), "<unparseable-url>");
    }

    #[test]
    fn rule1_urls_become_origins() {
        assert_eq!(
            r("GET https://api.example.com:8443/v1/x?token=abc123&email=a%40b.c done"),
            "GET https://api.example.com:8443 done"
        );
        assert_eq!(r("see (https://x.io/a?k=v)."), "see (https://x.io).");
        assert_eq!(r(r#"url="https://u:p@x.io/p""#), r#"url="https://x.io""#);
        assert_eq!(r("http://[bad/path"), "<unparseable-url>");
        // Origins are never rewritten by the later rules.
        assert_eq!(
            r("https://password.example.com:8443/x and http://192.168.100.200:8080/"),
            "https://password.example.com:8443 and http://192.168.100.200:8080"
        );
    }

    #[test]
    fn rule2_auth_schemes_and_jwts() {
        assert_eq!(r("auth Bearer abc.def-123/+="), "auth Bearer [REDACTED]");
        assert_eq!(r("basic   dXNlcjpwYXNz!"), "basic [REDACTED]!");
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.sXVbC4Yx_-";
        assert_eq!(r(&format!("jwt {jwt} end")), "jwt [REDACTED_TOKEN] end");
        assert_eq!(r(&format!("BEARER {jwt}")), "BEARER [REDACTED]");
    }

    #[test]
    fn rule3_sensitive_pairs() {
        assert_eq!(r("password=hunter2 user=bob"), "password=[REDACTED] user=bob");
        assert_eq!(r(r#"{"token":"abc","n":1}"#), r#"{"token":"[REDACTED]","n":1}"#);
        assert_eq!(r(r#"passphrase: "two words" ok"#), r#"passphrase: "[REDACTED]" ok"#);
        assert_eq!(r(r#"secret="a\"b c" x"#), r#"secret="[REDACTED]" x"#);
        assert_eq!(r("{'api_key': 'k1', 'x': 2}"), "{'api_key': '[REDACTED]', 'x': 2}");
        assert_eq!(r("a=1,client_secret=s3,b=2"), "a=1,client_secret=[REDACTED],b=2");
        assert_eq!(r("q=password=x"), "q=password=[REDACTED]");
        assert_eq!(r("pairing-code = 1234 next"), "pairing-code = [REDACTED] next");
        assert_eq!(r("Authorization: Bearer abc"), "Authorization: [REDACTED] [REDACTED]");
        assert_eq!(r(r#"password="unterminated"#), r#"password="[REDACTED]""#);
        assert_eq!(r("user=bob status: ok"), "user=bob status: ok");
        assert_eq!(r("password= "), "password= ");
    }

    #[test]
    fn rule4_superuser_upsert() {
        assert_eq!(
            r("running superuser upsert admin@example.com S3cret!pw now"),
            "running superuser upsert [REDACTED_EMAIL] [REDACTED] now"
        );
        assert_eq!(r(r#"superuser upsert root "pass with spaces""#), "superuser upsert [REDACTED_EMAIL] [REDACTED]");
    }

    #[test]
    fn rule5_emails() {
        assert_eq!(r("from bob.smith+noc@mail.example.org."), "from [REDACTED_EMAIL].");
        assert_eq!(r("<a@b.io>,c_d@e-f.co"), "<[REDACTED_EMAIL]>,[REDACTED_EMAIL]");
        assert_eq!(r("user@localhost"), "user@localhost");
    }

    #[test]
    fn rule6_phones() {
        for phone in
            ["+1 (555) 123-4567", "555-1234", "0091 99049 18167", "5551234567", "+44.20.7946.0958", "(555)123-4567"]
        {
            assert_eq!(r(&format!("call {phone} now")), "call [REDACTED_PHONE] now", "{phone}");
        }
        assert_eq!(r("tel:+15551234567"), "tel:[REDACTED_PHONE]");
    }

    #[test]
    fn rule6_leaves_non_phones_alone() {
        for text in [
            "at 2026-12-02T12:57:11.123Z ok",
            "at 2026-12-02 12:57:11.123Z ok",
            "at 2026-12-02 12:57:11+05:30",
            "12:57:11.1234567",
            "took 1234 ms",
            "took 12ms",
            "took 1234567ms",
            "listening on 0.0.0.0:8090",
            "peer 192.168.100.200 port 65535",
            "123456",
            "id abc1234567def",
            "candidate promoted build=v0-2-0-01234567",
            "build v10-20-300-12345678 current",
            "uuid 550e8400-e29b-41d4-a716-446655440000",
        ] {
            assert_eq!(r(text), text);
        }
    }

    #[test]
    fn combinations() {
        assert_eq!(
            r("login email=bob@x.io from https://relay.example/login?next=/ phone +1 555 123 4567 token: eyJa.eyJb.c"),
            "login email=[REDACTED] from https://relay.example phone [REDACTED_PHONE] token: [REDACTED]"
        );
        assert_eq!(
            r("2026-12-02 12:57:11.123Z WARN user a@b.co failed password=pw 3 times"),
            "2026-12-02 12:57:11.123Z WARN user [REDACTED_EMAIL] failed password=[REDACTED] 3 times"
        );
        // A URL whose "scheme" completes an e-mail address is redacted as an e-mail.
        assert_eq!(r("see a.b@b.cc://x/p?q=1, ok"), "see [REDACTED_EMAIL], ok");
        assert_eq!(r("password=a@http://x y"), "password=[REDACTED] y");
        assert_eq!(r("12@.x.cc://"), "[REDACTED_EMAIL]");
        // The unparseable marker is never mistaken for a secret value on a second pass.
        assert_eq!(r("secret=http://[bad"), "secret=<unparseable-url>");
    }

    #[test]
    fn redaction_is_idempotent() {
        for text in [
            "password=hunter2 user=bob",
            r#"{"token":"abc","email":"a@b.co"}"#,
            "Authorization: Basic dXNlcjpwYXNz",
            "superuser upsert a@b.co pw",
            "superuser upsert Bearer ''Bearer ",
            "call +1 (555) 123-4567 or https://u:p@x.io:81/?t=1).",
            "a@b.cc://x",
            "http://[bad",
            "secret=http://[bad",
            "see a.b@b.cc://x/p?q=1, ok",
            "http://.\\]",
            "http://12,;\\",
            "(https://x.io). (https://x.io/a?b). http://x.y./p). http://./x]",
            "token=eyJa.eyJb.c x@y.zz.q@w.ee",
        ] {
            let once = r(text);
            assert_eq!(r(&once), once, "{text}");
        }
    }

    #[test]
    fn large_adversarial_inputs_stay_linear() {
        // Each of these would take minutes if any rule rescanned the rest of the line per match.
        for (piece, count) in [("k=", 60_000), ("a=\"", 40_000), ("a@", 60_000), ("x://", 30_000)] {
            let out = r(&piece.repeat(count));
            assert!(!EMAIL.is_match(&out));
        }
        let many_secrets = "password=x ".repeat(20_000);
        assert_eq!(r(&many_secrets), "password=[REDACTED] ".repeat(20_000));
        assert_eq!(r(&"5 ".repeat(50_000)), "[REDACTED_PHONE] ");
    }

    #[test]
    fn json_redaction() {
        let input = json!({
            "user": "bob",
            "password": {"nested": "object"},
            "apiKey": 12345,
            "items": [{"email": "a@b.co"}, "contact c@d.io", 7, null, true],
            "note": "token=abc",
            "x@y.io": 1,
            "deep": {"list": [[{"cookie": ["a"]}]]}
        });
        let expected = json!({
            "user": "bob",
            "password": "[REDACTED]",
            "apiKey": "[REDACTED]",
            "items": [{"email": "[REDACTED]"}, "contact [REDACTED_EMAIL]", 7, null, true],
            "note": "token=[REDACTED]",
            "[REDACTED_EMAIL]": 1,
            "deep": {"list": [[{"cookie": "[REDACTED]"}]]}
        });
        assert_eq!(redact_json(&input), expected);
        assert_eq!(redact_json(&json!(42)), json!(42));
    }

    #[test]
    fn line_break_escaping() {
        assert_eq!(escape_line_breaks("a\r\nb"), "a\\r\\nb");
        assert_eq!(escape_line_breaks("x\u{2028}y\u{2029}z\u{85}"), "x\\u2028y\\u2029z\\u0085");
        assert_eq!(escape_line_breaks("\u{1b}[31mred\u{0}\u{7f}"), "\\x1b[31mred\\x00\\x7f");
        assert_eq!(escape_line_breaks("tab\there \\n é 日本"), "tab\there \\n é 日本");
        assert!(!escape_line_breaks("forged\nINFO admin logged in").contains('\n'));
    }

    /// Pieces that exercise every rule and the seams between them; `|`-separated.
    const PIECES: &str = "a@b.co|bob.x+y@example.org|@|.|com|io|password|token|email|=|:|\"|'| \
        |,|}|{|\\|\n|http://|https://u:p@h.io:8443/p?q=1|x.cc://|Bearer |basic |eyJh.eyJz.s\
        |superuser upsert |5551234|+1 (555) 123-4567|2026-12-02 12:57:11.123Z|192.168.100.200\
        |-|(|)|12|é|_|x|[REDACTED]|%|foo://|ftp://|+|[|]|;|http://.|?|a:|\t|a716-|0|T|Z\
        |upsert|secret|@http://x|555|1.2|ws://[::1]:80/|mailto:a@b.co|<unparseable-url>\
        |\\\"|passphrase: |eyJ|Basic|(1)|ÉX|\u{2028}|''";

    fn fragments() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(PIECES.split('|').collect::<Vec<_>>());
        prop::collection::vec(pieces, 0..24).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            failure_persistence: None,
            cases: 1024,
            ..ProptestConfig::default()
        })]

        #[test]
        fn arbitrary_text_never_panics_leaks_an_email_or_changes_twice(input in ".{0,200}") {
            let out = redact_text(&input);
            prop_assert!(!EMAIL.is_match(&out), "{:?} -> {:?}", input, out);
            prop_assert_eq!(redact_text(&out), out);
        }

        #[test]
        fn fragment_soup_never_leaks_an_email_and_is_idempotent(input in fragments()) {
            let out = redact_text(&input);
            prop_assert!(!EMAIL.is_match(&out), "{:?} -> {:?}", input, out);
            prop_assert_eq!(redact_text(&out), out.clone(), "input {:?}", input);
        }
    }
}
