//! Reading the Radar page with the server PC's Radar session. The address is the fixed
//! `endpoints::RADAR` plus [`RADAR_PATH`]; the only thing sent besides it is the session's
//! `Cookie` header, read from the owner-only `secrets/radar-session` file written when the
//! operator signs in on the server PC. Redirects are refused and, like `401`/`403` and a 200
//! sign-in form, mean the session must be renewed. Nothing here keeps state between reads.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::time::Duration;

use reqwest::header::{ACCEPT, CACHE_CONTROL, COOKIE};

use super::parse::{parse_page, RadarPage, MAX_PAGE_BYTES};
use crate::http::{endpoints, CancellationToken, HttpClient, HttpError, HttpPolicy};

/// The Radar page on the CW Dashboard.
pub const RADAR_PATH: &str = "/CWDashboard/Home/Radar";
/// The secrets file holding the Radar session's cookie header.
pub const SESSION_FILE: &str = "radar-session";
/// Longest cookie header accepted from the session file.
pub const MAX_SESSION_BYTES: usize = 16 * 1024;

/// One read of the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RadarRead {
    /// No Radar session on this server PC: nothing was requested.
    NoSession,
    Page(RadarPage),
    /// The read failed; the message names the origin at most.
    Failed(String),
}

/// Where the actor gets a read from (production: [`RadarClient`]; tests: a script).
pub trait RadarSource: Send + Sync + 'static {
    fn read(&self, cancel: CancellationToken) -> Pin<Box<dyn Future<Output = RadarRead> + Send>>;

    /// Stores (`Some`) or forgets (`None`) the Radar session's cookie header. The cookie is
    /// checked first ([`check_session`]); the message of a refusal never echoes it.
    fn set_session(&self, cookie: Option<&str>) -> Result<(), String>;
}

/// Whether `cookie` can be stored as the Radar session: non-empty printable ASCII without
/// backslashes, at most [`MAX_SESSION_BYTES`].
pub fn check_session(cookie: &str) -> Result<&str, String> {
    let cookie = cookie.trim();
    if cookie.is_empty() {
        return Err("the Radar session cookie is empty".into());
    }
    if cookie.len() > MAX_SESSION_BYTES {
        return Err(format!("the Radar session cookie is longer than {MAX_SESSION_BYTES} bytes"));
    }
    if !cookie.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'\\') {
        return Err("the Radar session cookie holds characters a cookie header cannot carry".into());
    }
    Ok(cookie)
}

/// The production source: the fixed endpoint, the session file, 15 s, 2 MiB, no redirects.
pub struct RadarClient {
    client: HttpClient,
    session_file: Option<PathBuf>,
}

impl RadarClient {
    /// `secrets_dir`: the data directory's `secrets/` (None: no session can exist).
    pub fn new(secrets_dir: Option<PathBuf>) -> Result<RadarClient, HttpError> {
        let policy = HttpPolicy {
            timeout: Duration::from_secs(15),
            max_body_bytes: MAX_PAGE_BYTES as u64,
            ..HttpPolicy::upstream()
        };
        Ok(RadarClient { client: policy.build()?, session_file: secrets_dir.map(|d| d.join(SESSION_FILE)) })
    }
}

/// The stored session's cookie header, if a usable one exists.
pub fn read_session(path: &std::path::Path) -> Option<String> {
    let bytes = crate::datadir::read_private_file(path).ok()??;
    let text = String::from_utf8(bytes).ok()?;
    check_session(&text).ok().map(str::to_string)
}

/// Stores (`Some`, checked first by [`check_session`]) or forgets (`None`, nothing to forget is
/// fine) the Radar session's cookie header in the owner-only file at `path`.
pub fn store_session(path: &std::path::Path, cookie: Option<&str>) -> Result<(), String> {
    match cookie {
        Some(cookie) => {
            let cookie = check_session(cookie)?;
            crate::datadir::write_private_file(path, cookie.as_bytes()).map_err(|e| e.to_string())
        }
        None => crate::datadir::remove_if_present(path).map_err(|e| format!("cannot remove the Radar session: {e}")),
    }
}

/// Reads the page under `base` (the resolved `endpoints::RADAR`) once with `cookie`.
pub async fn read_page(client: &HttpClient, base: &url::Url, cookie: &str, cancel: &CancellationToken) -> RadarRead {
    let url = format!("{}{}", base.as_str().trim_end_matches('/'), RADAR_PATH);
    let request = client.get(&url).header(ACCEPT, "text/html").header(CACHE_CONTROL, "no-cache").header(COOKIE, cookie);
    match client.execute(request, cancel).await {
        Ok(response) => RadarRead::Page(parse_page(response.body())),
        Err(HttpError::RedirectRefused { .. }) => RadarRead::Page(RadarPage::SignIn),
        Err(HttpError::Status { status: 401 | 403, .. }) => RadarRead::Page(RadarPage::SignIn),
        Err(e) => RadarRead::Failed(e.to_string()),
    }
}

impl RadarSource for RadarClient {
    fn set_session(&self, cookie: Option<&str>) -> Result<(), String> {
        let Some(path) = &self.session_file else {
            return Err("this server has no data directory to keep a Radar session in".into());
        };
        store_session(path, cookie)
    }

    fn read(&self, cancel: CancellationToken) -> Pin<Box<dyn Future<Output = RadarRead> + Send>> {
        let Some(cookie) = self.session_file.as_deref().and_then(read_session) else {
            return Box::pin(async { RadarRead::NoSession });
        };
        let base = match endpoints::RADAR.base() {
            Ok(base) => base,
            Err(e) => return Box::pin(async move { RadarRead::Failed(e.to_string()) }),
        };
        let client = self.client.clone();
        Box::pin(async move { read_page(&client, &base, &cookie, &cancel).await })
    }
}

/// The production source: [`RadarClient`] over the data directory's `secrets/` (None: no
/// session can exist). If the TLS client cannot be set up, every read fails with that.
pub fn production_source(secrets_dir: Option<PathBuf>) -> std::sync::Arc<dyn RadarSource> {
    struct Unavailable;
    impl RadarSource for Unavailable {
        fn read(&self, _: CancellationToken) -> Pin<Box<dyn Future<Output = RadarRead> + Send>> {
            Box::pin(async { RadarRead::Failed("The Radar client could not be set up.".into()) })
        }
        fn set_session(&self, _: Option<&str>) -> Result<(), String> {
            Err("the Radar client could not be set up".into())
        }
    }
    match RadarClient::new(secrets_dir) {
        Ok(client) => std::sync::Arc::new(client),
        Err(e) => {
            tracing::error!(error = %e, "the Radar client cannot be set up; the Radar stays empty");
            std::sync::Arc::new(Unavailable)
        }
    }
}
