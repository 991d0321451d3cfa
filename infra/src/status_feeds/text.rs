//! Text helpers every status-feed parser shares: HTML to plain text (through html5ever, so
//! entities are decoded and scripts and styles dropped, with a depth and a length bound) and
//! the date formats the feeds use (RFC 3339, RFC 2822 with named zones, and zone-less ISO
//! timestamps read as UTC). Nothing here decides what a text means.

use chrono::{DateTime, NaiveDateTime};
use scraper::{ElementRef, Html, Node};

/// Deepest element nesting whose text is kept; deeper text is skipped.
const MAX_HTML_DEPTH: usize = 64;
/// Text gathered from one HTML fragment before the walk stops (bytes). Descriptions are cut to
/// `MAX_DESCRIPTION_CHARS` later; this only bounds the work.
const MAX_TEXT_BYTES: usize = 64 * 1024;

/// Elements whose boundaries separate words.
fn is_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "br"
            | "div"
            | "li"
            | "ul"
            | "ol"
            | "tr"
            | "td"
            | "th"
            | "table"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "hr"
            | "section"
            | "blockquote"
            | "pre"
            | "dd"
            | "dt"
    )
}

/// Plain text of an HTML fragment: tags removed (block boundaries become spaces), entities
/// decoded, `script`/`style` dropped, whitespace collapsed. Text without `<` or `&` is only
/// collapsed.
pub fn html_to_text(html: &str) -> String {
    if !html.contains(['<', '&']) {
        return domain::status_feeds::collapse_whitespace(html);
    }
    let fragment = Html::parse_fragment(html);
    let mut out = String::new();
    collect_text(fragment.root_element(), &mut out, 0);
    domain::status_feeds::collapse_whitespace(&out)
}

/// Text of an element already parsed (for the HTML parsers), with the same rules.
pub(crate) fn element_text(element: ElementRef<'_>) -> String {
    let mut out = String::new();
    collect_text(element, &mut out, 0);
    domain::status_feeds::collapse_whitespace(&out)
}

fn collect_text(element: ElementRef<'_>, out: &mut String, depth: usize) {
    let name = element.value().name();
    if depth > MAX_HTML_DEPTH || matches!(name, "script" | "style" | "template" | "head") {
        return;
    }
    let block = is_block(name);
    if block {
        out.push(' ');
    }
    for child in element.children() {
        if out.len() >= MAX_TEXT_BYTES {
            return;
        }
        match child.value() {
            Node::Text(text) => out.push_str(text),
            Node::Element(_) => {
                if let Some(child) = ElementRef::wrap(child) {
                    collect_text(child, out, depth + 1);
                }
            }
            _ => {}
        }
    }
    if block {
        out.push(' ');
    }
}

/// Epoch milliseconds of an RFC 3339, RFC 2822 (`Tue, 10 Jun 2025 14:00:00 PDT`) or zone-less
/// ISO (`2025-06-10T14:00:00`, read as UTC) timestamp; `None` when it is none of these.
pub fn parse_date_ms(raw: &str) -> Option<i64> {
    let raw = raw.trim();
    if raw.is_empty() {
        return None;
    }
    if let Ok(at) = DateTime::parse_from_rfc3339(raw) {
        return Some(at.timestamp_millis());
    }
    if let Ok(at) = DateTime::parse_from_rfc2822(raw) {
        return Some(at.timestamp_millis());
    }
    for format in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"] {
        if let Ok(at) = NaiveDateTime::parse_from_str(raw, format) {
            return Some(at.and_utc().timestamp_millis());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_becomes_collapsed_text_with_entities_decoded() {
        assert_eq!(
            html_to_text("<p>Elevated&nbsp;errors &amp; latency</p><p>in <b>us-east-1</b></p>"),
            "Elevated errors & latency in us-east-1"
        );
        assert_eq!(html_to_text("<script>alert(1)</script>Plain"), "Plain");
        assert_eq!(html_to_text("  no\n markup  "), "no markup");
        assert_eq!(html_to_text("a<br>b"), "a b");
    }

    #[test]
    fn deep_html_keeps_only_bounded_depth() {
        let html = format!("{}deep{}", "<span>".repeat(500), "</span>".repeat(500));
        assert_eq!(html_to_text(&format!("top{html}")), "top");
    }

    #[test]
    fn dates_in_every_feed_format() {
        assert_eq!(parse_date_ms("2025-06-10T14:00:00Z"), Some(1_749_564_000_000));
        assert_eq!(parse_date_ms("2025-06-10T16:00:00.000+02:00"), Some(1_749_564_000_000));
        assert_eq!(parse_date_ms("Tue, 10 Jun 2025 14:00:00 GMT"), Some(1_749_564_000_000));
        assert_eq!(parse_date_ms("Tue, 10 Jun 2025 07:00:00 PDT"), Some(1_749_564_000_000));
        assert_eq!(parse_date_ms("Tue, 10 Jun 2025 14:00:00 +0000"), Some(1_749_564_000_000));
        assert_eq!(parse_date_ms("2025-06-10T14:00:00"), Some(1_749_564_000_000));
        assert_eq!(parse_date_ms("yesterday"), None);
        assert_eq!(parse_date_ms(""), None);
    }
}
