//! Atlassian Statuspage `api/v2/summary.json` (Jira, GitHub, Cloudflare, Claude, ChatGPT):
//! typed serde structs that ignore unknown fields. Each incident is an item (title = name,
//! description = latest update body, date = latest update else `updated_at` else
//! `created_at`, link = shortlink else `<status page>/incidents/<id>`, severity
//! `rules::statuspage_incident`). With no incident and `status.indicator` other than none, one
//! synthetic item names the non-operational components (severity
//! `rules::statuspage_indicator`), except for Cloudflare, whose component-only status needs an
//! incident. Scheduled maintenances are not incidents and are not read.

use domain::status_feeds::{rules, ProviderId, StatusItem};
use serde::Deserialize;

use super::text::{html_to_text, parse_date_ms};
use super::{json, FeedParseError};

/// The summary's path on every Statuspage host.
pub const SUMMARY_PATH: &str = "/api/v2/summary.json";
/// Components named in the synthetic item's description.
pub const MAX_NAMED_COMPONENTS: usize = 20;

#[derive(Debug, Deserialize)]
struct Summary {
    #[serde(default)]
    page: Option<Page>,
    #[serde(default)]
    status: Option<PageStatus>,
    #[serde(default)]
    components: Vec<Component>,
    #[serde(default)]
    incidents: Vec<Incident>,
}

#[derive(Debug, Deserialize)]
struct Page {
    #[serde(default)]
    updated_at: Option<String>,
}

#[derive(Debug, Deserialize)]
struct PageStatus {
    #[serde(default)]
    indicator: Option<String>,
    #[serde(default)]
    description: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Component {
    name: String,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    group: Option<bool>,
}

#[derive(Debug, Deserialize)]
struct Incident {
    id: String,
    name: String,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    impact: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    updated_at: Option<String>,
    #[serde(default)]
    shortlink: Option<String>,
    #[serde(default)]
    incident_updates: Vec<IncidentUpdate>,
}

#[derive(Debug, Deserialize)]
struct IncidentUpdate {
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    display_at: Option<String>,
}

impl IncidentUpdate {
    fn at(&self) -> Option<i64> {
        self.display_at
            .as_deref()
            .and_then(parse_date_ms)
            .or_else(|| self.created_at.as_deref().and_then(parse_date_ms))
    }
}

fn status_page_base(provider: ProviderId) -> &'static str {
    provider.info().status_page.trim_end_matches('/')
}

/// Parses a Statuspage summary of `provider` into items (not yet finalized).
pub fn parse(provider: ProviderId, bytes: &[u8], _now_ms: i64) -> Result<Vec<StatusItem>, FeedParseError> {
    let summary: Summary = json(bytes, "Statuspage summary")?;
    let base = status_page_base(provider);
    let mut items: Vec<StatusItem> =
        summary.incidents.iter().map(|incident| incident_item(provider, base, incident)).collect();
    if items.is_empty() && provider != ProviderId::Cloudflare {
        items.extend(synthetic_item(provider, base, &summary));
    }
    Ok(items)
}

fn incident_item(provider: ProviderId, base: &str, incident: &Incident) -> StatusItem {
    // Statuspage lists updates newest first; the dates decide when they disagree.
    let latest = incident
        .incident_updates
        .iter()
        .enumerate()
        .max_by_key(|(index, update)| (update.at().unwrap_or(i64::MIN), std::cmp::Reverse(*index)))
        .map(|(_, update)| update);
    let pub_date = latest
        .and_then(IncidentUpdate::at)
        .or_else(|| incident.updated_at.as_deref().and_then(parse_date_ms))
        .or_else(|| incident.created_at.as_deref().and_then(parse_date_ms));
    let link = match incident.shortlink.as_deref().map(str::trim) {
        Some(short) if !short.is_empty() => short.to_string(),
        _ => format!("{base}/incidents/{}", incident.id.trim()),
    };
    StatusItem {
        id: incident.id.trim().to_string(),
        provider,
        title: incident.name.clone(),
        description: html_to_text(latest.and_then(|u| u.body.as_deref()).unwrap_or_default()),
        pub_date,
        link,
        severity: rules::statuspage_incident(
            incident.status.as_deref().unwrap_or_default(),
            incident.impact.as_deref().unwrap_or_default(),
        ),
        affected_scopes: Vec::new(),
    }
}

fn synthetic_item(provider: ProviderId, base: &str, summary: &Summary) -> Option<StatusItem> {
    let status = summary.status.as_ref()?;
    let indicator = status.indicator.as_deref().unwrap_or_default();
    let severity = rules::statuspage_indicator(indicator)?;
    let affected: Vec<String> = summary
        .components
        .iter()
        .filter(|c| c.group != Some(true))
        .filter_map(|c| {
            let state = c.status.as_deref().unwrap_or_default().trim();
            (!state.is_empty() && state != "operational")
                .then(|| format!("{} ({})", c.name.trim(), state.replace('_', " ")))
        })
        .take(MAX_NAMED_COMPONENTS)
        .collect();
    let description =
        if affected.is_empty() { String::new() } else { format!("Affected components: {}", affected.join(", ")) };
    let title =
        status.description.as_deref().map(str::trim).filter(|d| !d.is_empty()).unwrap_or("Service status degraded");
    Some(StatusItem {
        id: format!("{}-status-{}", provider.as_str(), indicator.trim().to_ascii_lowercase()),
        provider,
        title: title.to_string(),
        description,
        pub_date: summary.page.as_ref().and_then(|p| p.updated_at.as_deref()).and_then(parse_date_ms),
        link: format!("{base}/"),
        severity,
        affected_scopes: Vec::new(),
    })
}

#[cfg(test)]
#[path = "statuspage_tests.rs"]
mod tests;
