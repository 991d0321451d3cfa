use super::*;
use crate::collections::{FieldKind, ALERT_HISTORY, ALERT_REMINDERS, HTML_LEN};

const PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

#[test]
fn the_rich_fields_are_the_two_alert_bodies_with_the_html_limit() {
    for spec in [&ALERT_HISTORY, &ALERT_REMINDERS] {
        let rich: Vec<_> = spec.fields.iter().filter(|f| is_rich_html_field(spec.name, f.name)).collect();
        assert_eq!(rich.len(), 1, "{}", spec.name);
        assert_eq!(rich[0].kind, FieldKind::Text { max_len: HTML_LEN });
    }
    assert!(is_rich_html_field("alert_history", "bodyHtml"));
    assert!(is_rich_html_field("alert_reminders", "alertBodyHtml"));
    assert!(!is_rich_html_field("alert_history", "subject"));
    assert!(!is_rich_html_field("notes", "bodyHtml"));
}

#[test]
fn the_allowlist_is_the_renderers() {
    // richBody.ts BASE_TAGS plus img; nothing that runs, embeds or styles.
    for t in ["b", "strong", "i", "em", "u", "ul", "ol", "li", "br", "p", "div", "a", "span", "img"] {
        assert!(TAGS.contains(&t), "{t}");
    }
    assert_eq!(TAGS.len(), 14);
    for t in ["script", "style", "iframe", "object", "embed", "svg", "math", "template"] {
        assert!(!TAGS.contains(&t) && CONTENT_DROPPED_TAGS.contains(&t), "{t}");
    }
    assert!(TAG_ATTRIBUTES.iter().flat_map(|(_, a)| a.iter()).all(|a| !a.starts_with("on") && *a != "style"));
    assert_eq!(HIGHLIGHTS, ["deadline", "warning", "success", "number", "service"]);
}

#[test]
fn image_sources_are_only_base64_raster_data_urls() {
    // The cases of bodyImages.test.ts.
    for ok in [
        PNG,
        "data:image/png;base64,AAAA",
        "data:image/jpeg;base64,/9j/4AAQ",
        "data:image/jpg;base64,/9j/4AAQ",
        "data:image/gif;base64,R0lGODlh",
        "data:image/webp;base64,UklGRg==",
        "DATA:IMAGE/PNG;BASE64,QUJD",
    ] {
        assert!(is_safe_image_src(ok), "{ok}");
    }
    for bad in [
        "",
        "data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+",
        "data:text/html;base64,PHNjcmlwdD4=",
        "data:image/png,rawbytes",
        "data:image/png;base64,iVBO Rw0K",
        "data:image/png;base64,iVBO\nRw0K",
        "data:image/png;base64,AAAA\n",
        " data:image/png;base64,AAAA",
        "xdata:image/png;base64,AAAA",
        "data:image/png;base64,iVBO%3D",
        "data:image/png;base64,ab-_cd",
        "data:image/png;base64,",
        "data:image/png;charset=utf-8;base64,AAAA",
        "data:image/bmp;base64,Qk0=",
        "https://example.com/a.png",
        "javascript:alert(1)",
    ] {
        assert!(!is_safe_image_src(bad), "{bad:?}");
    }
    // A 700 KB image is fine: the field's limit bounds it, not this check.
    assert!(is_safe_image_src(&format!("data:image/png;base64,{}", "A".repeat(700_000))));
}

#[test]
fn links_are_absolute_http_https_or_mailto() {
    for ok in [
        "https://status.example.com/x?a=1",
        "http://h.example/",
        "mailto:noc@example.com",
        "HTTPS://Example.com/",
        "https://user@host.example/p#f",
    ] {
        assert_eq!(safe_href(ok), Some(ok), "{ok}");
    }
    assert_eq!(safe_href("  https://x.example/ \n"), Some("https://x.example/"));
    for bad in [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        " javascript:alert(1)",
        "jav\tascript:alert(1)",
        "data:text/html;base64,PHNjcmlwdD4=",
        "vbscript:msgbox(1)",
        "//evil.example/",
        "/relative",
        "https:evil.example",
        "http://",
        "mailto:",
        "mailto:?subject=x",
        "ftp://files.example/",
        "file:///etc/passwd",
        "",
    ] {
        assert_eq!(safe_href(bad), None, "{bad:?}");
    }
}

#[test]
fn attribute_values_follow_the_allowlist() {
    assert_eq!(attribute_value("a", "href", "https://x.example/").as_deref(), Some("https://x.example/"));
    assert_eq!(attribute_value("a", "href", "javascript:alert(1)"), None);
    assert_eq!(attribute_value("a", "rel", LINK_REL).as_deref(), Some(LINK_REL));
    assert_eq!(attribute_value("a", "rel", "opener"), None);
    for h in HIGHLIGHTS {
        assert_eq!(attribute_value("span", "data-hl", h).as_deref(), Some(*h));
    }
    assert_eq!(attribute_value("span", "data-hl", "evil"), None);
    assert_eq!(attribute_value("span", "data-hl", "DEADLINE"), None);
    assert_eq!(attribute_value("b", "data-hl", "deadline"), None);
    assert_eq!(attribute_value("img", "src", PNG).as_deref(), Some(PNG));
    assert_eq!(attribute_value("img", "src", "https://tracker.example/p.gif"), None);
    assert_eq!(attribute_value("img", "alt", "a \"chart\"").as_deref(), Some("a \"chart\""));
    assert_eq!(attribute_value("img", "class", IMAGE_CLASS).as_deref(), Some(IMAGE_CLASS));
    assert_eq!(attribute_value("img", "class", "alert-body-image evil"), None);
    for (tag, attr) in [("img", "onerror"), ("a", "onclick"), ("span", "style"), ("a", "target"), ("div", "class")] {
        assert_eq!(attribute_value(tag, attr, "x"), None, "{tag} {attr}");
    }
}

#[test]
fn complexity_is_bounded_before_parsing() {
    let ui = format!(
        "Intro<br><ul><li>a &amp; b<ul><li><b><span data-hl=\"deadline\">x</span></b></li></ul></li></ul>\
         <a href=\"https://x.example/?a=1&amp;b=2\" rel=\"noopener noreferrer\">l</a><img src=\"{PNG}\" alt=\"\" class=\"alert-body-image\">"
    );
    assert_eq!(check_complexity(&ui), Ok(()));
    // 10,000 lines of text full of entities, as the UI writes them (one line each).
    assert_eq!(check_complexity(&"a &amp; b &lt; c&nbsp;d<br>".repeat(10_000)), Ok(()));
    assert_eq!(check_complexity(&"<b>".repeat(MAX_NESTING)), Ok(()));
    assert_eq!(check_complexity(&"<div>".repeat(MAX_NESTING + 1)), Err(TooComplex::Nesting));
    assert_eq!(check_complexity(&"<ul><li>".repeat(60_000)), Err(TooComplex::Nesting));
    // End tags that close nothing do not lower the count.
    assert_eq!(check_complexity(&"<div></x>".repeat(MAX_NESTING + 1)), Err(TooComplex::Nesting));
    assert_eq!(check_complexity(&"<div><table></div>".repeat(60)), Err(TooComplex::Nesting));
    assert_eq!(check_complexity(&"<b></b><br><img>".repeat(50_000)), Ok(()));
    assert_eq!(check_complexity(&"&".repeat(750_000)), Err(TooComplex::Escapes));
    assert_eq!(check_complexity(&"ab\u{a0}".repeat(150_000)), Err(TooComplex::Escapes));
    assert_eq!(check_complexity(&"a& < ".repeat(180_000)), Ok(()));
    assert!(TooComplex::Nesting.message().contains("100"));
}
