//! The severity and filtering rules of each status-feed format, as the original applies them:
//! the RSS `<status>` tag and the ordered text patterns, Statuspage status/impact/indicator,
//! Google and Salesforce incident fields, Mist notice states, Status.io message codes, and the
//! filters that drop AWS placeholders, planned maintenance and security advisories. Pure string
//! rules; the parsers in `infra::status_feeds` call them and never decide severity themselves.

use std::sync::LazyLock;

use regex::Regex;

use super::Severity;

fn pattern(source: &str) -> Regex {
    Regex::new(source).expect("status rule patterns are valid")
}

static RESOLVED_TEXT: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(resolved|recovered|restored|operating normally)\b"));
static ERROR_TEXT: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\b(outage|major|critical|unavailable|down)\b"));
static WARNING_TEXT: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(degraded|elevated|intermittent|disruption|impact|impacted|issues?)\b"));
static MAINTENANCE_TEXT: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(planned|scheduled)\b.{0,80}\bmaintenance\b"));
static ADVISORY_TEXT: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(security advisory|vulnerability|CVE-\d{4}-\d+|CVE)\b"));

/// The RSS/Atom `<status>` tag, when present, decides first.
pub fn rss_status_tag(status: &str) -> Option<Severity> {
    match status.trim().to_ascii_lowercase().as_str() {
        "available" => Some(Severity::Info),
        "degraded" | "advisory" => Some(Severity::Warning),
        "unavailable" | "outage" => Some(Severity::Error),
        "resolved" | "restored" => Some(Severity::Resolved),
        _ => None,
    }
}

/// Without a status tag: resolved words, then outage words, then degradation words, else info.
pub fn text_severity(text: &str) -> Severity {
    if RESOLVED_TEXT.is_match(text) {
        Severity::Resolved
    } else if ERROR_TEXT.is_match(text) {
        Severity::Error
    } else if WARNING_TEXT.is_match(text) {
        Severity::Warning
    } else {
        Severity::Info
    }
}

/// An RSS/Atom item: the status tag if it names a known state, else the title and description
/// text rules.
pub fn rss_item_severity(status_tag: Option<&str>, title: &str, description: &str) -> Severity {
    status_tag.and_then(rss_status_tag).unwrap_or_else(|| text_severity(&format!("{title} {description}")))
}

/// AWS publishes a placeholder item when nothing is happening; it is not an incident.
pub fn is_aws_placeholder(title: &str, description: &str) -> bool {
    let text = format!("{title} {description}").to_ascii_lowercase();
    text.contains("this site is updated when") || text.contains("no recent issues")
}

/// A Statuspage incident: status `resolved`/`postmortem` wins, then impact.
pub fn statuspage_incident(status: &str, impact: &str) -> Severity {
    match status.trim().to_ascii_lowercase().as_str() {
        "resolved" | "postmortem" | "completed" => return Severity::Resolved,
        _ => {}
    }
    match impact.trim().to_ascii_lowercase().as_str() {
        "critical" | "major" => Severity::Error,
        "minor" => Severity::Warning,
        _ => Severity::Info,
    }
}

/// The page-wide `status.indicator` for the synthetic item; `None` when all is well.
pub fn statuspage_indicator(indicator: &str) -> Option<Severity> {
    match indicator.trim().to_ascii_lowercase().as_str() {
        "" | "none" => None,
        "critical" | "major" => Some(Severity::Error),
        "minor" => Some(Severity::Warning),
        _ => Some(Severity::Info),
    }
}

/// A Google Cloud incident: ended ones are resolved; otherwise by `status_impact`.
pub fn google_incident(ended: bool, status_impact: &str) -> Severity {
    if ended {
        return Severity::Resolved;
    }
    match status_impact.trim() {
        "SERVICE_OUTAGE" => Severity::Error,
        "SERVICE_DISRUPTION" => Severity::Warning,
        _ => Severity::Info,
    }
}

/// A Salesforce incident: not Active -> resolved; type words decide the rest.
pub fn salesforce_incident(active: bool, incident_type: &str) -> Severity {
    if !active {
        return Severity::Resolved;
    }
    let kind = incident_type.to_ascii_lowercase();
    if ["major", "disruption", "outage"].iter().any(|w| kind.contains(w)) {
        Severity::Error
    } else if ["degradation", "maintenance"].iter().any(|w| kind.contains(w)) {
        Severity::Warning
    } else {
        Severity::Info
    }
}

/// A Mist notice state (lower-cased, `-`/space -> `_`): investigating/identified -> error,
/// recovering -> warning; any other state is not shown.
pub fn mist_notice_state(state: &str) -> Option<Severity> {
    let normalized: String =
        state.trim().to_ascii_lowercase().chars().map(|c| if c == '-' || c == ' ' { '_' } else { c }).collect();
    match normalized.as_str() {
        "investigating" | "identified" => Some(Severity::Error),
        "recovering" => Some(Severity::Warning),
        _ => None,
    }
}

/// A Status.io message status code: 300 degraded -> warning, 400/500 -> error, else not shown.
pub fn statusio_status(code: i64) -> Option<Severity> {
    match code {
        300 => Some(Severity::Warning),
        400 | 500 => Some(Severity::Error),
        _ => None,
    }
}

/// Planned or scheduled maintenance never toasts and is dropped where the original drops it.
pub fn is_planned_maintenance(text: &str) -> bool {
    MAINTENANCE_TEXT.is_match(text)
}

/// Security advisories are not outages (Status.io feed).
pub fn is_security_advisory(text: &str) -> bool {
    ADVISORY_TEXT.is_match(text)
}

/// A Status.io container name `Process-<cloud>-<region words>` or `Retain-…` as the scope
/// `<CLOUD> · <Region Words>`; other names are kept as they are (trimmed).
pub fn statusio_scope(container: &str) -> String {
    let name = container.trim();
    let rest = name.strip_prefix("Process-").or_else(|| name.strip_prefix("Retain-"));
    let Some((cloud, region)) = rest.and_then(|r| r.split_once('-')) else {
        return name.to_string();
    };
    let words: Vec<String> = region
        .split(['-', ' ', '_'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect(),
                None => String::new(),
            }
        })
        .collect();
    format!("{} · {}", cloud.to_uppercase(), words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_tag_decides_before_text() {
        assert_eq!(rss_item_severity(Some("available"), "Major outage", ""), Severity::Info);
        assert_eq!(rss_item_severity(Some("advisory"), "", ""), Severity::Warning);
        assert_eq!(rss_item_severity(Some("Outage"), "", ""), Severity::Error);
        assert_eq!(rss_item_severity(Some("restored"), "", ""), Severity::Resolved);
        assert_eq!(rss_item_severity(Some("something-new"), "Service degraded", ""), Severity::Warning);
    }

    #[test]
    fn text_rules_apply_in_order() {
        assert_eq!(text_severity("Outage resolved"), Severity::Resolved);
        assert_eq!(text_severity("Major outage in us-east-1"), Severity::Error);
        assert_eq!(text_severity("Elevated error rates"), Severity::Warning);
        assert_eq!(text_severity("Customers may see issues"), Severity::Warning);
        assert_eq!(text_severity("Informational message"), Severity::Info);
        assert_eq!(text_severity("Service is operating normally"), Severity::Resolved);
        // Whole words only: "download" is not "down".
        assert_eq!(text_severity("New download page"), Severity::Info);
    }

    #[test]
    fn aws_placeholder_is_recognised() {
        assert!(is_aws_placeholder("", "This site is updated when we have an issue"));
        assert!(!is_aws_placeholder("Increased error rates", "EC2 in us-east-1"));
    }

    #[test]
    fn statuspage_rules() {
        assert_eq!(statuspage_incident("postmortem", "critical"), Severity::Resolved);
        assert_eq!(statuspage_incident("investigating", "major"), Severity::Error);
        assert_eq!(statuspage_incident("identified", "minor"), Severity::Warning);
        assert_eq!(statuspage_incident("monitoring", "none"), Severity::Info);
        assert_eq!(statuspage_indicator("none"), None);
        assert_eq!(statuspage_indicator("critical"), Some(Severity::Error));
        assert_eq!(statuspage_indicator("minor"), Some(Severity::Warning));
        assert_eq!(statuspage_indicator("maintenance"), Some(Severity::Info));
    }

    #[test]
    fn google_and_salesforce_rules() {
        assert_eq!(google_incident(true, "SERVICE_OUTAGE"), Severity::Resolved);
        assert_eq!(google_incident(false, "SERVICE_OUTAGE"), Severity::Error);
        assert_eq!(google_incident(false, "SERVICE_DISRUPTION"), Severity::Warning);
        assert_eq!(google_incident(false, "SERVICE_INFORMATION"), Severity::Info);
        assert_eq!(salesforce_incident(false, "Major Outage"), Severity::Resolved);
        assert_eq!(salesforce_incident(true, "Service Disruption"), Severity::Error);
        assert_eq!(salesforce_incident(true, "Performance Degradation"), Severity::Warning);
        assert_eq!(salesforce_incident(true, "Informational"), Severity::Info);
    }

    #[test]
    fn mist_and_statusio_rules() {
        assert_eq!(mist_notice_state("Investigating"), Some(Severity::Error));
        assert_eq!(mist_notice_state("identified"), Some(Severity::Error));
        assert_eq!(mist_notice_state("Recovering"), Some(Severity::Warning));
        assert_eq!(mist_notice_state("resolved"), None);
        assert_eq!(statusio_status(300), Some(Severity::Warning));
        assert_eq!(statusio_status(400), Some(Severity::Error));
        assert_eq!(statusio_status(500), Some(Severity::Error));
        assert_eq!(statusio_status(100), None);
        assert_eq!(statusio_status(200), None);
    }

    #[test]
    fn maintenance_and_advisories_are_recognised() {
        assert!(is_planned_maintenance("Planned network maintenance"));
        assert!(is_planned_maintenance("Scheduled Maintenance for EU clusters"));
        assert!(!is_planned_maintenance("Emergency fix in progress"));
        assert!(is_security_advisory("Security advisory: CVE-2026-1234"));
        assert!(!is_security_advisory("Latency in EU"));
    }

    #[test]
    fn statusio_scopes_read_like_regions() {
        assert_eq!(statusio_scope("Process-aws-us-east-1"), "AWS · Us East 1");
        assert_eq!(statusio_scope("Retain-azure-west europe"), "AZURE · West Europe");
        assert_eq!(statusio_scope("  Cluster 7 "), "Cluster 7");
    }
}
