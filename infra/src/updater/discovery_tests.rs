//! Discovery against a fake GitHub API serving the real "latest release" JSON shape: the
//! request (path, GitHub's headers, no credentials), an installable and an advisory release,
//! a rate limit with GitHub's wait, refusals (redirect, status, content type, declared and
//! streamed size, draft, stall with a short deadline), and the re-fetch agreement (same release, changed digest, quarantined,
//! cancelled) with its failure codes.

use std::time::Duration;

use fake_upstream::Reply;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use domain::updater::{NotInstallableReason, QuarantineHistory, UpdateFailure};

use super::super::test_support::*;
use super::*;

struct Fixture {
    github: FakeGitHub,
    files: ReleaseFiles,
}

async fn fixture() -> Fixture {
    let github = FakeGitHub::start().await;
    let files = ReleaseFiles::signed(&Publisher::new(), b"PK\x03\x04 archive".to_vec());
    github.serve(&files);
    Fixture { github, files }
}

impl Fixture {
    fn discovery(&self) -> ReleaseDiscovery {
        self.discovery_with(Duration::from_secs(5))
    }

    fn discovery_with(&self, timeout: Duration) -> ReleaseDiscovery {
        ReleaseDiscovery::with_policy(
            HttpPolicy { max_body_bytes: MAX_RELEASE_JSON_BYTES, ..test_policy(timeout) },
            self.github.hosts(),
            current(),
        )
        .unwrap()
    }

    fn serve_latest(&self, reply: Reply) {
        self.github.api.route("GET", LATEST_PATH, reply);
    }

    fn serve_json(&self, json: &Value) {
        self.serve_latest(Reply::content("application/json; charset=utf-8", json.to_string()));
    }

    async fn check(&self) -> Result<ReleaseCheck, DiscoveryFailure> {
        bounded(self.discovery().check_latest(&CancellationToken::new())).await
    }
}

fn release_error(result: Result<ReleaseCheck, DiscoveryFailure>) -> DiscoveryError {
    match result {
        Err(DiscoveryFailure::Release(error)) => error,
        other => panic!("not a release refusal: {other:?}"),
    }
}

#[tokio::test]
async fn the_latest_release_is_asked_for_with_githubs_headers_and_judged() {
    let fixture = fixture().await;
    let check = fixture.check().await.unwrap();
    assert!(check.installable && check.update_available, "{:?}", check.not_installable_reasons);
    assert_eq!((check.current_version, check.latest_version), (current(), version()));
    assert_eq!(check.assets, Some(target(&fixture.files).assets));

    let requests = fixture.github.api.requests();
    let [request] = requests.as_slice() else { panic!("{requests:?}") };
    assert_eq!((request.method.as_str(), request.target.as_str()), ("GET", LATEST_PATH));
    assert_eq!(request.header("accept"), Some("application/vnd.github+json"));
    assert_eq!(request.header("x-github-api-version"), Some("2022-11-28"));
    assert_eq!(request.header("user-agent"), Some("Relay/1.2.0"));
    assert_eq!(request.header("authorization"), None);
    assert_eq!(request.header("cookie"), None);
}

#[tokio::test]
async fn a_mutable_release_is_advisory_only() {
    let fixture = fixture().await;
    let mut json = release_json(&fixture.files);
    json["immutable"] = Value::Bool(false);
    fixture.serve_json(&json);
    let check = fixture.check().await.unwrap();
    assert!(check.update_available && !check.installable);
    assert_eq!(check.not_installable_reasons, [NotInstallableReason::NotImmutable]);
}

#[tokio::test]
async fn answers_the_domain_refuses_yield_no_check() {
    let fixture = fixture().await;
    let json = release_json(&fixture.files).to_string();
    let oversized = format!("{{\"padding\":\"{}\"}}", "x".repeat(MAX_RELEASE_JSON_BYTES as usize));
    let cases = [
        (Reply::status(404), DiscoveryError::UnexpectedStatus { status: 404 }),
        (Reply::status(500), DiscoveryError::UnexpectedStatus { status: 500 }),
        (Reply::content("text/html", json.clone()), DiscoveryError::NotJson),
        (Reply::content("application/vnd.github+json", json.clone()), DiscoveryError::NotJson),
        (Reply::json(oversized.clone()), DiscoveryError::TooLarge),
        (Reply::json(oversized).chunked(), DiscoveryError::TooLarge),
        (Reply::json("{not json"), DiscoveryError::InvalidJson),
    ];
    for (reply, expected) in cases {
        fixture.serve_latest(reply);
        assert_eq!(release_error(fixture.check().await), expected);
    }
    let mut draft = release_json(&fixture.files);
    draft["draft"] = Value::Bool(true);
    fixture.serve_json(&draft);
    assert_eq!(release_error(fixture.check().await), DiscoveryError::Draft);
}

#[tokio::test]
async fn a_rate_limit_carries_githubs_wait() {
    let fixture = fixture().await;
    fixture.serve_latest(Reply::status(429).header("Retry-After", "60"));
    let result = fixture.check().await;
    assert!(matches!(result, Err(DiscoveryFailure::RateLimited { retry_after_secs: Some(60) })), "{result:?}");
    assert_eq!(result.unwrap_err().code(), "github_rate_limited");
    fixture.serve_latest(Reply::status(429));
    let result = fixture.check().await;
    assert!(matches!(result, Err(DiscoveryFailure::RateLimited { retry_after_secs: None })), "{result:?}");
    fixture.serve_latest(Reply::status(503).header("Retry-After", "5"));
    let result = fixture.check().await;
    assert!(matches!(result, Err(DiscoveryFailure::RateLimited { retry_after_secs: Some(5) })), "{result:?}");
}

#[tokio::test]
async fn a_redirect_is_never_followed() {
    let fixture = fixture().await;
    let elsewhere = fixture.github.web.url("/repos/CrimsonSoul/Relay/releases/latest");
    fixture.serve_latest(Reply::redirect(302, &elsewhere));
    let result = fixture.check().await;
    assert!(matches!(result, Err(DiscoveryFailure::Http(HttpError::RedirectRefused { .. }))), "{result:?}");
    assert!(fixture.github.web.requests().is_empty());
}

#[tokio::test]
async fn headers_then_silence_hit_the_deadline() {
    let fixture = fixture().await;
    fixture.serve_latest(Reply::json("{}").declared_length(100).stall_after_headers());
    let result =
        bounded(fixture.discovery_with(Duration::from_millis(300)).check_latest(&CancellationToken::new())).await;
    assert!(matches!(result, Err(DiscoveryFailure::Http(HttpError::Timeout { .. }))), "{result:?}");
}

#[tokio::test]
async fn the_refetch_must_agree_with_the_discovery() {
    let fixture = fixture().await;
    let discovery = fixture.discovery();
    let cancel = CancellationToken::new();
    let discovered = discovery.check_latest(&cancel).await.unwrap();
    let none = QuarantineHistory::new();

    let confirmed = bounded(discovery.refetch_and_confirm(&discovered, &none, &cancel)).await.unwrap();
    assert_eq!(confirmed, target(&fixture.files));
    assert_eq!(fixture.github.api.requests().len(), 2, "the re-fetch asks GitHub again");

    let mut changed = release_json(&fixture.files);
    changed["assets"][0]["digest"] = Value::String(format!("sha256:{}", sha256(b"another archive")));
    fixture.serve_json(&changed);
    let error = bounded(discovery.refetch_and_confirm(&discovered, &none, &cancel)).await.unwrap_err();
    assert!(matches!(error, ConfirmError::Resolve(ResolveError::ReleaseChanged)), "{error:?}");
    assert_eq!(error.failure(), UpdateFailure::ReleaseChanged);

    fixture.serve_json(&release_json(&fixture.files));
    let quarantined = QuarantineHistory::from_entries(&[format!("v1.3.0@{COMMIT}")]).unwrap();
    let error = bounded(discovery.refetch_and_confirm(&discovered, &quarantined, &cancel)).await.unwrap_err();
    assert_eq!(error.failure(), UpdateFailure::ReleaseQuarantined);

    let mut draft = release_json(&fixture.files);
    draft["draft"] = Value::Bool(true);
    fixture.serve_json(&draft);
    let error = bounded(discovery.refetch_and_confirm(&discovered, &none, &cancel)).await.unwrap_err();
    assert_eq!(error.failure(), UpdateFailure::ReleaseChanged);

    fixture.serve_latest(Reply::status(502));
    let error = bounded(discovery.refetch_and_confirm(&discovered, &none, &cancel)).await.unwrap_err();
    assert_eq!(error.failure(), UpdateFailure::DownloadFailed);

    let cancelled = CancellationToken::new();
    cancelled.cancel();
    let error = bounded(discovery.refetch_and_confirm(&discovered, &none, &cancelled)).await.unwrap_err();
    assert_eq!(error.failure(), UpdateFailure::Cancelled);
}

#[tokio::test]
async fn a_repair_asks_for_exactly_its_tag_and_judges_the_answer_like_a_discovery() {
    let fixture = fixture().await;
    let discovery = ReleaseDiscovery::with_policy(
        HttpPolicy { max_body_bytes: MAX_RELEASE_JSON_BYTES, ..test_policy(Duration::from_secs(5)) },
        fixture.github.hosts(),
        Version::new(1, 4, 0),
    )
    .unwrap();
    let check = bounded(discovery.fetch_release(version(), &CancellationToken::new())).await.unwrap();
    assert!(!check.update_available, "1.3.0 is older than the running 1.4.0");
    let target = domain::updater::repair_target(&check, version(), commit()).unwrap();
    assert_eq!(target.assets, super::super::test_support::target(&fixture.files).assets);
    let requests = fixture.github.api.requests();
    let [request] = requests.as_slice() else { panic!("{requests:?}") };
    assert_eq!((request.method.as_str(), request.target.as_str()), ("GET", TAG_PATH));
    assert_eq!(request.header("accept"), Some("application/vnd.github+json"));
    assert_eq!(request.header("authorization"), None);

    let missing = bounded(discovery.fetch_release(Version::new(1, 1, 0), &CancellationToken::new())).await;
    assert!(matches!(release_error(missing), DiscoveryError::UnexpectedStatus { status: 404 }));
}
