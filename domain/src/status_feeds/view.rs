//! What `GET /api/relay/status` answers: each provider's catalogue entry (labels and the fixed
//! status-page, X and Downdetector links), its display state, last good items, last error and
//! check times, plus when the feeds were last polled and when the next poll is due. Built from
//! the status-feeds actor's state by pure functions, so the shape is tested without a server.

use serde::Serialize;

use super::posture::{provider_state, DisplayState};
use super::{ProviderId, ProviderSnapshot, StatusItem, PROVIDERS};
use crate::time::format_ms;

/// One provider as the Status tab shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderStatus {
    pub id: ProviderId,
    pub label: &'static str,
    pub short: &'static str,
    pub status_page: &'static str,
    pub x_url: Option<String>,
    pub downdetector_url: Option<String>,
    pub state: DisplayState,
    pub items: Vec<StatusItem>,
    pub error: Option<String>,
    pub checked_at: Option<String>,
    pub last_success_at: Option<String>,
}

/// The whole Status tab payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceStatus {
    pub providers: Vec<ProviderStatus>,
    pub last_updated: Option<String>,
    pub next_poll_at: Option<String>,
    pub refreshing: bool,
}

/// A provider's entry; `checked_at` is the last poll attempt (epoch ms).
pub fn provider_status(snapshot: &ProviderSnapshot, checked_at: Option<i64>) -> ProviderStatus {
    let info = snapshot.provider.info();
    ProviderStatus {
        id: info.id,
        label: info.label,
        short: info.short,
        status_page: info.status_page,
        x_url: info.x_handle.map(|h| format!("https://x.com/{h}")),
        downdetector_url: info.downdetector.map(|slug| format!("https://downdetector.com/status/{slug}/")),
        state: provider_state(snapshot),
        items: snapshot.items.clone(),
        error: snapshot.error.clone(),
        checked_at: checked_at.map(format_ms),
        last_success_at: snapshot.last_success.map(format_ms),
    }
}

/// The payload over `known` snapshots (with their last check times), in catalogue order. A
/// provider with no snapshot yet is shown as `unknown` with the error "Not checked yet", never
/// as operational.
pub fn service_status(
    known: &[(ProviderSnapshot, Option<i64>)],
    next_poll_ms: Option<i64>,
    refreshing: bool,
) -> ServiceStatus {
    let providers = PROVIDERS
        .iter()
        .map(|info| match known.iter().find(|(s, _)| s.provider == info.id) {
            Some((snapshot, checked)) => provider_status(snapshot, *checked),
            None => {
                let mut unseen = ProviderSnapshot::empty(info.id);
                unseen.error = Some("Not checked yet".into());
                provider_status(&unseen, None)
            }
        })
        .collect();
    let last_updated = known.iter().filter_map(|(_, checked)| *checked).max().map(format_ms);
    ServiceStatus { providers, last_updated, next_poll_at: next_poll_ms.map(format_ms), refreshing }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status_feeds::Severity;

    #[test]
    fn every_provider_appears_in_order_and_unseen_ones_are_unknown() {
        let mut aws = ProviderSnapshot::empty(ProviderId::Aws);
        aws.last_success = Some(1_000);
        let view = service_status(&[(aws, Some(2_000))], Some(3_000), false);
        assert_eq!(view.providers.len(), PROVIDERS.len());
        assert_eq!(view.providers[0].state, DisplayState::Operational);
        assert_eq!(view.providers[0].checked_at.as_deref(), Some("1970-01-01 00:00:02.000Z"));
        assert_eq!(view.providers[1].state, DisplayState::Unknown);
        assert_eq!(view.providers[1].error.as_deref(), Some("Not checked yet"));
        assert_eq!(view.last_updated.as_deref(), Some("1970-01-01 00:00:02.000Z"));
        let json = serde_json::to_value(&view).unwrap();
        assert_eq!(json["providers"][0]["xUrl"], "https://x.com/awscloud");
        assert_eq!(json["providers"][0]["downdetectorUrl"], "https://downdetector.com/status/aws-amazon-web-services/");
        assert_eq!(json["providers"][7]["label"], "Claude");
        assert!(json["providers"][7]["xUrl"].is_null());
        assert_eq!(json["nextPollAt"], "1970-01-01 00:00:03.000Z");
    }

    #[test]
    fn items_keep_their_wire_shape() {
        let mut gh = ProviderSnapshot::empty(ProviderId::Github);
        gh.items.push(StatusItem {
            id: "x".into(),
            provider: ProviderId::Github,
            title: "Actions delayed".into(),
            description: "d".into(),
            pub_date: Some(5),
            link: String::new(),
            severity: Severity::Warning,
            affected_scopes: vec![],
        });
        let json = serde_json::to_value(provider_status(&gh, None)).unwrap();
        assert_eq!(json["state"], "degraded");
        assert_eq!(
            json["items"][0],
            serde_json::json!({"id": "x", "provider": "github", "title": "Actions delayed", "description": "d",
                "pubDate": 5, "link": "", "severity": "warning"})
        );
    }
}
