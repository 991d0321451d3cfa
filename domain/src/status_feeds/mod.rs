//! Service-status feeds as Relay understands them, without any IO: the fixed catalogue of
//! providers the server polls (ids, labels, the links an operator may open, which wire format
//! each speaks), the normalized incident item every parser produces, the per-provider snapshot
//! the server stores in `cloud_status`, and the limits that bound all of it. The severity rules
//! live in [`rules`], the roll-ups the Status tab and the poll cadence use in [`posture`], and the
//! toast rule (outages at once, degradations after three observations two minutes apart) in
//! [`notify`]. Fetching and parsing the real wire formats is `infra::status_feeds`.

pub mod notify;
pub mod posture;
pub mod rules;
pub mod view;

pub use crate::text::{collapse_whitespace, truncate_chars};

use serde::{Deserialize, Serialize};

/// Items kept per provider after parsing (newest first); the rest are dropped.
pub const MAX_ITEMS_PER_PROVIDER: usize = 50;
/// Longest item title kept (characters); longer ones are cut at a character boundary.
pub const MAX_TITLE_CHARS: usize = 2_000;
/// Longest item description kept (characters, text only, no markup).
pub const MAX_DESCRIPTION_CHARS: usize = 4_000;
/// Longest id and link kept (characters).
pub const MAX_ID_CHARS: usize = 512;
pub const MAX_LINK_CHARS: usize = 2_048;
/// Affected scopes per item, and characters per scope.
pub const MAX_SCOPES: usize = 100;
pub const MAX_SCOPE_CHARS: usize = 200;
/// Longest error message recorded for a failed feed (characters).
pub const MAX_ERROR_CHARS: usize = 500;
/// Items older than this are dropped where the source has no notion of "still open" (AWS RSS,
/// Google's ended incidents, Status.io).
pub const RECENT_WINDOW_MS: i64 = 7 * 24 * 3_600_000;

/// The wire format a provider speaks (decides which parser reads it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeedFormat {
    /// RSS 2.0 or Atom.
    RssAtom,
    /// Atlassian Statuspage `api/v2/summary.json`.
    Statuspage,
    /// Google Cloud `incidents.json`.
    GoogleIncidents,
    /// Salesforce `v1/incidents/active`.
    Salesforce,
    /// Juniper Mist (Sorry status page API): notices + components, one fetch for four regions.
    Mist,
    /// Status.io public status JSON (Dynatrace).
    StatusIo,
    /// Proofpoint's Salesforce Experience Cloud page, then its aura flow call.
    ProofpointAura,
    /// StatusGator's HTML page (CrowdStrike).
    StatusGatorHtml,
}

/// One provider the server polls. Ids are the original's (`anthropic` is shown as Claude).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderId {
    Aws,
    Azure,
    M365,
    Jira,
    Github,
    Cloudflare,
    Google,
    Anthropic,
    Openai,
    Salesforce,
    MistGlobal,
    MistEmea,
    MistApac,
    MistFederal,
    Dynatrace,
    Proofpoint,
    Crowdstrike,
}

/// What the UI shows and links to for a provider. Links are fixed here; the renderer opens them
/// through the external-link policy and never receives a URL from a feed for these buttons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderInfo {
    pub id: ProviderId,
    /// Card title ("Microsoft 365").
    pub label: &'static str,
    /// Chip and toast label ("M365").
    pub short: &'static str,
    pub format: FeedFormat,
    /// The provider's public status page.
    pub status_page: &'static str,
    /// X (Twitter) handle without `@`, where the original links one.
    pub x_handle: Option<&'static str>,
    /// Downdetector slug (`https://downdetector.com/status/<slug>/`).
    pub downdetector: Option<&'static str>,
}

const fn info(
    id: ProviderId,
    label: &'static str,
    short: &'static str,
    format: FeedFormat,
    status_page: &'static str,
    x_handle: Option<&'static str>,
    downdetector: Option<&'static str>,
) -> ProviderInfo {
    ProviderInfo { id, label, short, format, status_page, x_handle, downdetector }
}

/// Every provider, in the canonical display order.
pub static PROVIDERS: &[ProviderInfo] = &[
    info(
        ProviderId::Aws,
        "AWS",
        "AWS",
        FeedFormat::RssAtom,
        "https://health.aws.amazon.com/health/status",
        Some("awscloud"),
        Some("aws-amazon-web-services"),
    ),
    info(
        ProviderId::Azure,
        "Azure",
        "Azure",
        FeedFormat::RssAtom,
        "https://azure.status.microsoft/en-us/status",
        Some("AzureSupport"),
        Some("windows-azure"),
    ),
    info(
        ProviderId::M365,
        "Microsoft 365",
        "M365",
        FeedFormat::RssAtom,
        "https://status.cloud.microsoft/",
        Some("MSFT365Status"),
        Some("office-365"),
    ),
    info(
        ProviderId::Jira,
        "Jira",
        "Jira",
        FeedFormat::Statuspage,
        "https://jira-software.status.atlassian.com/",
        Some("JiraStatus"),
        Some("jira"),
    ),
    info(
        ProviderId::Github,
        "GitHub",
        "GitHub",
        FeedFormat::Statuspage,
        "https://www.githubstatus.com/",
        Some("githubstatus"),
        Some("github"),
    ),
    info(
        ProviderId::Cloudflare,
        "Cloudflare",
        "Cloudflare",
        FeedFormat::Statuspage,
        "https://www.cloudflarestatus.com/",
        Some("CloudflareHelp"),
        Some("cloudflare"),
    ),
    info(
        ProviderId::Google,
        "Google Cloud",
        "Google",
        FeedFormat::GoogleIncidents,
        "https://status.cloud.google.com/",
        Some("googlecloud"),
        Some("google-cloud"),
    ),
    info(
        ProviderId::Anthropic,
        "Claude",
        "Claude",
        FeedFormat::Statuspage,
        "https://status.claude.com/",
        None,
        Some("claude-ai"),
    ),
    info(
        ProviderId::Openai,
        "ChatGPT",
        "ChatGPT",
        FeedFormat::Statuspage,
        "https://status.openai.com/",
        Some("OpenAIStatus"),
        Some("openai"),
    ),
    info(
        ProviderId::Salesforce,
        "Salesforce",
        "SFDC",
        FeedFormat::Salesforce,
        "https://status.salesforce.com/",
        None,
        Some("salesforce"),
    ),
    info(
        ProviderId::MistGlobal,
        "Juniper Mist · Global",
        "Mist Global",
        FeedFormat::Mist,
        "https://status.mist.com/",
        Some("MistSystems"),
        None,
    ),
    info(
        ProviderId::MistEmea,
        "Juniper Mist · EMEA",
        "Mist EMEA",
        FeedFormat::Mist,
        "https://status.mist.com/",
        Some("MistSystems"),
        None,
    ),
    info(
        ProviderId::MistApac,
        "Juniper Mist · APAC",
        "Mist APAC",
        FeedFormat::Mist,
        "https://status.mist.com/",
        Some("MistSystems"),
        None,
    ),
    info(
        ProviderId::MistFederal,
        "Juniper Mist · Federal",
        "Mist Federal",
        FeedFormat::Mist,
        "https://status.mist.com/",
        Some("MistSystems"),
        None,
    ),
    info(
        ProviderId::Dynatrace,
        "Dynatrace",
        "Dynatrace",
        FeedFormat::StatusIo,
        "https://dynatrace.status.io/",
        Some("Dynatrace"),
        Some("dynatrace"),
    ),
    info(
        ProviderId::Proofpoint,
        "Proofpoint",
        "Proofpoint",
        FeedFormat::ProofpointAura,
        "https://proofpoint.my.site.com/community/s/proofpoint-current-incidents",
        Some("proofpoint"),
        Some("proofpoint"),
    ),
    info(
        ProviderId::Crowdstrike,
        "CrowdStrike",
        "CrowdStrike",
        FeedFormat::StatusGatorHtml,
        "https://statusgator.com/services/crowdstrike",
        Some("CrowdStrike"),
        Some("crowdstrike"),
    ),
];

/// The four Mist regions, which one fetch serves.
pub const MIST_REGIONS: [ProviderId; 4] =
    [ProviderId::MistGlobal, ProviderId::MistEmea, ProviderId::MistApac, ProviderId::MistFederal];

impl ProviderId {
    /// The wire id (`"mist_emea"`), also the `provider` key of the `cloud_status` record: the
    /// enum's position in [`PROVIDER_IDS`] (the catalogue test holds the order and serde's name).
    pub fn as_str(self) -> &'static str {
        PROVIDER_IDS[self as usize]
    }

    pub fn parse(raw: &str) -> Option<ProviderId> {
        PROVIDERS.iter().map(|p| p.id).find(|id| id.as_str() == raw)
    }

    pub fn info(self) -> &'static ProviderInfo {
        PROVIDERS.iter().find(|p| p.id == self).expect("every provider id is in the catalogue")
    }

    /// Providers that share one toast episode for the same incident (the Mist regions).
    pub fn toast_group(self) -> &'static str {
        if MIST_REGIONS.contains(&self) {
            "mist"
        } else {
            self.as_str()
        }
    }
}

/// Every provider id as its wire string (the `cloud_status.provider` select values).
pub const PROVIDER_IDS: &[&str] = &[
    "aws",
    "azure",
    "m365",
    "jira",
    "github",
    "cloudflare",
    "google",
    "anthropic",
    "openai",
    "salesforce",
    "mist_global",
    "mist_emea",
    "mist_apac",
    "mist_federal",
    "dynatrace",
    "proofpoint",
    "crowdstrike",
];

/// How bad an item is. `Resolved` items stay visible in the Resolved feed section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    Warning,
    Error,
    Resolved,
}

impl Severity {
    /// Error and warning items are "active" (they count as impact and may toast).
    pub fn is_active(self) -> bool {
        matches!(self, Severity::Error | Severity::Warning)
    }
}

/// One normalized incident, notice or synthetic status item. Text is plain (parsers strip
/// markup and decode entities) and bounded by the limits above ([`StatusItem::bounded`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StatusItem {
    pub id: String,
    pub provider: ProviderId,
    pub title: String,
    pub description: String,
    /// Publication (or latest update) time in epoch milliseconds; `None` when the source gave
    /// no parsable date.
    pub pub_date: Option<i64>,
    /// An https link to the incident, or empty.
    pub link: String,
    pub severity: Severity,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub affected_scopes: Vec<String>,
}

impl StatusItem {
    /// The item with every field cut to its limit, whitespace collapsed in the title, and a
    /// non-https link replaced by an empty one.
    pub fn bounded(mut self) -> StatusItem {
        self.id = truncate_chars(&self.id, MAX_ID_CHARS);
        self.title = truncate_chars(&collapse_whitespace(&self.title), MAX_TITLE_CHARS);
        self.description = truncate_chars(self.description.trim(), MAX_DESCRIPTION_CHARS);
        self.link = if self.link.starts_with("https://") && self.link.chars().count() <= MAX_LINK_CHARS {
            self.link
        } else {
            String::new()
        };
        self.affected_scopes.truncate(MAX_SCOPES);
        for scope in &mut self.affected_scopes {
            *scope = truncate_chars(scope, MAX_SCOPE_CHARS);
        }
        self
    }
}

/// Newest first (items without a date last), bounded to [`MAX_ITEMS_PER_PROVIDER`], each item
/// [`StatusItem::bounded`], duplicates by id dropped (the first, newest, wins).
pub fn finalize_items(items: Vec<StatusItem>) -> Vec<StatusItem> {
    let mut items: Vec<StatusItem> = items.into_iter().map(StatusItem::bounded).collect();
    items.sort_by(|a, b| b.pub_date.unwrap_or(i64::MIN).cmp(&a.pub_date.unwrap_or(i64::MIN)));
    let mut seen = std::collections::HashSet::new();
    items.retain(|item| seen.insert(item.id.clone()));
    items.truncate(MAX_ITEMS_PER_PROVIDER);
    items
}

/// One provider's stored state: what the `cloud_status` record holds. `items` are the last good
/// items; `error` is set while the latest poll failed (the items are then from an earlier poll).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderSnapshot {
    pub provider: ProviderId,
    pub items: Vec<StatusItem>,
    pub error: Option<String>,
    /// When the items were last fetched successfully (epoch ms; `None` = never).
    pub last_success: Option<i64>,
}

impl ProviderSnapshot {
    pub fn empty(provider: ProviderId) -> ProviderSnapshot {
        ProviderSnapshot { provider, items: Vec::new(), error: None, last_success: None }
    }

    /// SHA-256 (hex) over the items and the error: equal hashes mean a poll changed nothing an
    /// operator can see, so the server writes nothing.
    pub fn content_hash(&self) -> String {
        use sha2::{Digest, Sha256};
        let body = serde_json::json!({ "items": self.items, "error": self.error });
        let digest = Sha256::digest(body.to_string().as_bytes());
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// A bounded, single-line error message for a failed feed.
pub fn feed_error_message(message: &str) -> String {
    crate::text::one_line(message, MAX_ERROR_CHARS)
}

#[cfg(test)]
mod tests;
