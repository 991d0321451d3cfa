//! Juniper Mist (the Sorry status page API behind status.mist.com), one fetch for four region
//! providers: the present unplanned notices, each notice's detail (for the components it
//! names), and the component list. Notices map to regions by component id
//! ([`REGION_COMPONENTS`]) or name (`MIST <REGION> CLOUD`); a notice without mappable
//! components counts for all four. Severity is `rules::mist_notice_state`; links are kept only
//! when https on exactly `status.mist.com`. A degraded region component without a notice is a
//! warning. Components failing is an error for every region; the caller fails the whole group
//! when the notice list fails. Pure functions; [`MAX_NOTICE_DETAILS`] bounds the detail fetches.

use std::collections::HashMap;

use domain::status_feeds::{rules, ProviderId, Severity, StatusItem, MIST_REGIONS};
use serde::Deserialize;

use super::salesforce::AnyId;
use super::text::{html_to_text, parse_date_ms};
use super::{json, FeedParseError};

/// Notices whose detail is fetched; later notices count for all regions.
pub const MAX_NOTICE_DETAILS: usize = 20;
/// Notices, components and updates read from one document.
pub const MAX_READ: usize = 100;
/// Notices list path (the query keeps present, unplanned notices).
pub const NOTICES_PATH: &str = "/api/v1/notices?filter[timeline_state_eq]=present&filter[type_eq]=unplanned";
pub const COMPONENTS_PATH: &str = "/api/v1/components";
const STATUS_PAGE: &str = "https://status.mist.com/";

/// The component id of each region's cloud.
pub const REGION_COMPONENTS: [(i64, ProviderId); 4] = [
    (24585, ProviderId::MistGlobal),
    (24592, ProviderId::MistEmea),
    (84051, ProviderId::MistApac),
    (84052, ProviderId::MistFederal),
];

/// The detail path of a notice id, or `None` for an id that is not a plain token.
pub fn notice_path(id: &str) -> Option<String> {
    let plain =
        !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    plain.then(|| format!("/api/v1/notices/{id}"))
}

#[derive(Debug, Deserialize)]
struct NoticeList {
    notices: Vec<Notice>,
}

/// One notice, as listed (and as in the detail's `notice`).
#[derive(Debug, Deserialize)]
pub struct Notice {
    id: AnyId,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    timeline_state: Option<String>,
    #[serde(default)]
    subject: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    began_at: Option<String>,
    #[serde(default)]
    latest_update: Option<Update>,
    #[serde(default)]
    components: Vec<Component>,
    #[serde(default)]
    updates: Vec<Update>,
}

impl Notice {
    pub fn id(&self) -> String {
        self.id.to_string()
    }
}

#[derive(Debug, Deserialize)]
struct Update {
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Detail {
    notice: Notice,
}

/// A status page component.
#[derive(Debug, Deserialize)]
pub struct Component {
    id: AnyId,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    updated_at: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ComponentList {
    components: Vec<Component>,
}

/// The region a component stands for, by id or by name.
fn region_of(component: &Component) -> Option<ProviderId> {
    let by_id = match &component.id {
        AnyId::Number(n) => Some(*n),
        AnyId::Text(t) => t.trim().parse().ok(),
    };
    if let Some(region) = by_id.and_then(|id| REGION_COMPONENTS.iter().find(|(c, _)| *c == id)).map(|(_, r)| *r) {
        return Some(region);
    }
    let name = component.name.as_deref()?.to_ascii_uppercase();
    [
        ("GLOBAL", ProviderId::MistGlobal),
        ("EMEA", ProviderId::MistEmea),
        ("APAC", ProviderId::MistApac),
        ("FEDERAL", ProviderId::MistFederal),
    ]
    .into_iter()
    .find(|(word, _)| name.contains(&format!("MIST {word} CLOUD")))
    .map(|(_, region)| region)
}

/// The present, unplanned notices of the list (at most [`MAX_READ`]).
pub fn parse_notices(bytes: &[u8]) -> Result<Vec<Notice>, FeedParseError> {
    let list: NoticeList = json(bytes, "Mist notices")?;
    let wanted = |v: &Option<String>, want: &str| v.as_deref().is_none_or(|s| s.trim().eq_ignore_ascii_case(want));
    Ok(list
        .notices
        .into_iter()
        .take(MAX_READ)
        .filter(|n| wanted(&n.kind, "unplanned") && wanted(&n.timeline_state, "present"))
        .collect())
}

/// A notice's detail (its components and updates).
pub fn parse_notice_detail(bytes: &[u8]) -> Result<Notice, FeedParseError> {
    let detail: Detail = json(bytes, "Mist notice")?;
    Ok(detail.notice)
}

/// The component list (at most [`MAX_READ`]).
pub fn parse_components(bytes: &[u8]) -> Result<Vec<Component>, FeedParseError> {
    let list: ComponentList = json(bytes, "Mist components")?;
    Ok(list.components.into_iter().take(MAX_READ).collect())
}

/// The notice link when it is https on exactly `status.mist.com`, else the status page.
pub fn notice_link(raw: Option<&str>) -> String {
    let parsed = raw.and_then(|r| url::Url::parse(r.trim()).ok());
    match parsed {
        Some(url)
            if url.scheme() == "https"
                && url.host_str() == Some("status.mist.com")
                && url.port().is_none()
                && url.username().is_empty()
                && url.password().is_none() =>
        {
            url.to_string()
        }
        _ => STATUS_PAGE.to_string(),
    }
}

/// The items of each region: every notice (with its detail when one was fetched and parsed)
/// and, unless the component list failed, degraded region components without a notice.
/// `components` is the parsed list or the error message that each region reports.
pub fn build(
    notices: &[Notice],
    details: &HashMap<String, Notice>,
    components: Result<&[Component], &str>,
) -> Vec<(ProviderId, Result<Vec<StatusItem>, String>)> {
    let mut per_region: HashMap<ProviderId, Vec<StatusItem>> = MIST_REGIONS.iter().map(|r| (*r, Vec::new())).collect();
    for notice in notices {
        let detail = details.get(&notice.id());
        let Some(severity) = notice
            .state
            .as_deref()
            .filter(|s| !s.trim().is_empty())
            .or_else(|| notice.latest_update.as_ref().and_then(|u| u.state.as_deref()))
            .and_then(rules::mist_notice_state)
        else {
            continue;
        };
        let named = detail.map(|d| d.components.as_slice()).unwrap_or(&notice.components);
        let mut regions: Vec<ProviderId> = named.iter().take(MAX_READ).filter_map(region_of).collect();
        regions.sort();
        regions.dedup();
        if regions.is_empty() {
            regions = MIST_REGIONS.to_vec();
        }
        let updates = detail.map(|d| d.updates.as_slice()).unwrap_or_default();
        let newest = updates
            .iter()
            .take(MAX_READ)
            .chain(notice.latest_update.as_ref())
            .max_by_key(|u| u.created_at.as_deref().and_then(parse_date_ms).unwrap_or(i64::MIN));
        let pub_date = newest
            .and_then(|u| u.created_at.as_deref())
            .and_then(parse_date_ms)
            .or_else(|| notice.began_at.as_deref().and_then(parse_date_ms));
        for region in regions {
            per_region.entry(region).or_default().push(StatusItem {
                id: notice.id(),
                provider: region,
                title: notice.subject.clone().unwrap_or_default(),
                description: html_to_text(newest.and_then(|u| u.content.as_deref()).unwrap_or_default()),
                pub_date,
                link: notice_link(notice.url.as_deref()),
                severity,
                affected_scopes: Vec::new(),
            });
        }
    }
    let components = match components {
        Ok(list) => list,
        Err(message) => return MIST_REGIONS.iter().map(|r| (*r, Err(message.to_string()))).collect(),
    };
    for component in components {
        let Some(region) = region_of(component) else { continue };
        let degraded = component.state.as_deref().is_some_and(|s| s.trim().eq_ignore_ascii_case("degraded"));
        let items = per_region.entry(region).or_default();
        if degraded && items.is_empty() {
            let name = component.name.as_deref().unwrap_or("Mist cloud").trim().to_string();
            items.push(StatusItem {
                id: format!("mist-component-{}", component.id),
                provider: region,
                title: format!("{name} is degraded"),
                description: String::new(),
                pub_date: component.updated_at.as_deref().and_then(parse_date_ms),
                link: STATUS_PAGE.to_string(),
                severity: Severity::Warning,
                affected_scopes: Vec::new(),
            });
        }
    }
    MIST_REGIONS.iter().map(|r| (*r, Ok(per_region.remove(r).unwrap_or_default()))).collect()
}

#[cfg(test)]
#[path = "mist_tests.rs"]
mod tests;
