//! RSS/Atom parser: fallbacks, CDATA, the status tag, AWS filters, bounds and malformed input.

use domain::status_feeds::{ProviderId, Severity};

use super::*;
use crate::status_feeds::testdata::{AWS_RSS, AZURE_RSS, FIXTURE_NOW_MS, M365_ATOM};

fn rss(items: &str) -> String {
    format!("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title>{items}</channel></rss>")
}

#[test]
fn aws_fixture_drops_the_placeholder_and_old_items_and_reads_cdata() {
    let items = parse(ProviderId::Aws, AWS_RSS, FIXTURE_NOW_MS).unwrap();
    let titles: Vec<&str> = items.iter().map(|i| i.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Service is operating normally: [RESOLVED] Increased API error rates",
            "Informational message: Increased Latency",
            "Amazon S3 (N. Virginia)"
        ]
    );
    assert_eq!(items[0].severity, Severity::Resolved);
    assert_eq!(items[1].severity, Severity::Warning);
    assert_eq!(
        items[1].description,
        "We are investigating elevated invocation latencies for Lambda in the EU-WEST-1 Region & related services."
    );
    assert_eq!(items[1].id, "https://health.aws.amazon.com/health/status#lambda-eu-west-1_1749560000");
    assert_eq!(items[1].pub_date, Some(1_749_561_120_000));
    // The `<status>` tag decides; without guid or link the id is built from date and title.
    assert_eq!(items[2].severity, Severity::Warning);
    assert_eq!(items[2].id, "aws-Tue, 10 Jun 2025 05:00:00 PDT-Amazon S3 (N. Virginia)");
    assert_eq!(items[2].link, "");
}

#[test]
fn the_aws_filters_apply_only_to_aws() {
    let feed = rss("<item><title>No recent issues</title><pubDate>Thu, 01 May 2025 10:00:00 GMT</pubDate></item>");
    assert!(parse(ProviderId::Aws, feed.as_bytes(), FIXTURE_NOW_MS).unwrap().is_empty());
    assert_eq!(parse(ProviderId::Azure, feed.as_bytes(), FIXTURE_NOW_MS).unwrap().len(), 1);
}

#[test]
fn azure_fixture_decodes_escaped_html_and_the_status_tag() {
    let items = parse(ProviderId::Azure, AZURE_RSS, FIXTURE_NOW_MS).unwrap();
    assert_eq!(items.len(), 3);
    assert!(items[0].description.starts_with("Impact Statement: Starting at 11:20 UTC"), "{}", items[0].description);
    assert!(items[0].description.contains("failures reaching resources. Current Status:"));
    assert_eq!(items[0].severity, Severity::Warning);
    assert_eq!(items[1].severity, Severity::Resolved);
    assert_eq!(items[2].pub_date, None);
    assert_eq!(items[2].id, "azure--Azure Monitor - Informational notice");
    assert_eq!(items[2].severity, Severity::Info);
}

#[test]
fn atom_entries_use_summary_content_href_and_updated_published_fallbacks() {
    let items = parse(ProviderId::M365, M365_ATOM, FIXTURE_NOW_MS).unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(items[0].id, "EX1098765");
    assert_eq!(items[0].link, "https://status.cloud.microsoft/");
    assert_eq!(items[0].pub_date, parse_date_ms("2025-06-10T13:45:00Z"));
    assert_eq!(items[0].severity, Severity::Error);
    assert_eq!(items[1].description, "Some users may see delayed meeting recordings. Impact is limited.");
    assert_eq!(items[1].pub_date, parse_date_ms("2025-06-10T09:00:00Z"));
    assert_eq!(items[1].severity, Severity::Warning);
    assert_eq!(items[2].description, "The service has recovered.");
    assert_eq!(items[2].severity, Severity::Resolved);
}

#[test]
fn description_falls_back_to_summary_then_content_and_guid_to_id_to_link() {
    let feed = rss(
        "<item><title>A</title><summary>from summary</summary><content>from content</content><id>id-a</id>\
         <link>https://x.test/a</link></item>\
         <item><title>B</title><description>  </description><content>from content</content><link>https://x.test/b</link></item>",
    );
    let items = parse(ProviderId::Azure, feed.as_bytes(), FIXTURE_NOW_MS).unwrap();
    assert_eq!((items[0].description.as_str(), items[0].id.as_str()), ("from summary", "id-a"));
    assert_eq!((items[1].description.as_str(), items[1].id.as_str()), ("from content", "https://x.test/b"));
}

#[test]
fn malformed_and_foreign_documents_are_typed_errors() {
    assert_eq!(parse(ProviderId::Aws, b"<rss><channel><item></channel></rss>", 0), Err(FeedParseError::Xml));
    assert_eq!(parse(ProviderId::Aws, b"<html><body>Hi</body></html>", 0), Err(FeedParseError::NotAFeed));
    assert_eq!(parse(ProviderId::Aws, b"{\"json\": true}", 0), Err(FeedParseError::NotAFeed));
    assert_eq!(parse(ProviderId::Aws, b"", 0), Err(FeedParseError::NotAFeed));
}

#[test]
fn nesting_past_the_bound_is_refused() {
    let deep = format!("<rss>{}{}</rss>", "<x>".repeat(MAX_DEPTH), "</x>".repeat(MAX_DEPTH));
    assert_eq!(parse(ProviderId::Aws, deep.as_bytes(), 0), Err(FeedParseError::TooDeep(MAX_DEPTH)));
    let ok = format!("<rss>{}{}</rss>", "<x>".repeat(MAX_DEPTH - 1), "</x>".repeat(MAX_DEPTH - 1));
    assert!(parse(ProviderId::Aws, ok.as_bytes(), 0).unwrap().is_empty());
}

#[test]
fn only_the_first_items_are_read() {
    let items: String =
        (0..MAX_ITEMS_READ + 50).map(|n| format!("<item><title>t{n}</title><guid>g{n}</guid></item>")).collect();
    let got = parse(ProviderId::Azure, rss(&items).as_bytes(), 0).unwrap();
    assert_eq!(got.len(), MAX_ITEMS_READ);
    // Whatever follows the bound is not even read: a broken tail does not fail the feed.
    let broken = format!("{}<item><title>", rss(&items).trim_end_matches("</channel></rss>"));
    assert_eq!(parse(ProviderId::Azure, broken.as_bytes(), 0).unwrap().len(), MAX_ITEMS_READ);
}

#[test]
fn element_text_is_bounded() {
    let long = "y".repeat(MAX_TEXT_BYTES * 3);
    let feed = rss(&format!("<item><title>t</title><description><![CDATA[{long}]]>{long}</description></item>"));
    let items = parse(ProviderId::Azure, feed.as_bytes(), 0).unwrap();
    assert_eq!(items[0].description.len(), MAX_TEXT_BYTES);
}

#[test]
fn entities_and_character_references_become_text() {
    let feed =
        rss("<item><title>A &amp; B &#233; &#x41; &lt;tag&gt;</title><description>x &nbsp; y</description></item>");
    let items = parse(ProviderId::Azure, feed.as_bytes(), 0).unwrap();
    assert_eq!(items[0].title, "A & B é A <tag>");
    assert_eq!(items[0].description, "x y");
}
