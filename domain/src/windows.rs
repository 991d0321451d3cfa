//! Window and navigation policy for the desktop shell: the allowlisted auxiliary-window routes
//! and the five-window cap (an already-open route is focused instead), the navigation lockdown
//! for app windows (only navigations that stay on the trusted app origin), the trusted-IPC-sender
//! check (main frame on exactly the trusted origin, the `assertTrustedIpcSender` equivalent), and
//! the Dynatrace popout navigation policy (Dynatrace hosts are live or authenticating, Microsoft
//! sign-in hosts are authenticating, everything else is blocked). Origins are compared as exact
//! (scheme, host, port) tuples; nothing is matched by prefix. Deny decisions carry only an
//! origin-level description of the target so log lines never contain paths or query strings.

use url::Url;

use crate::external_links::{check_raw_text, is_dynatrace_host, parse_shaped};
use crate::redact::describe_url_for_log;

/// Routes an auxiliary window may open, matched exactly.
pub const AUX_ROUTES: &[&str] = &["oncall", "directory", "servers", "assembler", "personnel", "popout/board"];
/// Most auxiliary windows open at once.
pub const MAX_AUX_WINDOWS: usize = 5;
/// Microsoft sign-in hosts a Dynatrace SSO flow may visit.
pub const MICROSOFT_LOGIN_HOSTS: &[&str] =
    &["login.microsoft.com", "login.microsoftonline.com", "login.windows.net", "sts.windows.net"];
/// Path fragments that mark a Dynatrace page as a sign-in page (matched case-insensitively).
pub const DYNATRACE_AUTH_PATH_MARKERS: &[&str] = &["signin", "sign-in", "login", "sso", "oauth", "oauth2", "oauth2.0"];

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WindowError {
    #[error("the route is not an allowed auxiliary window route")]
    UnknownRoute,
    #[error("at most {max} auxiliary windows may be open at once")]
    TooManyWindows { max: usize },
}

/// The allowlisted route equal to `route`, or `UnknownRoute`. Exact and case-sensitive.
pub fn check_aux_route(route: &str) -> Result<&'static str, WindowError> {
    AUX_ROUTES.iter().copied().find(|r| *r == route).ok_or(WindowError::UnknownRoute)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuxDecision {
    /// Create a window for the route.
    Open,
    /// A window for the route is already open: focus it instead.
    FocusExisting,
}

/// The set of open auxiliary-window routes (one window per route, at most `MAX_AUX_WINDOWS`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuxWindows {
    open: Vec<&'static str>,
}

impl AuxWindows {
    pub fn new() -> AuxWindows {
        AuxWindows::default()
    }

    /// Records a request to open `route`. Unknown routes and a sixth window are refused; an
    /// already-open route is not recorded twice.
    pub fn open(&mut self, route: &str) -> Result<AuxDecision, WindowError> {
        let route = check_aux_route(route)?;
        if self.open.contains(&route) {
            return Ok(AuxDecision::FocusExisting);
        }
        if self.open.len() >= MAX_AUX_WINDOWS {
            return Err(WindowError::TooManyWindows { max: MAX_AUX_WINDOWS });
        }
        self.open.push(route);
        Ok(AuxDecision::Open)
    }

    /// Forgets `route`'s window; returns whether it was open.
    pub fn close(&mut self, route: &str) -> bool {
        let before = self.open.len();
        self.open.retain(|r| *r != route);
        self.open.len() != before
    }

    pub fn is_open(&self, route: &str) -> bool {
        self.open.contains(&route)
    }

    /// Open routes in the order they were opened.
    pub fn routes(&self) -> &[&'static str] {
        &self.open
    }

    pub fn len(&self) -> usize {
        self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NavigationDecision {
    Allow,
    /// Refused; `target` is the origin-only description of the attempted URL, safe to log.
    Deny {
        target: String,
    },
}

/// An origin as an exact (scheme, host, port) tuple, both strings lowercase.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: String,
    port: Option<u16>,
}

/// Parses the origin of `raw`, failing closed: the external-link raw-text checks (at most 2048
/// bytes; no whitespace, control, backslash, non-ASCII or percent-encoded control characters,
/// which the URL parser would otherwise strip or reinterpret), no userinfo, and a non-empty host
/// (so `file:`, `about:` and `data:` URLs have no origin).
fn origin_of(raw: &str) -> Option<(Origin, Url)> {
    check_raw_text(raw).ok()?;
    let url = Url::parse(raw).ok()?;
    if !url.username().is_empty() || url.password().is_some() {
        return None;
    }
    let host = url.host_str().filter(|h| !h.is_empty())?.to_ascii_lowercase();
    let origin = Origin { scheme: url.scheme().to_string(), host, port: url.port_or_known_default() };
    Some((origin, url))
}

/// The trusted app origin: must itself be a pure origin (path empty or `/`, no query/fragment).
fn trusted(trusted_origin: &str) -> Option<Origin> {
    let (origin, url) = origin_of(trusted_origin)?;
    let pure = matches!(url.path(), "" | "/") && url.query().is_none() && url.fragment().is_none();
    pure.then_some(origin)
}

fn same_trusted_origin(url: &str, trusted_origin: &str) -> bool {
    match (origin_of(url), trusted(trusted_origin)) {
        (Some((origin, _)), Some(trusted)) => origin == trusted,
        _ => false,
    }
}

/// The navigation lockdown for app windows. A navigation is allowed only when the window is
/// currently on the trusted origin and the target stays on exactly that origin (scheme, host
/// and port; `http://host` and `http://host:80` are the same origin). Everything else, and any
/// input that does not parse, is denied. A malformed `trusted_origin` denies everything.
pub fn check_navigation(current_origin: &str, target: &str, trusted_origin: &str) -> NavigationDecision {
    if same_trusted_origin(current_origin, trusted_origin) && same_trusted_origin(target, trusted_origin) {
        NavigationDecision::Allow
    } else {
        NavigationDecision::Deny { target: describe_url_for_log(target) }
    }
}

/// Whether an IPC message comes from a trusted sender: the main frame of a window whose URL is on
/// exactly the trusted origin (`tauri://localhost`, `http://tauri.localhost`, or the dev-server
/// origin in development). No prefix matching: `tauri://localhost.evil` is not trusted.
pub fn is_trusted_sender(frame_url: &str, is_main_frame: bool, trusted_origin: &str) -> bool {
    is_main_frame && same_trusted_origin(frame_url, trusted_origin)
}

/// Navigation state of a Dynatrace dashboard popout for a requested URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DynatraceNav {
    /// A Dynatrace page: load it.
    Live,
    /// A Dynatrace or Microsoft sign-in page: load it and report the dashboard as signed out.
    Authenticating,
    /// Anything else: refuse.
    Blocked,
}

/// The Dynatrace popout navigation policy. The URL must pass the shared external-link shape
/// checks over HTTPS (no credentials, ports, whitespace, control or encoded control characters,
/// IP literals or trailing dots). Dynatrace hosts (`dynatrace.com`, `*.dynatrace.com`) are live,
/// or authenticating when the path contains a sign-in marker; the Microsoft login hosts are
/// authenticating; everything else is blocked.
pub fn dynatrace_navigation(url: &str) -> DynatraceNav {
    let Ok(shaped) = parse_shaped(url, &["https"]) else {
        return DynatraceNav::Blocked;
    };
    if is_dynatrace_host(&shaped.host) {
        let path = shaped.url.path().to_ascii_lowercase();
        if DYNATRACE_AUTH_PATH_MARKERS.iter().any(|m| path.contains(m)) {
            DynatraceNav::Authenticating
        } else {
            DynatraceNav::Live
        }
    } else if MICROSOFT_LOGIN_HOSTS.contains(&shaped.host.as_str()) {
        DynatraceNav::Authenticating
    } else {
        DynatraceNav::Blocked
    }
}

#[cfg(test)]
#[path = "windows_tests.rs"]
mod tests;
