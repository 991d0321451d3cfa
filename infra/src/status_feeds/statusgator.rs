//! StatusGator's public page for CrowdStrike: the `<h2>Is CrowdStrike down?</h2>` heading and
//! the `<h3>` and `<p>` after it. "CrowdStrike is up" and "… is under maintenance" mean no
//! items; "… is experiencing issues" is one warning and "… is down" one error, with fixed ids.
//! Any other page is a parse error, so a redesign shows as "feed unavailable", never as
//! "all clear".

use std::sync::LazyLock;

use domain::status_feeds::{ProviderId, Severity, StatusItem};
use scraper::{Html, Selector};

use super::text::element_text;
use super::FeedParseError;

pub const PAGE_PATH: &str = "/services/crowdstrike";
const HEADING: &str = "is crowdstrike down?";
const STATUS_PAGE: &str = "https://statusgator.com/services/crowdstrike";

/// What the page says, read from the heading after "Is CrowdStrike down?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Up,
    Maintenance,
    Issues,
    Down,
}

fn verdict_of(text: &str) -> Option<Verdict> {
    let text = text.to_ascii_lowercase();
    [
        ("crowdstrike is experiencing issues", Verdict::Issues),
        ("crowdstrike is under maintenance", Verdict::Maintenance),
        ("crowdstrike is down", Verdict::Down),
        ("crowdstrike is up", Verdict::Up),
    ]
    .into_iter()
    .find(|(phrase, _)| text.contains(phrase))
    .map(|(_, verdict)| verdict)
}

/// The verdict and the paragraph under it.
pub fn read_page(html: &[u8]) -> Result<(Verdict, String), FeedParseError> {
    static HEADINGS: LazyLock<Selector> = LazyLock::new(|| Selector::parse("h2, h3, p").expect("valid selector"));
    let document = Html::parse_document(&String::from_utf8_lossy(html));
    let mut after_heading = document
        .select(&HEADINGS)
        .skip_while(|e| !(e.value().name() == "h2" && element_text(*e).to_ascii_lowercase() == HEADING));
    if after_heading.next().is_none() {
        return Err(FeedParseError::Missing("the \"Is CrowdStrike down?\" heading"));
    }
    let rest: Vec<_> = after_heading.take_while(|e| e.value().name() != "h2").collect();
    let h3 = rest.iter().find(|e| e.value().name() == "h3").map(|e| element_text(*e)).unwrap_or_default();
    let p = rest.iter().find(|e| e.value().name() == "p").map(|e| element_text(*e)).unwrap_or_default();
    let verdict =
        verdict_of(&h3).or_else(|| verdict_of(&p)).ok_or(FeedParseError::Missing("a known CrowdStrike status"))?;
    Ok((verdict, p))
}

/// Parses the StatusGator page into CrowdStrike items (not yet finalized).
pub fn parse(html: &[u8], _now_ms: i64) -> Result<Vec<StatusItem>, FeedParseError> {
    let (verdict, text) = read_page(html)?;
    let (id, title, severity) = match verdict {
        Verdict::Up | Verdict::Maintenance => return Ok(Vec::new()),
        Verdict::Issues => ("crowdstrike-statusgator-warning", "CrowdStrike is experiencing issues", Severity::Warning),
        Verdict::Down => ("crowdstrike-statusgator-down", "CrowdStrike is down", Severity::Error),
    };
    Ok(vec![StatusItem {
        id: id.to_string(),
        provider: ProviderId::Crowdstrike,
        title: title.to_string(),
        description: text,
        pub_date: None,
        link: STATUS_PAGE.to_string(),
        severity,
        affected_scopes: Vec::new(),
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(h3: &str, p: &str) -> String {
        format!(
            "<html><body><h1>CrowdStrike status</h1><h2>Other</h2><h3>CrowdStrike is down</h3>\
             <h2>Is CrowdStrike down?</h2><div><h3>{h3}</h3><p>{p}</p></div><h2>Later</h2><p>CrowdStrike is down</p></body></html>"
        )
    }

    #[test]
    fn each_phrase_maps_to_its_items() {
        assert!(parse(page("CrowdStrike is up", "All good.").as_bytes(), 0).unwrap().is_empty());
        assert!(parse(page("CrowdStrike is under maintenance", "").as_bytes(), 0).unwrap().is_empty());
        let warn = parse(page("CrowdStrike is experiencing issues", "Some &amp; more.").as_bytes(), 0).unwrap();
        assert_eq!((warn[0].id.as_str(), warn[0].severity), ("crowdstrike-statusgator-warning", Severity::Warning));
        assert_eq!(warn[0].description, "Some & more.");
        let down = parse(page("CrowdStrike is down", "").as_bytes(), 0).unwrap();
        assert_eq!((down[0].id.as_str(), down[0].severity), ("crowdstrike-statusgator-down", Severity::Error));
    }

    #[test]
    fn anything_else_is_a_parse_error() {
        assert_eq!(
            parse(page("Status unknown", "").as_bytes(), 0),
            Err(FeedParseError::Missing("a known CrowdStrike status"))
        );
        assert_eq!(
            parse(b"<html><h2>Is Crowdstrike up?</h2><h3>CrowdStrike is up</h3></html>", 0).unwrap_err().code(),
            "missing"
        );
        assert_eq!(parse(b"", 0).unwrap_err().code(), "missing");
    }

    #[test]
    fn the_recorded_pages_read_as_their_phrase() {
        use crate::status_feeds::testdata::{
            STATUSGATOR_DOWN, STATUSGATOR_ISSUES, STATUSGATOR_MAINTENANCE, STATUSGATOR_UP,
        };
        assert_eq!(read_page(STATUSGATOR_UP).unwrap().0, Verdict::Up);
        assert_eq!(read_page(STATUSGATOR_MAINTENANCE).unwrap().0, Verdict::Maintenance);
        assert_eq!(read_page(STATUSGATOR_ISSUES).unwrap().0, Verdict::Issues);
        let down = parse(STATUSGATOR_DOWN, 0).unwrap();
        assert_eq!(down[0].description, "CrowdStrike reports a major outage.");
        assert_eq!(down[0].link, "https://statusgator.com/services/crowdstrike");
    }
}
