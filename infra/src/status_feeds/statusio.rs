//! Status.io public status JSON (Dynatrace): `result.incidents[]` that are `current_active`,
//! severity from the newest message's status code (`rules::statusio_status`; other codes are
//! not shown), dropped when that message is older than `RECENT_WINDOW_MS` or the name reads as
//! planned maintenance or a security advisory. Affected containers become scopes through
//! `rules::statusio_scope`. Bounded to the first [`MAX_READ`] incidents, messages and
//! containers; the link is always the public status page.

use domain::status_feeds::{rules, ProviderId, StatusItem, MAX_ID_CHARS, RECENT_WINDOW_MS};
use serde::Deserialize;

use super::text::{html_to_text, parse_date_ms};
use super::{json, FeedParseError};

/// Incidents, messages per incident and containers per incident read.
pub const MAX_READ: usize = 100;
/// Dynatrace's status page document on api.status.io.
pub const DYNATRACE_PATH: &str = "/1.0/status/546d8cb6af8407b6730000cb";
const STATUS_PAGE: &str = "https://dynatrace.status.io/";

#[derive(Debug, Deserialize)]
struct Document {
    result: StatusResult,
}

#[derive(Debug, Deserialize)]
struct StatusResult {
    #[serde(default)]
    incidents: Vec<Incident>,
}

#[derive(Debug, Deserialize)]
struct Incident {
    #[serde(rename = "_id")]
    id: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    current_active: Option<bool>,
    #[serde(default)]
    messages: Vec<Message>,
    #[serde(default)]
    containers_affected: Vec<Named>,
}

#[derive(Debug, Deserialize)]
struct Message {
    #[serde(default)]
    details: Option<String>,
    #[serde(default)]
    status: Option<i64>,
    #[serde(default)]
    datetime: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Named {
    #[serde(default)]
    name: Option<String>,
}

/// Parses a Status.io status document into Dynatrace items (not yet finalized).
pub fn parse(bytes: &[u8], now_ms: i64) -> Result<Vec<StatusItem>, FeedParseError> {
    let document: Document = json(bytes, "Status.io status")?;
    let mut items = Vec::new();
    for incident in document.result.incidents.into_iter().take(MAX_READ) {
        if incident.current_active != Some(true) || incident.id.trim().is_empty() || incident.id.len() > MAX_ID_CHARS {
            continue;
        }
        let name = incident.name.unwrap_or_default();
        let latest = incident
            .messages
            .iter()
            .take(MAX_READ)
            .enumerate()
            .max_by_key(|(index, m)| (m.datetime.as_deref().and_then(parse_date_ms).unwrap_or(i64::MIN), *index))
            .map(|(_, m)| m);
        let Some(latest) = latest else { continue };
        let Some(severity) = latest.status.and_then(rules::statusio_status) else { continue };
        let pub_date = latest.datetime.as_deref().and_then(parse_date_ms);
        if pub_date.is_some_and(|at| at < now_ms - RECENT_WINDOW_MS)
            || rules::is_planned_maintenance(&name)
            || rules::is_security_advisory(&name)
        {
            continue;
        }
        let mut scopes: Vec<String> = Vec::new();
        for container in incident.containers_affected.iter().take(MAX_READ).filter_map(|c| c.name.as_deref()) {
            let scope = rules::statusio_scope(container);
            if !scope.is_empty() && !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        items.push(StatusItem {
            id: incident.id.trim().to_string(),
            provider: ProviderId::Dynatrace,
            title: name,
            description: html_to_text(latest.details.as_deref().unwrap_or_default()),
            pub_date,
            link: STATUS_PAGE.to_string(),
            severity,
            affected_scopes: scopes,
        });
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::status_feeds::Severity;
    use serde_json::json;

    const NOW: i64 = 1_749_564_000_000; // 2025-06-10T14:00:00Z

    fn incident(id: &str, name: &str, active: bool, status: i64, at: &str) -> serde_json::Value {
        json!({
            "_id": id, "name": name, "current_active": active,
            "messages": [
                {"details": "Earlier", "status": 100, "datetime": "2025-06-01T00:00:00.000Z"},
                {"details": "<p>Latest</p>", "status": status, "datetime": at}
            ],
            "containers_affected": [{"_id": "c1", "name": "Process-aws-us-east-1"}, {"name": "Process-aws-us-east-1"}, {"name": "Cluster 7"}]
        })
    }

    fn run(incidents: Vec<serde_json::Value>) -> Vec<StatusItem> {
        parse(json!({"result": {"incidents": incidents}}).to_string().as_bytes(), NOW).unwrap()
    }

    #[test]
    fn the_latest_message_code_decides_and_scopes_read_like_regions() {
        let items = run(vec![
            incident("w", "Slow UI", true, 300, "2025-06-10T12:00:00.000Z"),
            incident("e", "Outage", true, 500, "2025-06-10T12:00:00.000Z"),
            incident("i", "Informational", true, 100, "2025-06-10T12:00:00.000Z"),
            incident("off", "Closed", false, 500, "2025-06-10T12:00:00.000Z"),
        ]);
        let got: Vec<(&str, Severity)> = items.iter().map(|i| (i.id.as_str(), i.severity)).collect();
        assert_eq!(got, [("w", Severity::Warning), ("e", Severity::Error)]);
        assert_eq!(items[0].affected_scopes, ["AWS · Us East 1", "Cluster 7"]);
        assert_eq!(items[0].description, "Latest");
        assert_eq!(items[0].link, "https://dynatrace.status.io/");
    }

    #[test]
    fn old_maintenance_and_advisories_are_dropped() {
        let items = run(vec![
            incident("old", "Outage", true, 400, "2025-05-01T00:00:00.000Z"),
            incident("m", "Scheduled Maintenance for EU clusters", true, 300, "2025-06-10T12:00:00.000Z"),
            incident("a", "Security advisory: CVE-2025-1234", true, 400, "2025-06-10T12:00:00.000Z"),
            incident("keep", "Degraded ingest", true, 300, "2025-06-09T12:00:00.000Z"),
        ]);
        assert_eq!(items.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(), ["keep"]);
    }

    #[test]
    fn bad_shapes_are_typed_errors() {
        assert_eq!(parse(b"{}", NOW), Err(FeedParseError::Shape("Status.io status")));
        assert_eq!(
            parse(b"{\"result\": {\"incidents\": [{\"_id\": 1}]}}", NOW),
            Err(FeedParseError::Shape("Status.io status"))
        );
        assert!(parse(b"{\"result\": {}}", NOW).unwrap().is_empty());
    }

    #[test]
    fn the_recorded_document_keeps_the_two_live_incidents() {
        let items = parse(crate::status_feeds::testdata::DYNATRACE_STATUS, NOW).unwrap();
        let got: Vec<(&str, Severity)> = items.iter().map(|i| (i.id.as_str(), i.severity)).collect();
        assert_eq!(
            got,
            [("6847f1a2b3c4d5e6f7a8b9c0", Severity::Error), ("6847f1a2b3c4d5e6f7a8b9c1", Severity::Warning)]
        );
        assert_eq!(items[0].affected_scopes, ["AWS · Us East 1"]);
        assert_eq!(items[0].description, "Processing delays of up to 15 minutes.");
        assert_eq!(items[1].affected_scopes, ["AZURE · West Europe"]);
    }
}
