//! The `open_external` link policy: which URLs Relay may hand to the operating system's browser
//! or Teams client. Links must be bounded, ASCII, credential-free HTTPS (or the `msteams:` form
//! of the Teams meeting draft) without explicit ports, whitespace, control characters or
//! percent-encoded control characters, and their host must be exactly one of Relay's status-page,
//! social, Downdetector, Teams or Juniper Mist hosts, or a boundary-safe `dynatrace.com` host.
//! Teams links are further confined to the meeting-draft path with bounded `subject` and
//! `attendees` fields, and Downdetector links to `/status/<slug>/`. The module also owns the
//! separate Service Desk capability (shape checks only, any HTTPS domain host) and the origin-only
//! description used when a blocked link is logged. Nothing here opens anything.

use url::{Host, Url};

/// Longest raw or normalized URL accepted, in bytes.
pub const MAX_URL_LEN: usize = 2048;
/// Longest decoded Teams meeting subject, in characters.
pub const MAX_TEAMS_SUBJECT_CHARS: usize = 256;
/// Most attendees one Teams meeting draft may carry.
pub const MAX_TEAMS_ATTENDEES: usize = 100;
/// Longest single attendee address, in bytes.
pub const MAX_ATTENDEE_LEN: usize = 254;
/// Longest Downdetector slug, in bytes.
pub const MAX_DOWNDETECTOR_SLUG_LEN: usize = 100;

/// Status-page hosts: the ten feed hosts of the cloud-status providers, Salesforce's incident
/// link host (`status.salesforce.com/incidents/<id>`) and Statuspage's shortlink hosts.
pub const STATUS_HOSTS: &[&str] = &[
    "status.aws.amazon.com",
    "azurestatuscdn.azureedge.net",
    "status.cloud.microsoft",
    "jira-software.status.atlassian.com",
    "www.githubstatus.com",
    "www.cloudflarestatus.com",
    "status.cloud.google.com",
    "status.claude.com",
    "status.openai.com",
    "api.status.salesforce.com",
    "status.salesforce.com",
    "stspg.io",
    "statuspage.io",
    // The status pages the Status tab links for providers whose feed host is an API host.
    "health.aws.amazon.com",
    "azure.status.microsoft",
    "dynatrace.status.io",
    "proofpoint.my.site.com",
    "statusgator.com",
];
/// Social hosts used for the providers' X handles.
pub const SOCIAL_HOSTS: &[&str] = &["x.com", "twitter.com"];
pub const DOWNDETECTOR_HOST: &str = "downdetector.com";
pub const TEAMS_HOST: &str = "teams.microsoft.com";
pub const TEAMS_MEETING_PATH: &str = "/l/meeting/new";
pub const MIST_HOST: &str = "status.mist.com";
pub const DYNATRACE_DOMAIN: &str = "dynatrace.com";

/// What an accepted external link points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LinkKind {
    StatusPage,
    Social,
    Downdetector,
    Teams,
    Dynatrace,
    JuniperMist,
}

/// An accepted external link; `url` is the parser-normalized form that should be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalLink {
    pub url: String,
    pub kind: LinkKind,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    #[error("the link is empty")]
    Empty,
    #[error("the link is longer than {MAX_URL_LEN} bytes")]
    TooLong,
    #[error("the link contains whitespace, control, backslash or non-ASCII characters")]
    ForbiddenCharacter,
    #[error("the link contains a percent-encoded control character")]
    EncodedControl,
    #[error("the link is not a valid absolute URL")]
    Invalid,
    #[error("the link scheme is not allowed")]
    SchemeNotAllowed,
    #[error("links must not carry credentials")]
    Credentials,
    #[error("links must not carry an explicit port")]
    Port,
    #[error("the link host is malformed")]
    InvalidHost,
    #[error("the link host is not allowed")]
    HostNotAllowed,
    #[error("the link path is not allowed for this host")]
    PathNotAllowed,
    #[error("the link query is not allowed for this host")]
    QueryNotAllowed,
    #[error("the link fragment is not allowed for this host")]
    FragmentNotAllowed,
    #[error("the Teams meeting subject is invalid")]
    TeamsSubject,
    #[error("the Teams meeting attendees are invalid")]
    TeamsAttendees,
}

/// Characters never allowed in decoded text that reaches a display or another program: control
/// characters (C0, DEL, C1), Unicode line/paragraph separators and bidirectional overrides.
pub(crate) fn is_unsafe_text_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn hex_val(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Checks that need the raw text, before any parser can strip or rewrite it.
pub(crate) fn check_raw_text(raw: &str) -> Result<(), LinkError> {
    if raw.is_empty() {
        return Err(LinkError::Empty);
    }
    if raw.len() > MAX_URL_LEN {
        return Err(LinkError::TooLong);
    }
    if raw.bytes().any(|b| !b.is_ascii() || b.is_ascii_control() || b == b' ' || b == b'\\') {
        return Err(LinkError::ForbiddenCharacter);
    }
    let bytes = raw.as_bytes();
    for (i, _) in raw.match_indices('%') {
        let decoded = bytes.get(i + 1).copied().and_then(hex_val).zip(bytes.get(i + 2).copied().and_then(hex_val));
        if let Some((hi, lo)) = decoded {
            let b = hi << 4 | lo;
            if b < 0x20 || b == 0x7f {
                return Err(LinkError::EncodedControl);
            }
        }
    }
    Ok(())
}

/// A link that passed the scheme-independent shape checks.
pub(crate) struct Shaped {
    pub url: Url,
    /// Lowercase scheme.
    pub scheme: String,
    /// Lowercase domain host (never an IP literal, never with a trailing dot).
    pub host: String,
}

/// Shape checks shared by every link capability: raw-text checks, an allowed scheme written as
/// `scheme://`, an authority that is a bare domain of letters, digits, `-`, `_` and `.` (no
/// userinfo, no port, no percent-encoding, no IP literal, no empty labels or trailing dot) that
/// the parser kept verbatim, and a bounded normalized form. `schemes` are lowercase.
pub(crate) fn parse_shaped(raw: &str, schemes: &[&str]) -> Result<Shaped, LinkError> {
    check_raw_text(raw)?;
    let (scheme, rest) = raw.split_once(':').ok_or(LinkError::Invalid)?;
    let scheme = scheme.to_ascii_lowercase();
    if !schemes.contains(&scheme.as_str()) {
        return Err(LinkError::SchemeNotAllowed);
    }
    let rest = rest.strip_prefix("//").ok_or(LinkError::Invalid)?;
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    if authority.contains('@') {
        return Err(LinkError::Credentials);
    }
    if authority.starts_with('[') {
        return Err(LinkError::InvalidHost);
    }
    if authority.contains(':') {
        return Err(LinkError::Port);
    }
    let host = authority.to_ascii_lowercase();
    if host.is_empty()
        || host.len() > 253
        || !host.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'.' | b'_'))
        || host.split('.').any(|label| label.is_empty() || label.len() > 63)
    {
        return Err(LinkError::InvalidHost);
    }
    let url = Url::parse(raw).map_err(|_| LinkError::Invalid)?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(LinkError::Credentials);
    }
    if url.port().is_some() {
        return Err(LinkError::Port);
    }
    match url.host() {
        Some(Host::Domain(d)) if d.eq_ignore_ascii_case(&host) => {}
        _ => return Err(LinkError::InvalidHost),
    }
    if url.as_str().len() > MAX_URL_LEN {
        return Err(LinkError::TooLong);
    }
    Ok(Shaped { url, scheme, host })
}

/// Whether `host` is `dynatrace.com` or a subdomain of it made of plain LDH labels. Lookalikes
/// (`evildynatrace.com`, `dynatrace.com.evil.net`), trailing dots, empty labels and punycode
/// (`xn--`) labels are rejected. Case-insensitive.
pub fn is_dynatrace_host(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    if host == DYNATRACE_DOMAIN {
        return true;
    }
    let Some(sub) = host.strip_suffix(DYNATRACE_DOMAIN).and_then(|s| s.strip_suffix('.')) else {
        return false;
    };
    host.len() <= 253
        && sub.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && !label.starts_with("xn--")
                && label.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}

/// The `open_external` policy. Returns the normalized URL and what it points at.
pub fn check_external_link(raw: &str) -> Result<ExternalLink, LinkError> {
    let Shaped { mut url, scheme, host } = parse_shaped(raw, &["https", "msteams"])?;
    let kind = if scheme == "msteams" {
        if host != TEAMS_HOST {
            return Err(LinkError::HostNotAllowed);
        }
        // Opaque (non-special) hosts keep their case; normalize to the canonical host.
        url.set_host(Some(TEAMS_HOST)).map_err(|_| LinkError::Invalid)?;
        check_teams(&url)?;
        LinkKind::Teams
    } else if STATUS_HOSTS.contains(&host.as_str()) {
        LinkKind::StatusPage
    } else if SOCIAL_HOSTS.contains(&host.as_str()) {
        LinkKind::Social
    } else if host == DOWNDETECTOR_HOST {
        check_downdetector(&url)?;
        LinkKind::Downdetector
    } else if host == TEAMS_HOST {
        check_teams(&url)?;
        LinkKind::Teams
    } else if host == MIST_HOST {
        LinkKind::JuniperMist
    } else if is_dynatrace_host(&host) {
        LinkKind::Dynatrace
    } else {
        return Err(LinkError::HostNotAllowed);
    };
    Ok(ExternalLink { url: url.into(), kind })
}

fn check_downdetector(url: &Url) -> Result<(), LinkError> {
    let slug = url
        .path()
        .strip_prefix("/status/")
        .and_then(|s| s.strip_suffix('/'))
        .filter(|s| !s.is_empty() && s.len() <= MAX_DOWNDETECTOR_SLUG_LEN)
        .filter(|s| s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'))
        .ok_or(LinkError::PathNotAllowed)?;
    if slug.starts_with('-') || slug.ends_with('-') {
        return Err(LinkError::PathNotAllowed);
    }
    if url.query().is_some() {
        return Err(LinkError::QueryNotAllowed);
    }
    if url.fragment().is_some() {
        return Err(LinkError::FragmentNotAllowed);
    }
    Ok(())
}

/// Decodes an `application/x-www-form-urlencoded` value strictly: `+` is a space, `%XX` must
/// be well formed and the result must be UTF-8.
fn decode_form_value(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hi = bytes.get(i + 1).copied().and_then(hex_val)?;
                let lo = bytes.get(i + 2).copied().and_then(hex_val)?;
                out.push(hi << 4 | lo);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

fn check_teams(url: &Url) -> Result<(), LinkError> {
    if url.path() != TEAMS_MEETING_PATH {
        return Err(LinkError::PathNotAllowed);
    }
    if url.fragment().is_some() {
        return Err(LinkError::FragmentNotAllowed);
    }
    let Some(query) = url.query() else {
        return Ok(());
    };
    let (mut subject, mut attendees) = (None, None);
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').ok_or(LinkError::QueryNotAllowed)?;
        let slot = match key {
            "subject" => &mut subject,
            "attendees" => &mut attendees,
            _ => return Err(LinkError::QueryNotAllowed),
        };
        if slot.replace(value).is_some() {
            return Err(LinkError::QueryNotAllowed);
        }
    }
    if let Some(raw) = subject {
        let subject = decode_form_value(raw).ok_or(LinkError::TeamsSubject)?;
        if subject.chars().count() > MAX_TEAMS_SUBJECT_CHARS || subject.chars().any(is_unsafe_text_char) {
            return Err(LinkError::TeamsSubject);
        }
    }
    if let Some(raw) = attendees {
        let attendees = decode_form_value(raw).ok_or(LinkError::TeamsAttendees)?;
        let list: Vec<&str> = attendees.split(',').collect();
        if list.len() > MAX_TEAMS_ATTENDEES || !list.iter().all(|a| is_attendee_address(a)) {
            return Err(LinkError::TeamsAttendees);
        }
    }
    Ok(())
}

fn is_attendee_address(address: &str) -> bool {
    address.len() <= MAX_ATTENDEE_LEN
        && address.bytes().all(|b| b.is_ascii_graphic())
        && crate::validation::is_valid_email(address)
}

/// The Service Desk capability: any HTTPS domain host (operator-supplied, so no allowlist), with
/// the shared shape checks. IP-literal hosts (including numeric forms the URL parser turns into
/// IPv4, such as `0x7f.1`) are rejected: a Service Desk is a named web service, and certificate
/// validation is meaningful only for names. Returns the normalized URL.
pub fn check_service_desk_link(raw: &str) -> Result<String, LinkError> {
    parse_shaped(raw, &["https"]).map(|s| s.url.into())
}

/// The origin-only form of a URL for log lines (`scheme://host[:port]`, `scheme:` for opaque
/// URLs, `<unparseable-url>` otherwise); paths, queries, fragments and credentials are dropped.
pub fn describe_for_log(raw: &str) -> String {
    crate::redact::describe_url_for_log(raw)
}

#[cfg(test)]
#[path = "external_links_tests.rs"]
mod tests;
