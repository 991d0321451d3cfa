use super::*;
use domain::collections::{ALERT_HISTORY, ALERT_REMINDERS, HTML_LEN};
use domain::record::RecordError;
use domain::validation::{validate_write, WriteMode};
use serde_json::json;

const PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

fn clean(html: &str) -> String {
    sanitize(html).into_owned()
}

/// No tag in `out` that runs script, loads a resource other than an inline raster image, or
/// styles (escaped text such as `&lt;script&gt;` is harmless and allowed).
fn inert(out: &str) {
    let tags = regex::Regex::new(r"<[^>]*>").unwrap();
    for tag in tags.find_iter(out).map(|m| m.as_str().to_ascii_lowercase()) {
        let name = tag.trim_start_matches(['<', '/']).split([' ', '>', '/']).next().unwrap_or("").to_string();
        assert!(domain::rich_html::TAGS.contains(&name.as_str()), "{tag:?} survived in {out:?}");
        for bad in ["javascript:", "vbscript:", " on", "style", "data:text", "srcdoc"] {
            assert!(!tag.contains(bad), "{bad:?} survived in {out:?}");
        }
    }
}

/// The bodies the UI writes (richBody.ts richToStored / cleanRich, from its tests): stored as
/// they are, byte for byte.
#[test]
fn what_the_ui_writes_is_a_fixed_point() {
    let img = |alt: &str| format!(r#"<img src="{PNG}" alt="{alt}" class="alert-body-image">"#);
    let bodies = [
        "Plain text".to_string(),
        "Deploy by <span data-hl=\"deadline\">Friday</span> please".into(),
        "<b>b</b><strong>s</strong><i>i</i><em>e</em><u>u</u><br><ul><li>x</li></ul><ol><li>y</li></ol>".into(),
        "<p>p</p><div>d</div>".into(),
        r#"<a href="https://status.example.com/x?a=1&amp;b=2" rel="noopener noreferrer">s</a>"#.into(),
        r#"<a href="mailto:noc@example.com" rel="noopener noreferrer">m</a>"#.into(),
        r#"<a href="http://h.example/" rel="noopener noreferrer">h</a>"#.into(),
        "a &lt; b &amp; c &gt; d<br><br>&lt;script&gt;alert(1)&lt;/script&gt;<br>  indented".into(),
        "a<br>b<ul><li>x<br>y</li></ul>c".into(),
        "Intro<ul><li>one</li><li>two</li></ul><ol><li>first</li></ol>End".into(),
        r#"<span data-hl="warning">a</span><b><span data-hl="success">bold</span></b><span data-hl="warning">c</span><br><span data-hl="warning">d</span>"#.into(),
        r#"<span data-hl="number">1</span><span data-hl="service">234</span><span data-hl="number">5</span>"#.into(),
        format!("Mail is down.<br>{}", img("graph")),
        format!("Intro<br>{}After", img("a &quot;chart&quot;")),
        format!("{}<br>{}", img(""), img("x &amp; y")),
        "Überwachung 🚀 a&nbsp;b — “quoted” 'single'".into(),
        "<b>bold <br>[image 1]<br>text</b>".into(),
    ];
    for body in &bodies {
        assert!(matches!(sanitize(body), Cow::Borrowed(_)), "changed: {body}\n    -> {}", clean(body));
    }
}

/// Where ammonia's serializer writes the UI's output differently, the difference is one the
/// renderer reads the same: an apostrophe or angle bracket the UI escaped in `alt`.
#[test]
fn harmless_reserializations_read_the_same() {
    let ui = format!(r#"<img src="{PNG}" alt="it&#39;s &lt;big&gt;" class="alert-body-image">"#);
    assert_eq!(clean(&ui), format!(r#"<img src="{PNG}" alt="it's &lt;big&gt;" class="alert-body-image">"#));
    assert_eq!(clean("a<br/>b"), "a<br>b");
}

#[test]
fn scripts_handlers_and_styles_go() {
    assert_eq!(clean("a<script>alert(1)</script>b"), "ab");
    assert_eq!(clean("<SCRIPT SRC=//evil.example/x.js></SCRIPT>ok"), "ok");
    assert_eq!(clean("<img src=x onerror=alert(1)>"), "<img>");
    assert_eq!(
        clean(&format!(r#"<img src="{PNG}" onerror="alert(1)" alt="a">"#)),
        format!(r#"<img src="{PNG}" alt="a">"#)
    );
    assert_eq!(clean(r#"<b onclick="x()" style="color:red">b</b>"#), "<b>b</b>");
    assert_eq!(clean("<style>body{display:none}</style>text"), "text");
    assert_eq!(clean(r#"<div style="background:url(javascript:alert(1))">d</div>"#), "<div>d</div>");
    assert_eq!(clean(r#"<iframe src="https://evil.example/">inner</iframe>after"#), "after");
    assert_eq!(clean("<svg><script>alert(1)</script><circle onload=alert(1)/></svg>ok"), "ok");
    assert_eq!(clean("<math><mi><script>alert(1)</script></mi></math>ok"), "ok");
    assert_eq!(clean(r#"<object data="x.swf">fallback</object><embed src="x.swf">ok"#), "ok");
    assert_eq!(clean("<!-- secret --><b>x</b><!--><script>alert(1)</script>-->"), "<b>x</b>--&gt;");
    assert_eq!(clean(r#"<details open ontoggle=alert(1)>t</details>"#), "t");
    assert_eq!(clean(r#"<h1>Title</h1><table><tr><td>a</td></tr></table>"#), "Titlea");
    assert_eq!(clean(r#"<form action="https://x.example/"><input value="v"><button>b</button></form>"#), "b");
}

#[test]
fn links_keep_only_safe_hrefs_with_the_forced_rel() {
    let rel = r#"rel="noopener noreferrer""#;
    assert_eq!(
        clean(r#"<a href="https://x.example/" target="_blank" rel="opener" onclick="x()" class="c">s</a>"#),
        format!(r#"<a href="https://x.example/" {rel}>s</a>"#)
    );
    for href in [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "jav&#x61;script:alert(1)",
        "&#106;avascript:alert(1)",
        "java&#x09;script:alert(1)",
        "javascript&colon;alert(1)",
        " &#x20;javascript:alert(1)",
        "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
        "data:image/png;base64,AAAA",
        "vbscript:msgbox(1)",
        "//evil.example/",
        "/relative",
        "ftp://files.example/",
    ] {
        let out = clean(&format!(r#"<a href="{href}">x</a>"#));
        assert_eq!(out, format!("<a {rel}>x</a>"), "{href}");
    }
    // The trimmed value is kept: the renderer trims too.
    assert_eq!(
        clean(r#"<a href=" https://x.example/ ">x</a>"#),
        format!(r#"<a href="https://x.example/" {rel}>x</a>"#)
    );
}

#[test]
fn highlights_and_images_are_checked() {
    assert_eq!(clean(r#"<span data-hl="evil">x</span>"#), "<span>x</span>");
    assert_eq!(clean(r#"<span data-hl="DEADLINE">x</span>"#), "<span>x</span>");
    assert_eq!(
        clean(r#"<span data-hl="deadline" class="x" style="color:red" data-other="1">x</span>"#),
        r#"<span data-hl="deadline">x</span>"#
    );
    assert_eq!(clean(r#"<b data-hl="deadline">x</b>"#), "<b>x</b>");
    for src in [
        "https://tracker.example/p.gif",
        "data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+",
        "data:text/html;base64,PHNjcmlwdD4=",
        "data:image/png,rawbytes",
        "data:image/png;base64,ab-_cd",
        "javascript:alert(1)",
    ] {
        assert_eq!(clean(&format!(r#"<img src="{src}" alt="a">"#)), r#"<img alt="a">"#, "{src}");
    }
    assert_eq!(
        clean(&format!(r#"<img src="{PNG}" class="alert-body-image evil" width="1" srcset="https://x/ 1x">"#)),
        format!(r#"<img src="{PNG}">"#)
    );
    assert_eq!(clean(r#"<img src="data&colon;image/png;base64,QUJD">"#), r#"<img src="data:image/png;base64,QUJD">"#);
}

#[test]
fn malformed_and_nested_markup_comes_out_well_formed_and_inert() {
    for hostile in [
        "<b><i>x</b></i>",
        "<<script>script>alert(1)<</script>/script>",
        "<a href=\"https://x.example/\"><a href=\"javascript:alert(1)\">y</a></a>",
        "<p><div><ul><li>unclosed",
        r#"<img src="data:image/png;base64,QUJD" alt="x" <script>alert(1)</script>"#,
        r#"<img src='data:image/png;base64,QUJD" onerror="alert(1)'>"#,
        "</textarea><script>alert(1)</script>",
        "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></noscript>",
        "<svg><style><img src=x onerror=alert(1)></style></svg>",
        "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
        "<template><script>alert(1)</script></template>",
        "<xmp><script>alert(1)</script></xmp>",
        r#"<a href="https://x.example/" onmouseover="alert(1)">x</a>"#,
        "<iframe srcdoc=\"&lt;script&gt;alert(1)&lt;/script&gt;\"></iframe>",
    ] {
        let out = clean(hostile);
        inert(&out);
        assert_eq!(clean(&out), out, "not idempotent for {hostile:?}");
    }
    assert_eq!(clean("<b><i>x</b></i>"), "<b><i>x</i></b>");
}

#[test]
fn a_large_body_with_an_allowed_image_stays_intact() {
    let src = format!("data:image/png;base64,{}", "iVBORw0KGgo".repeat(64_000));
    let body = format!(r#"Intro<br><img src="{src}" alt="graph" class="alert-body-image"><br>End"#);
    assert!(body.len() > 700_000 && body.len() < HTML_LEN);
    assert!(matches!(sanitize(&body), Cow::Borrowed(_)));
    let hostile = format!(r#"{body}<img src="{src}%3D" onerror="alert(1)">"#);
    assert!(clean(&hostile) == format!("{body}<img>"), "the hostile image lost its source and handler");
}

#[test]
fn clean_values_sanitizes_only_the_rich_fields() {
    let body = json!({"subject": "<script>kept as text</script>", "bodyHtml": "a<script>x</script><b onclick=y>b</b>"});
    let w = validate_write(&ALERT_HISTORY, &body, WriteMode::Create).unwrap();
    let values = clean_values(&ALERT_HISTORY, &w).unwrap();
    let text = |name: &str| match &values[w.values.iter().position(|(n, _)| *n == name).unwrap()] {
        SqlValue::Text(t) => t.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(text("bodyHtml"), "a<b>b</b>");
    assert_eq!(text("subject"), "<script>kept as text</script>");
    let w =
        validate_write(&ALERT_REMINDERS, &json!({"alertBodyHtml": "<img src=x onerror=alert(1)>"}), WriteMode::Update)
            .unwrap();
    assert_eq!(clean_values(&ALERT_REMINDERS, &w).unwrap(), vec![SqlValue::Text("<img>".into())]);
}

fn refusal(body: String) -> &'static str {
    let w = validate_write(&ALERT_HISTORY, &json!({ "bodyHtml": body }), WriteMode::Update).unwrap();
    let err = clean_values(&ALERT_HISTORY, &w).unwrap_err();
    let mapped = crate::store::map_db_error(&ALERT_HISTORY, err);
    let RecordError::Validation(errors) = mapped else { panic!("{mapped:?}") };
    errors["bodyHtml"].code
}

#[test]
fn a_value_longer_than_the_limit_once_cleaned_is_the_fields_length_error() {
    // `>` is written back as `&gt;`: 200,000 of them become 800,000 characters.
    assert_eq!(refusal(">".repeat(200_000)), "validation_max_text_constraint");
}

#[test]
fn values_too_costly_to_sanitize_are_refused_before_parsing() {
    assert_eq!(refusal("<div>".repeat(150_000)), "validation_html_too_complex");
    assert_eq!(refusal("<ul><li>".repeat(90_000)), "validation_html_too_complex");
    assert_eq!(refusal("&".repeat(HTML_LEN)), "validation_html_too_complex");
    assert_eq!(refusal("ab\u{a0}".repeat(250_000)), "validation_html_too_complex");
}

#[test]
fn the_store_keeps_and_answers_the_cleaned_value() {
    let (_t, s) = crate::store::tests::store();
    let attack = r#"<p onclick="x()">hi</p><script>alert(1)</script><a href="javascript:alert(1)">l</a>"#;
    let w = validate_write(&ALERT_HISTORY, &json!({"subject": "s", "bodyHtml": attack}), WriteMode::Create).unwrap();
    let created = s.create(&ALERT_HISTORY, &w, 1_000).unwrap();
    let expected = r#"<p>hi</p><a rel="noopener noreferrer">l</a>"#;
    assert_eq!(created["bodyHtml"], expected);
    let id = created["id"].as_str().unwrap();
    assert_eq!(s.get(&ALERT_HISTORY, id).unwrap()["bodyHtml"], expected);
    let ui = r#"Deploy by <span data-hl="deadline">Friday</span><br><a href="https://x.example/" rel="noopener noreferrer">x</a>"#;
    let w = validate_write(&ALERT_HISTORY, &json!({"bodyHtml": ui}), WriteMode::Update).unwrap();
    assert_eq!(s.update(&ALERT_HISTORY, id, &w, 2_000).unwrap()["bodyHtml"], ui);
    let w = validate_write(&ALERT_HISTORY, &json!({"bodyHtml": "<div>".repeat(150_000)}), WriteMode::Update).unwrap();
    assert!(matches!(s.update(&ALERT_HISTORY, id, &w, 3_000), Err(RecordError::Validation(_))));
    assert_eq!(s.get(&ALERT_HISTORY, id).unwrap()["bodyHtml"], ui);
}
