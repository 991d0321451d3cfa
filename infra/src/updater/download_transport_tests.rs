//! The download's transport rules against the fake GitHub: redirects to a foreign or plain-HTTP
//! host, with credentials, with a port, a `301`, three hops followed and a fourth refused;
//! `Content-Length` missing or disagreeing with the metadata, a body cut short, headers then
//! silence (a short deadline), cancellation before the request, during the body and while it
//! stalls, an error status, and
//! logs and errors that hold no path, query or signed storage URL. After every failure the
//! updates root is empty.

use std::sync::{Arc, Mutex};

use fake_upstream::{FakeUpstream, Reply};

use domain::updater::release::archive_asset_name;
use domain::updater::UpdateFailure;

use super::super::test_support::*;
use super::*;

async fn refused(setup: &Setup, downloader: &ReleaseDownloader) -> UpdateDownloadError {
    let (result, _) = setup.download(downloader).await;
    let error = result.unwrap_err();
    assert_eq!(setup.root_entries(), Vec::<String>::new(), "{error:?} left files behind");
    error
}

/// Points the checksum asset's API redirect at `location`; returns the refusal.
async fn redirected_to(setup: &Setup, location: &str) -> UpdateDownloadError {
    setup.github.api.route("GET", &asset_path(CHECKSUM_ID), Reply::redirect(302, location));
    refused(setup, &setup.downloader()).await
}

fn rule(error: &UpdateDownloadError) -> Option<DownloadError> {
    match error {
        UpdateDownloadError::Rule(rule) => Some(rule.clone()),
        _ => None,
    }
}

#[tokio::test]
async fn redirects_to_foreign_or_plain_http_hosts_are_refused() {
    let setup = Setup::start().await;
    let foreign = FakeUpstream::start().await;
    let error = redirected_to(&setup, &foreign.url("/blob?sig=hunter2")).await;
    assert_eq!(rule(&error), Some(DownloadError::RedirectNotHttps), "a loopback host that is no override");
    assert_eq!(error.failure(), UpdateFailure::DownloadFailed);
    let error = redirected_to(&setup, "https://evil.example/blob?sig=hunter2").await;
    assert_eq!(rule(&error), Some(DownloadError::RedirectHostNotAllowed));
    let error = redirected_to(&setup, "/relative/blob").await;
    assert_eq!(rule(&error), Some(DownloadError::RedirectNotAbsolute));
    assert!(foreign.requests().is_empty());
    assert!(setup.storage_paths().is_empty());
}

#[tokio::test]
async fn redirects_with_credentials_or_a_port_are_refused() {
    let setup = Setup::start().await;
    let port = setup.github.storage.addr().port();
    let with_credentials = format!("http://relay:hunter2@127.0.0.1:{port}{}", storage_path(CHECKSUM_ID));
    let error = redirected_to(&setup, &with_credentials).await;
    assert_eq!(rule(&error), Some(DownloadError::RedirectWithCredentials));
    let error = redirected_to(&setup, "https://objects.githubusercontent.com:8443/blob").await;
    assert_eq!(rule(&error), Some(DownloadError::RedirectWithPort));
    assert!(setup.storage_paths().is_empty());
}

#[tokio::test]
async fn only_302_is_followed() {
    let setup = Setup::start().await;
    for status in [301, 303, 307, 308] {
        let location = setup.github.storage_url(CHECKSUM_ID);
        setup.github.api.route("GET", &asset_path(CHECKSUM_ID), Reply::redirect(status, &location));
        let error = refused(&setup, &setup.downloader()).await;
        assert_eq!(rule(&error), Some(DownloadError::UnexpectedStatus { status }));
    }
    assert!(setup.storage_paths().is_empty());
}

/// The archive's redirect chain: API → github.com → objects → (objects again →) storage.
fn chain(setup: &Setup, redirects: usize) {
    let github = &setup.github;
    let download = format!("/CrimsonSoul/Relay/releases/download/v1.3.0/{}", archive_asset_name(&version()));
    github.api.route("GET", &asset_path(ARCHIVE_ID), Reply::redirect(302, &github.web.url(&download)));
    github.web.route("GET", &download, Reply::redirect(302, &github.objects.url("/blob/1")));
    let last = if redirects == 3 { "/blob/1" } else { "/blob/2" };
    if redirects == 4 {
        github.objects.route("GET", "/blob/1", Reply::redirect(302, &github.objects.url("/blob/2")));
    }
    github.objects.route("GET", last, Reply::redirect(302, &github.storage_url(ARCHIVE_ID)));
}

#[tokio::test]
async fn three_redirects_are_followed_and_a_fourth_is_refused() {
    let setup = Setup::start().await;
    chain(&setup, 3);
    let (result, _) = setup.download(&setup.downloader()).await;
    assert_eq!(result.unwrap().archive_sha256, sha256(&setup.files.archive));

    let setup = Setup::start().await;
    chain(&setup, 4);
    let error = refused(&setup, &setup.downloader()).await;
    assert_eq!(rule(&error), Some(DownloadError::TooManyRedirects));
    assert!(!setup.storage_paths().contains(&storage_path(ARCHIVE_ID)));
}

#[tokio::test]
async fn the_declared_length_must_equal_the_metadata_size() {
    let setup = Setup::start().await;
    let archive = setup.files.archive.clone();
    let size = archive.len() as u64;
    for declared in [size + 1, size - 1] {
        let reply = Reply::content("application/octet-stream", archive.clone()).declared_length(declared);
        setup.github.serve_stored(ARCHIVE_ID, reply);
        let error = refused(&setup, &setup.downloader()).await;
        assert_eq!(rule(&error), Some(DownloadError::LengthMismatch), "declared {declared}");
        assert_eq!(error.failure(), UpdateFailure::VerificationFailed);
    }
    setup.github.serve_stored(ARCHIVE_ID, Reply::content("application/octet-stream", archive.clone()).chunked());
    let error = refused(&setup, &setup.downloader()).await;
    assert_eq!(rule(&error), Some(DownloadError::LengthMissing));
}

#[tokio::test]
async fn a_body_cut_short_is_refused() {
    let setup = Setup::start().await;
    let archive = setup.files.archive.clone();
    let cut = Reply::content("application/octet-stream", archive[..archive.len() - 100].to_vec())
        .declared_length(archive.len() as u64);
    setup.github.serve_stored(ARCHIVE_ID, cut);
    let error = refused(&setup, &setup.downloader()).await;
    assert_eq!(rule(&error), Some(DownloadError::TooShort), "{error:?}");
    assert_eq!(error.failure(), UpdateFailure::VerificationFailed);
}

#[tokio::test]
async fn headers_then_silence_hit_the_deadline() {
    let setup = Setup::start().await;
    let size = setup.files.archive.len() as u64;
    let stall = Reply::content("application/octet-stream", Vec::new()).declared_length(size).stall_after_headers();
    setup.github.serve_stored(ARCHIVE_ID, stall);
    let downloader = setup.downloader_with(Duration::from_millis(300), setup.publisher.key.clone());
    let error = refused(&setup, &downloader).await;
    let origin = setup.github.storage.base_url();
    assert!(matches!(&error, UpdateDownloadError::Http(HttpError::Timeout { origin: o }) if *o == origin), "{error:?}");
    assert_eq!(error.failure(), UpdateFailure::DownloadFailed);
}

#[tokio::test]
async fn cancellation_during_the_body_leaves_nothing_behind() {
    let setup = Setup::start().await;
    let downloader = setup.downloader();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let mut cancel_once_bytes_arrive = |p: DownloadProgress| {
        if p.bytes_done > 0 {
            trigger.cancel();
        }
    };
    let target = target(&setup.files);
    let result = bounded(downloader.download(&setup.root, &target, &mut cancel_once_bytes_arrive, &cancel)).await;
    let error = result.unwrap_err();
    assert!(matches!(error, UpdateDownloadError::Cancelled), "{error:?}");
    assert_eq!(error.failure(), UpdateFailure::Cancelled);
    assert_eq!(setup.root_entries(), Vec::<String>::new());
}

#[tokio::test]
async fn cancellation_while_the_body_stalls_ends_the_download_before_its_deadline() {
    let setup = Setup::start().await;
    let size = setup.files.archive.len() as u64;
    let stall = Reply::content("application/octet-stream", Vec::new()).declared_length(size).stall_after_headers();
    setup.github.serve_stored(ARCHIVE_ID, stall);
    // The deadline is far beyond the test's own 20 s guard: only the token can end this.
    let downloader = setup.downloader_with(Duration::from_secs(600), setup.publisher.key.clone());
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    // The first report comes once the archive's headers are in, before any body byte.
    let mut cancel_at_the_first_report = |_: DownloadProgress| trigger.cancel();
    let target = target(&setup.files);
    let result = bounded(downloader.download(&setup.root, &target, &mut cancel_at_the_first_report, &cancel)).await;
    assert!(matches!(result, Err(UpdateDownloadError::Cancelled)), "{result:?}");
    assert_eq!(setup.root_entries(), Vec::<String>::new());
    let served = setup.github.storage.wait_for_served(3).await;
    assert!(served.iter().any(|s| s.path == storage_path(ARCHIVE_ID) && !s.completed), "{served:?}");
}

#[tokio::test]
async fn a_cancelled_token_sends_nothing() {
    let setup = Setup::start().await;
    let cancel = CancellationToken::new();
    cancel.cancel();
    let target = target(&setup.files);
    let result = bounded(setup.downloader().download(&setup.root, &target, &mut |_| {}, &cancel)).await;
    assert!(matches!(result, Err(UpdateDownloadError::Cancelled)), "{result:?}");
    assert_eq!(setup.github.request_count(), 0);
    assert_eq!(setup.root_entries(), Vec::<String>::new());
}

#[tokio::test]
async fn an_error_status_is_a_download_failure() {
    let setup = Setup::start().await;
    setup.github.serve_stored(ARCHIVE_ID, Reply::status(404));
    let error = refused(&setup, &setup.downloader()).await;
    assert_eq!(rule(&error), Some(DownloadError::UnexpectedStatus { status: 404 }));
    assert_eq!(error.failure(), UpdateFailure::DownloadFailed);
}

/// A tracing writer that keeps everything written to it.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn logs_and_errors_name_origins_only() {
    let logs = Captured::default();
    let sink = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let setup = Setup::start().await;
    let mut messages = Vec::new();
    messages.push(redirected_to(&setup, "https://evil.example/blob/hunter2?sig=hunter2").await.to_string());
    setup.github.api.route(
        "GET",
        &asset_path(CHECKSUM_ID),
        Reply::redirect(302, &setup.github.storage_url(CHECKSUM_ID)),
    );
    setup.github.serve_stored(CHECKSUM_ID, Reply::status(500));
    messages.push(refused(&setup, &setup.downloader()).await.to_string());
    let logged = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(logged.contains(&setup.github.api.base_url()), "{logged}");
    for text in messages.iter().chain([&logged]) {
        for secret in ["hunter2", "sig=", "/repos/", "github-production-release-asset", "/blob"] {
            assert!(!text.contains(secret), "{secret} leaked: {text}");
        }
    }
}
