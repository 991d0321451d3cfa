//! Proofpoint's "current incidents" page on Salesforce Experience Cloud: a GET of the page to
//! read the framework id (`fwuid`) and the `siteforce:communityApp` version from its
//! URL-encoded bootstrap, then one aura POST that starts the `Incident_Article_Number` flow
//! ([`aura_form`] builds its exact fields). The flow's `tableData` lists articles; an article
//! is an item only when its HTML table has rows marked "Currently Impacted" (their first cells
//! become scopes). Severity is always error. A malformed response is an error (the caller keeps
//! the last confirmed state); an empty table is authoritative and yields no items.

use std::sync::LazyLock;

use domain::status_feeds::{ProviderId, Severity, StatusItem, MAX_SCOPES, MAX_SCOPE_CHARS};
use regex::Regex;
use scraper::{Html, Selector};
use serde::Deserialize;

use super::text::{element_text, parse_date_ms};
use super::{json, FeedParseError};

pub const PAGE_PATH: &str = "/community/s/proofpoint-current-incidents";
pub const AURA_PATH: &str = "/community/s/sfsites/aura?r=1&aura.FlowRuntimeConnect.startFlow=1";
/// Articles read from `tableData`.
pub const MAX_ARTICLES: usize = 50;
/// Longest description HTML parsed (bytes); longer ones are malformed.
pub const MAX_DESCRIPTION_HTML: usize = 200_000;
const APP: &str = "siteforce:communityApp";
const DEFAULT_SUMMARY: &str = "Proofpoint reports a service outage.";
const STATUS_PAGE: &str = "https://proofpoint.my.site.com/community/s/proofpoint-current-incidents";

static FWUID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#""fwuid"\s*:\s*"([A-Za-z0-9_.\-]{1,200})""#).expect("valid"));
static APP_VERSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#""APPLICATION@markup://siteforce:communityApp"\s*:\s*"([A-Za-z0-9_.\-]{1,200})""#).expect("valid")
});

/// What the aura call needs from the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuraBootstrap {
    pub fwuid: String,
    pub app_version: String,
}

fn percent_decode(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
        match (bytes[i], bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi << 4) | lo);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The framework id and app version from the page's URL-encoded bootstrap.
pub fn parse_bootstrap(page: &[u8]) -> Result<AuraBootstrap, FeedParseError> {
    let decoded = percent_decode(&String::from_utf8_lossy(page));
    let fwuid = FWUID.captures(&decoded).ok_or(FeedParseError::Missing("the aura framework id"))?[1].to_string();
    let app_version =
        APP_VERSION.captures(&decoded).ok_or(FeedParseError::Missing("the community app version"))?[1].to_string();
    Ok(AuraBootstrap { fwuid, app_version })
}

/// The form fields of the aura `startFlow` call, in order.
pub fn aura_form(bootstrap: &AuraBootstrap) -> Vec<(&'static str, String)> {
    let message = serde_json::json!({
        "actions": [{
            "id": "1;a",
            "descriptor": "aura://FlowRuntimeConnectController/ACTION$startFlow",
            "callingDescriptor": "UNKNOWN",
            "params": {"flowDevName": "Incident_Article_Number", "arguments": "[]", "enableTrace": false}
        }]
    });
    let context = serde_json::json!({
        "mode": "PROD",
        "fwuid": bootstrap.fwuid,
        "app": APP,
        "loaded": {format!("APPLICATION@markup://{APP}"): bootstrap.app_version},
        "dn": [],
        "globals": {},
        "uad": false
    });
    vec![
        ("message", message.to_string()),
        ("aura.context", context.to_string()),
        ("aura.pageURI", PAGE_PATH.to_string()),
        ("aura.token", "null".to_string()),
    ]
}

#[derive(Debug, Deserialize)]
struct AuraResponse {
    actions: Vec<Action>,
}

#[derive(Debug, Deserialize)]
struct Action {
    #[serde(default)]
    state: Option<String>,
    #[serde(default, rename = "returnValue")]
    return_value: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
struct Article {
    #[serde(default, rename = "ArticleNumber")]
    number: Option<String>,
    #[serde(default, rename = "Title")]
    title: Option<String>,
    #[serde(default, rename = "Community_URL__c")]
    url: Option<String>,
    #[serde(default, rename = "LastPublishedDate")]
    published: Option<String>,
    #[serde(default, rename = "FAQ_How_To_Description__c")]
    description: Option<String>,
}

/// `returnValue.response.fields[].inputs[name = tableData].value` of the successful action.
fn table_data(response: &AuraResponse) -> Result<serde_json::Value, FeedParseError> {
    let action = response
        .actions
        .iter()
        .find(|a| a.state.as_deref() == Some("SUCCESS"))
        .ok_or(FeedParseError::Missing("a successful aura action"))?;
    let value = action.return_value.as_ref().ok_or(FeedParseError::Missing("the flow's return value"))?;
    let response = value.get("response").unwrap_or(value);
    let fields =
        response.get("fields").and_then(|f| f.as_array()).ok_or(FeedParseError::Missing("the flow's fields"))?;
    for field in fields {
        for input in field.get("inputs").and_then(|i| i.as_array()).into_iter().flatten() {
            if input.get("name").and_then(|n| n.as_str()) == Some("tableData") {
                return match input.get("value") {
                    Some(serde_json::Value::String(text)) => {
                        serde_json::from_str(text).map_err(|_| FeedParseError::Shape("Proofpoint table data"))
                    }
                    Some(value @ serde_json::Value::Array(_)) => Ok(value.clone()),
                    Some(serde_json::Value::Null) | None => Ok(serde_json::Value::Array(Vec::new())),
                    Some(_) => Err(FeedParseError::Shape("Proofpoint table data")),
                };
            }
        }
    }
    Err(FeedParseError::Missing("the incident table"))
}

/// Parses the aura response into Proofpoint items (not yet finalized).
pub fn parse_aura(bytes: &[u8], _now_ms: i64) -> Result<Vec<StatusItem>, FeedParseError> {
    // Aura may prefix JSON with an anti-hijacking guard.
    let text = std::str::from_utf8(bytes).map_err(|_| FeedParseError::Shape("aura response"))?;
    let text = text.trim_start().strip_prefix("while(1);").unwrap_or(text);
    let response: AuraResponse = json(text.as_bytes(), "aura response")?;
    let articles: Vec<Article> =
        serde_json::from_value(table_data(&response)?).map_err(|_| FeedParseError::Shape("Proofpoint table data"))?;
    let mut items = Vec::new();
    for article in articles.into_iter().take(MAX_ARTICLES) {
        let number = article.number.as_deref().map(str::trim).unwrap_or_default();
        if number.is_empty() {
            return Err(FeedParseError::Shape("Proofpoint table data"));
        }
        let html = article.description.as_deref().unwrap_or_default();
        if html.len() > MAX_DESCRIPTION_HTML {
            return Err(FeedParseError::Shape("Proofpoint article description"));
        }
        let (scopes, summary) = impacted_rows(html);
        if scopes.is_empty() {
            continue;
        }
        items.push(StatusItem {
            id: format!("proofpoint-{number}"),
            provider: ProviderId::Proofpoint,
            title: article.title.unwrap_or_default(),
            description: summary.unwrap_or_else(|| DEFAULT_SUMMARY.to_string()),
            pub_date: article.published.as_deref().and_then(parse_date_ms),
            link: article_link(article.url.as_deref()),
            severity: Severity::Error,
            affected_scopes: scopes,
        });
    }
    Ok(items)
}

/// The article's own link when it is a community article on the Proofpoint site.
fn article_link(raw: Option<&str>) -> String {
    match raw.and_then(|r| url::Url::parse(r.trim()).ok()) {
        Some(url)
            if url.scheme() == "https"
                && url.host_str() == Some("proofpoint.my.site.com")
                && url.port().is_none()
                && url.username().is_empty()
                && url.path().starts_with("/community/s/article/") =>
        {
            url.to_string()
        }
        _ => STATUS_PAGE.to_string(),
    }
}

/// The first cells of rows marked "Currently Impacted" (unique, bounded) and the text of a
/// "Summary" row, from the article's HTML table.
fn impacted_rows(html: &str) -> (Vec<String>, Option<String>) {
    static ROW: LazyLock<Selector> = LazyLock::new(|| Selector::parse("tr").expect("valid selector"));
    static CELL: LazyLock<Selector> = LazyLock::new(|| Selector::parse("td, th").expect("valid selector"));
    let fragment = Html::parse_fragment(html);
    let mut scopes: Vec<String> = Vec::new();
    let mut summary = None;
    for row in fragment.select(&ROW) {
        let cells: Vec<String> = row.select(&CELL).map(element_text).collect();
        let Some(first) = cells.first() else { continue };
        let label = first.trim_end_matches(':').trim().to_ascii_lowercase();
        if summary.is_none() && (label == "summary" || label == "incident summary") {
            let rest = cells[1..].join(" ");
            if !rest.trim().is_empty() {
                summary = Some(rest.trim().to_string());
            }
            continue;
        }
        let impacted = cells.iter().any(|c| c.to_ascii_lowercase().contains("currently impacted"));
        let scope = domain::status_feeds::truncate_chars(first.trim(), MAX_SCOPE_CHARS);
        if impacted && !scope.is_empty() && !scopes.contains(&scope) && scopes.len() < MAX_SCOPES {
            scopes.push(scope);
        }
    }
    (scopes, summary)
}

#[cfg(test)]
#[path = "proofpoint_tests.rs"]
mod tests;
