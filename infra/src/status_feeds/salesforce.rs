//! Salesforce Trust `v1/incidents/active`: id `sf-<id>`, title `<type> — <service keys>`, link
//! `https://status.salesforce.com/incidents/<id>`, description the newest incident event (else
//! the incident message), severity `rules::salesforce_incident`. The type is the first impact's
//! `type`; an incident is active when its `status` says `Active`, or, without a status, while
//! an impact has no `endTime`. Typed but tolerant: unknown fields are ignored.

use domain::status_feeds::{rules, ProviderId, StatusItem};
use serde::Deserialize;

use super::text::{html_to_text, parse_date_ms};
use super::{json, FeedParseError};

/// Incidents read; the rest are ignored.
pub const MAX_INCIDENTS_READ: usize = 200;

/// A numeric or string id, as different API versions send them.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum AnyId {
    Number(i64),
    Text(String),
}

impl std::fmt::Display for AnyId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnyId::Number(n) => write!(f, "{n}"),
            AnyId::Text(t) => f.write_str(t.trim()),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Incident {
    id: AnyId,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    service_keys: Vec<String>,
    #[serde(default, rename = "IncidentImpacts")]
    impacts: Vec<Impact>,
    #[serde(default, rename = "IncidentEvents")]
    events: Vec<Event>,
    #[serde(default)]
    message: Option<Message>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    updated_at: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Impact {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    end_time: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Event {
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Message {
    #[serde(default)]
    path_to_resolution: Option<String>,
    #[serde(default)]
    root_cause: Option<String>,
    #[serde(default)]
    maintenance_message: Option<String>,
}

/// Parses Salesforce's active incidents into items (not yet finalized).
pub fn parse(bytes: &[u8], _now_ms: i64) -> Result<Vec<StatusItem>, FeedParseError> {
    let incidents: Vec<Incident> = json(bytes, "Salesforce incidents")?;
    Ok(incidents.iter().take(MAX_INCIDENTS_READ).map(item).collect())
}

fn item(incident: &Incident) -> StatusItem {
    let id = incident.id.to_string();
    let kind = incident
        .impacts
        .iter()
        .filter_map(|i| i.kind.as_deref().map(str::trim))
        .find(|k| !k.is_empty())
        .unwrap_or("Incident");
    let active = match incident.status.as_deref() {
        Some(status) => status.trim().eq_ignore_ascii_case("active"),
        None => incident.impacts.iter().any(|i| i.end_time.as_deref().is_none_or(|e| e.trim().is_empty())),
    };
    let latest =
        incident.events.iter().max_by_key(|e| e.created_at.as_deref().and_then(parse_date_ms).unwrap_or(i64::MIN));
    let message = incident.message.as_ref();
    let text = latest
        .and_then(|e| e.message.as_deref())
        .or_else(|| message.and_then(|m| m.path_to_resolution.as_deref()))
        .or_else(|| message.and_then(|m| m.root_cause.as_deref()))
        .or_else(|| message.and_then(|m| m.maintenance_message.as_deref()))
        .unwrap_or_default();
    let services: Vec<&str> = incident.service_keys.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).collect();
    let title = if services.is_empty() { kind.to_string() } else { format!("{kind} — {}", services.join(", ")) };
    StatusItem {
        id: format!("sf-{id}"),
        provider: ProviderId::Salesforce,
        title,
        description: html_to_text(text),
        pub_date: latest
            .and_then(|e| e.created_at.as_deref())
            .and_then(parse_date_ms)
            .or_else(|| incident.updated_at.as_deref().and_then(parse_date_ms))
            .or_else(|| incident.created_at.as_deref().and_then(parse_date_ms)),
        link: format!("https://status.salesforce.com/incidents/{id}"),
        severity: rules::salesforce_incident(active, kind),
        affected_scopes: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::status_feeds::Severity;

    fn one(value: serde_json::Value) -> StatusItem {
        parse(serde_json::json!([value]).to_string().as_bytes(), 0).unwrap().remove(0)
    }

    #[test]
    fn an_active_incident_reads_type_services_and_newest_event() {
        let got = one(serde_json::json!({
            "id": 12345, "status": "Active", "serviceKeys": ["Core", "Experience Cloud"],
            "IncidentImpacts": [{"type": "Service Disruption", "endTime": null}],
            "IncidentEvents": [
                {"message": "Older", "createdAt": "2025-06-10T10:00:00.000Z"},
                {"message": "<p>Newest &amp; best</p>", "createdAt": "2025-06-10T12:00:00.000Z"}
            ],
            "createdAt": "2025-06-10T09:00:00.000Z"
        }));
        assert_eq!(got.id, "sf-12345");
        assert_eq!(got.title, "Service Disruption — Core, Experience Cloud");
        assert_eq!(got.link, "https://status.salesforce.com/incidents/12345");
        assert_eq!(got.description, "Newest & best");
        assert_eq!(got.pub_date, parse_date_ms("2025-06-10T12:00:00Z"));
        assert_eq!(got.severity, Severity::Error);
    }

    #[test]
    fn severity_follows_status_and_type() {
        let sev = |v| one(v).severity;
        assert_eq!(
            sev(serde_json::json!({"id": 1, "status": "Closed", "IncidentImpacts": [{"type": "Major Outage"}]})),
            Severity::Resolved
        );
        assert_eq!(
            sev(
                serde_json::json!({"id": 2, "status": "Active", "IncidentImpacts": [{"type": "Performance Degradation"}]})
            ),
            Severity::Warning
        );
        assert_eq!(sev(serde_json::json!({"id": 3, "status": "Active"})), Severity::Info);
        // Without a status, an impact without an end time makes it active.
        assert_eq!(
            sev(serde_json::json!({"id": 4, "IncidentImpacts": [{"type": "Major Outage", "endTime": null}]})),
            Severity::Error
        );
        assert_eq!(
            sev(
                serde_json::json!({"id": 5, "IncidentImpacts": [{"type": "Major Outage", "endTime": "2025-06-10T12:00:00Z"}]})
            ),
            Severity::Resolved
        );
    }

    #[test]
    fn message_is_the_fallback_text_and_bad_shapes_are_errors() {
        let got =
            one(serde_json::json!({"id": "abc", "message": {"pathToResolution": "Rolling back"}, "serviceKeys": []}));
        assert_eq!((got.title.as_str(), got.description.as_str()), ("Incident", "Rolling back"));
        assert_eq!(parse(b"{}", 0), Err(FeedParseError::Shape("Salesforce incidents")));
        assert_eq!(parse(b"[{\"id\": true}]", 0), Err(FeedParseError::Shape("Salesforce incidents")));
    }

    #[test]
    fn the_recorded_list_reads_every_incident() {
        let items = parse(crate::status_feeds::testdata::SALESFORCE_INCIDENTS, 0).unwrap();
        let got: Vec<(&str, Severity)> = items.iter().map(|i| (i.id.as_str(), i.severity)).collect();
        assert_eq!(
            got,
            [("sf-51234", Severity::Error), ("sf-51240", Severity::Warning), ("sf-51190", Severity::Resolved)]
        );
        assert_eq!(items[0].description, "A rollback is in progress.");
        assert_eq!(items[2].title, "Major Outage — Tableau");
        assert_eq!(items[2].description, "Fixed.");
    }
}
