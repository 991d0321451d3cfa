//! The alert-body HTML allowlist (issue #19), as data and pure checks: which record fields hold
//! rich HTML, which tags and attributes survive, which attribute values are allowed (a link is
//! an absolute http(s) URL with a host or a mailto: address and always carries
//! `rel="noopener noreferrer"`, a highlight is one of five names, an image source is a base64
//! PNG/JPEG/GIF/WebP data URL, an image's class is the UI's own) and which elements lose their
//! content with them. It mirrors the renderer's DOMPurify configuration
//! (`ui/src/features/alerts/richBody.ts`, `bodyImages.ts`); `infra::html` applies it with
//! ammonia to every stored value of those fields. No parser here.

use std::borrow::Cow;

use url::Url;

/// `(collection, field)` pairs whose values are alert-body HTML and are stored sanitized.
pub const RICH_HTML_FIELDS: &[(&str, &str)] = &[("alert_history", "bodyHtml"), ("alert_reminders", "alertBodyHtml")];

/// Whether `collection.field` holds alert-body HTML.
pub fn is_rich_html_field(collection: &str, field: &str) -> bool {
    RICH_HTML_FIELDS.iter().any(|&(c, f)| c == collection && f == field)
}

/// The tags kept (the renderer's `BASE_TAGS` plus `img`, which it keeps when reading stored
/// bodies). Every other element is unwrapped: its text stays, the tag goes.
pub const TAGS: &[&str] = &["b", "strong", "i", "em", "u", "ul", "ol", "li", "br", "p", "div", "a", "span", "img"];

/// The attributes each tag may carry, each value still subject to [`attribute_value`].
/// `a`'s `rel` is not listed: whatever a body carries is dropped and [`LINK_REL`] is set.
pub const TAG_ATTRIBUTES: &[(&str, &[&str])] =
    &[("a", &["href"]), ("span", &["data-hl"]), ("img", &["src", "alt", "class"])];

/// Elements removed together with everything inside them (DOMPurify's default
/// `FORBID_CONTENTS`, plus the embedding elements): their text is never body text.
pub const CONTENT_DROPPED_TAGS: &[&str] = &[
    "script",
    "style",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "svg",
    "math",
    "template",
    "noscript",
    "noembed",
    "noframes",
    "plaintext",
    "xmp",
    "title",
    "head",
    "audio",
    "video",
    "colgroup",
    "thead",
    "annotation-xml",
    "desc",
    "foreignobject",
    "mi",
    "mn",
    "mo",
    "ms",
    "mtext",
];

/// The URL schemes a URL attribute may use at all (`href` and `src`); which one on which
/// attribute is [`attribute_value`]'s business.
pub const URL_SCHEMES: &[&str] = &["http", "https", "mailto", "data"];

/// The `rel` every kept link carries.
pub const LINK_REL: &str = "noopener noreferrer";

/// The five highlight names `span[data-hl]` may carry (case-sensitive, as in the renderer).
pub const HIGHLIGHTS: &[&str] = &["deadline", "warning", "success", "number", "service"];

/// The one class an image may carry: the UI writes every stored image with it
/// (`bodyImages.ts` `imageTag`).
pub const IMAGE_CLASS: &str = "alert-body-image";

/// The image formats an inline image may have (`SAFE_IMAGE_SRC` in `bodyImages.ts`).
const IMAGE_TYPES: &[&str] = &["png", "jpeg", "jpg", "gif", "webp"];

/// Whether `v` is a highlight name.
pub fn is_highlight(v: &str) -> bool {
    HIGHLIGHTS.contains(&v)
}

/// `bodyImages.ts` `isSafeImageSrc`: exactly `data:image/(png|jpeg|jpg|gif|webp);base64,`
/// followed by one or more of `[A-Za-z0-9+/=]`, case-insensitive, nothing before or after (no
/// whitespace, no percent-encoding, no URL-safe base64). No length limit of its own: the field's
/// limit (`collections::HTML_LEN`) bounds it, as in the UI.
pub fn is_safe_image_src(src: &str) -> bool {
    let Some(rest) = strip_prefix_ignore_case(src, "data:image/") else { return false };
    let Some((kind, payload)) = rest.split_once(';') else { return false };
    if !IMAGE_TYPES.iter().any(|t| kind.eq_ignore_ascii_case(t)) {
        return false;
    }
    let Some(data) = strip_prefix_ignore_case(payload, "base64,") else { return false };
    !data.is_empty() && data.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
}

/// `richBody.ts` `safeHref`, without its normalization: the trimmed `href` when it starts with
/// `http://`, `https://` or `mailto:` (any case) and parses as such a URL, with a host for
/// http(s) and an address for mailto; else `None`. The value is kept as written (the UI writes
/// it already normalized), so the UI's own links pass unchanged.
pub fn safe_href(href: &str) -> Option<&str> {
    let v = href.trim();
    let lower = v.get(..8).unwrap_or(v).to_ascii_lowercase();
    let web = lower.starts_with("http://") || lower.starts_with("https://");
    if !web && !lower.starts_with("mailto:") {
        return None;
    }
    let url = Url::parse(v).ok()?;
    let ok = match url.scheme() {
        "http" | "https" => web && url.host_str().is_some_and(|h| !h.is_empty()),
        "mailto" => !web && !url.path().is_empty(),
        _ => false,
    };
    ok.then_some(v)
}

/// The value `attr` on `tag` is stored with, or `None` when the attribute goes. `rel` on `a` is
/// the one the sanitizer sets and must be exactly [`LINK_REL`]; an `a` without a safe `href`, a
/// `span` without a known highlight and an `img` without a safe `src` stay as harmless bare
/// elements (the renderer unwraps or drops them when it reads the body).
pub fn attribute_value<'v>(tag: &str, attr: &str, value: &'v str) -> Option<Cow<'v, str>> {
    let kept = match (tag, attr) {
        ("a", "href") => return safe_href(value).map(Cow::Borrowed),
        ("a", "rel") => value == LINK_REL,
        ("span", "data-hl") => is_highlight(value),
        ("img", "src") => is_safe_image_src(value),
        ("img", "alt") => true,
        ("img", "class") => value == IMAGE_CLASS,
        _ => false,
    };
    kept.then_some(Cow::Borrowed(value))
}

/// Deepest element nesting a stored body may have (the UI's bodies nest a handful of levels).
/// html5ever's tree builder checks scope by walking the open-element stack, so its cost grows
/// with the square of the depth: 150,000 nested `<div>`s take minutes.
pub const MAX_NESTING: usize = 100;

/// Budget for the serializer's escape scans, in bytes. html5ever's serializer looks for the next
/// `<`, `>` (or `"`) from every `&` and every U+0080..U+00BF character it writes, so a long run of
/// text full of them costs the square of its length (750,000 `&` take seconds). The UI's bodies
/// break text into short lines and stay far below this.
pub const MAX_ESCAPE_SCAN: u64 = 200_000_000;

/// Why a body is refused before it is sanitized (the sanitizer's own cost would be too high).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TooComplex {
    /// Elements nested deeper than [`MAX_NESTING`].
    Nesting,
    /// Runs of text with too many characters to escape ([`MAX_ESCAPE_SCAN`]).
    Escapes,
}

impl TooComplex {
    /// The operator-readable refusal.
    pub fn message(self) -> String {
        match self {
            TooComplex::Nesting => format!("Must not nest elements more than {MAX_NESTING} deep."),
            TooComplex::Escapes => "Has too many escaped characters in one run of text.".to_string(),
        }
    }
}

const VOID_TAGS: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param", "source", "track",
    "wbr",
];

/// A linear, conservative estimate of what sanitizing `html` costs, checked before the parser
/// sees it. Nesting: every `<name` that is not a void element opens a level and only an end tag
/// naming the innermost open one closes it (misnested or unclosed markup counts deeper than a
/// browser would, never shallower; text that only looks like a tag counts too). Escapes: for
/// every `&` and U+0080..U+00BF character, the distance to the next `<`, `>` or `"`.
pub fn check_complexity(html: &str) -> Result<(), TooComplex> {
    let b = html.as_bytes();
    let mut next_stop = b.len();
    let mut scan: u64 = 0;
    for i in (0..b.len()).rev() {
        match b[i] {
            b'<' | b'>' | b'"' => next_stop = i,
            b'&' | 0xC2 => {
                scan += (next_stop - i) as u64;
                if scan > MAX_ESCAPE_SCAN {
                    return Err(TooComplex::Escapes);
                }
            }
            _ => {}
        }
    }
    let mut open: Vec<String> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        let closing = b.get(i + 1) == Some(&b'/');
        let start = i + 1 + usize::from(closing);
        let end = start + b[start..].iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'-').count();
        i = end.max(i + 1);
        if end == start || !b[start].is_ascii_alphabetic() {
            continue;
        }
        let name = html[start..end].to_ascii_lowercase();
        if closing {
            if open.last() == Some(&name) {
                open.pop();
            }
        } else if !VOID_TAGS.contains(&name.as_str()) {
            open.push(name);
            if open.len() > MAX_NESTING {
                return Err(TooComplex::Nesting);
            }
        }
    }
    Ok(())
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &s[prefix.len()..])
}

#[cfg(test)]
#[path = "rich_html_tests.rs"]
mod tests;
