//! Google Cloud `incidents.json`: incidents still open (no `end`) plus those that began within
//! `RECENT_WINDOW_MS`; title `external_desc`, text and date from `most_recent_update`, link
//! `https://status.cloud.google.com/<uri>` when the incident names one, affected products as
//! scopes, severity `rules::google_incident`. At most [`MAX_INCIDENTS_READ`] incidents are read.

use domain::status_feeds::{rules, ProviderId, StatusItem, RECENT_WINDOW_MS};
use serde::Deserialize;

use super::text::{html_to_text, parse_date_ms};
use super::{json, FeedParseError};

/// Incidents read from the (newest-first) list; the history behind them is ignored.
pub const MAX_INCIDENTS_READ: usize = 500;
const STATUS_BASE: &str = "https://status.cloud.google.com";

#[derive(Debug, Deserialize)]
struct Incident {
    id: String,
    #[serde(default)]
    begin: Option<String>,
    #[serde(default)]
    end: Option<String>,
    #[serde(default)]
    modified: Option<String>,
    #[serde(default)]
    external_desc: Option<String>,
    #[serde(default)]
    status_impact: Option<String>,
    #[serde(default)]
    uri: Option<String>,
    #[serde(default)]
    most_recent_update: Option<Update>,
    #[serde(default)]
    affected_products: Vec<Product>,
}

#[derive(Debug, Deserialize)]
struct Update {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    when: Option<String>,
    #[serde(default)]
    modified: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Product {
    #[serde(default)]
    title: Option<String>,
}

/// Parses Google Cloud's incident list into items (not yet finalized).
pub fn parse(bytes: &[u8], now_ms: i64) -> Result<Vec<StatusItem>, FeedParseError> {
    let incidents: Vec<Incident> = json(bytes, "Google Cloud incidents")?;
    let mut items = Vec::new();
    for incident in incidents.into_iter().take(MAX_INCIDENTS_READ) {
        let ended = incident.end.as_deref().is_some_and(|e| !e.trim().is_empty());
        let began = incident.begin.as_deref().and_then(parse_date_ms);
        if ended && began.is_none_or(|at| at < now_ms - RECENT_WINDOW_MS) {
            continue;
        }
        let update = incident.most_recent_update.as_ref();
        let pub_date = update
            .and_then(|u| u.when.as_deref().or(u.modified.as_deref()))
            .and_then(parse_date_ms)
            .or_else(|| incident.modified.as_deref().and_then(parse_date_ms))
            .or(began);
        let link = match incident.uri.as_deref().map(|u| u.trim().trim_start_matches('/')) {
            Some(uri) if !uri.is_empty() => format!("{STATUS_BASE}/{uri}"),
            _ => String::new(),
        };
        let mut scopes: Vec<String> = Vec::new();
        for title in incident.affected_products.iter().filter_map(|p| p.title.as_deref()) {
            let title = title.trim().to_string();
            if !title.is_empty() && !scopes.contains(&title) {
                scopes.push(title);
            }
        }
        items.push(StatusItem {
            id: incident.id.trim().to_string(),
            provider: ProviderId::Google,
            title: incident.external_desc.unwrap_or_default(),
            description: html_to_text(update.and_then(|u| u.text.as_deref()).unwrap_or_default()),
            pub_date,
            link,
            severity: rules::google_incident(ended, incident.status_impact.as_deref().unwrap_or_default()),
            affected_scopes: scopes,
        });
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::status_feeds::Severity;

    const NOW: i64 = 1_749_564_000_000; // 2025-06-10T14:00:00Z

    fn incident(id: &str, begin: &str, end: Option<&str>, impact: &str) -> serde_json::Value {
        serde_json::json!({
            "id": id, "begin": begin, "end": end, "external_desc": format!("Incident {id}"),
            "status_impact": impact, "uri": format!("incidents/{id}"),
            "most_recent_update": {"text": "**Summary:** We are <b>investigating</b>.", "when": begin},
            "affected_products": [{"title": "Cloud SQL", "id": "x"}, {"title": "Cloud SQL"}]
        })
    }

    fn run(list: serde_json::Value) -> Vec<StatusItem> {
        parse(list.to_string().as_bytes(), NOW).unwrap()
    }

    #[test]
    fn open_incidents_are_kept_whatever_their_age_and_ended_ones_only_within_seven_days() {
        let items = run(serde_json::json!([
            incident("open-old", "2025-01-01T00:00:00+00:00", None, "SERVICE_OUTAGE"),
            incident("ended-recent", "2025-06-08T00:00:00+00:00", Some("2025-06-08T05:00:00+00:00"), "SERVICE_OUTAGE"),
            incident("ended-old", "2025-05-01T00:00:00+00:00", Some("2025-05-02T00:00:00+00:00"), "SERVICE_OUTAGE"),
        ]));
        let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["open-old", "ended-recent"]);
        assert_eq!(items[0].severity, Severity::Error);
        assert_eq!(items[1].severity, Severity::Resolved);
        assert_eq!(items[0].link, "https://status.cloud.google.com/incidents/open-old");
        assert_eq!(items[0].title, "Incident open-old");
        assert_eq!(items[0].description, "**Summary:** We are investigating.");
        assert_eq!(items[0].affected_scopes, ["Cloud SQL"]);
        assert_eq!(items[1].pub_date, parse_date_ms("2025-06-08T00:00:00+00:00"));
    }

    #[test]
    fn impact_decides_open_incidents() {
        let items = run(serde_json::json!([
            incident("a", "2025-06-10T00:00:00+00:00", None, "SERVICE_DISRUPTION"),
            incident("b", "2025-06-10T00:00:00+00:00", None, "SERVICE_INFORMATION"),
        ]));
        assert_eq!(items[0].severity, Severity::Warning);
        assert_eq!(items[1].severity, Severity::Info);
    }

    #[test]
    fn a_missing_uri_gives_no_link_and_malformed_json_is_a_typed_error() {
        let items = run(serde_json::json!([{"id": "x", "external_desc": "t"}]));
        assert_eq!(items[0].link, "");
        assert_eq!(items[0].pub_date, None);
        assert_eq!(parse(b"{\"not\": \"a list\"}", NOW), Err(FeedParseError::Shape("Google Cloud incidents")));
        assert_eq!(parse(b"[{\"id\": 5}]", NOW).unwrap_err().code(), "shape");
    }

    #[test]
    fn the_recorded_list_keeps_open_and_recent_incidents() {
        let items = parse(crate::status_feeds::testdata::GOOGLE_INCIDENTS, NOW).unwrap();
        let got: Vec<(&str, Severity)> = items.iter().map(|i| (i.id.as_str(), i.severity)).collect();
        assert_eq!(
            got,
            [
                ("xVSEV3kVaJBmS7SZbnre", Severity::Error),
                ("dr8wq5nNpLzc4f9K2xYb", Severity::Warning),
                ("ended-recent-01", Severity::Resolved)
            ]
        );
        assert_eq!(items[0].affected_scopes, ["Google Compute Engine", "Cloud Run"]);
    }
}
