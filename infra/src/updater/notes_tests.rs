//! The release history against a fake GitHub API (the real array shape): the request (path,
//! query, GitHub's headers, no credentials), drafts and prereleases skipped, refusals (an
//! oversized answer declared or streamed, a redirect, a non-array, a status), and the cache's
//! atomic round trip with owner-only permissions and the removal of a corrupt cache.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use fake_upstream::Reply;
use tokio_util::sync::CancellationToken;

use super::super::test_support::*;
use super::*;

struct Fixture {
    github: FakeGitHub,
}

async fn fixture() -> Fixture {
    let github = FakeGitHub::start().await;
    let files = ReleaseFiles::signed(&Publisher::new(), b"PK\x03\x04 archive".to_vec());
    github.api.route("GET", HISTORY_PATH, Reply::json(history_json(&files).to_string()));
    Fixture { github }
}

impl Fixture {
    fn fetcher(&self) -> ReleaseNotesFetcher {
        let policy = HttpPolicy { max_body_bytes: MAX_HISTORY_JSON_BYTES, ..test_policy(Duration::from_secs(5)) };
        ReleaseNotesFetcher::with_policy(policy, self.github.hosts(), current()).unwrap()
    }

    fn serve(&self, reply: Reply) {
        self.github.api.route("GET", HISTORY_PATH, reply);
    }

    async fn fetch(&self) -> Result<Vec<ReleaseNote>, NotesFailure> {
        bounded(self.fetcher().fetch(&CancellationToken::new())).await
    }
}

fn notes_error(result: Result<Vec<ReleaseNote>, NotesFailure>) -> ReleaseNotesError {
    match result {
        Err(NotesFailure::Notes(error)) => error,
        other => panic!("not a notes refusal: {other:?}"),
    }
}

#[tokio::test]
async fn the_history_is_asked_for_with_githubs_headers_and_parsed() {
    let fixture = fixture().await;
    let notes = fixture.fetch().await.unwrap();
    let versions: Vec<String> = notes.iter().map(|n| n.version.to_string()).collect();
    assert_eq!(versions, ["1.3.0", "1.2.0"], "the draft and the prerelease are skipped");
    assert_eq!(notes[0].title, "Relay 1.3.0");
    assert_eq!(notes[0].body, "## Fixes\n- the updater");
    assert_eq!(notes[1].body, "## Features\n- first notes");
    assert_eq!(notes[1].published_at.as_deref(), Some("2026-02-01T09:00:00Z"));

    let requests = fixture.github.api.requests();
    let [request] = requests.as_slice() else { panic!("{requests:?}") };
    assert_eq!(request.target, "/repos/CrimsonSoul/Relay/releases?per_page=20");
    assert_eq!(request.header("accept"), Some("application/vnd.github+json"));
    assert_eq!(request.header("x-github-api-version"), Some("2022-11-28"));
    assert_eq!(request.header("user-agent"), Some("Relay/1.2.0"));
    assert_eq!(request.header("authorization"), None);
    assert_eq!(request.header("cookie"), None);
}

#[tokio::test]
async fn oversized_non_array_and_failed_answers_yield_no_notes() {
    let fixture = fixture().await;
    let oversized = format!("[\"{}\"]", "x".repeat(MAX_HISTORY_JSON_BYTES as usize));
    let cases = [
        (Reply::json(oversized.clone()), ReleaseNotesError::TooLarge),
        (Reply::json(oversized).chunked(), ReleaseNotesError::TooLarge),
        (Reply::json("{\"message\": \"Not Found\"}"), ReleaseNotesError::NotAList),
        (Reply::json("[oops"), ReleaseNotesError::InvalidJson),
        (Reply::status(404), ReleaseNotesError::Http(DiscoveryError::UnexpectedStatus { status: 404 })),
        (Reply::content("text/html", "[]"), ReleaseNotesError::Http(DiscoveryError::NotJson)),
    ];
    for (reply, expected) in cases {
        fixture.serve(reply);
        assert_eq!(notes_error(fixture.fetch().await), expected);
    }
    fixture.serve(Reply::status(429).header("Retry-After", "60"));
    let result = fixture.fetch().await;
    assert!(matches!(result, Err(NotesFailure::RateLimited { retry_after_secs: Some(60) })), "{result:?}");
}

#[tokio::test]
async fn a_redirect_is_never_followed() {
    let fixture = fixture().await;
    let elsewhere = fixture.github.web.url(HISTORY_PATH);
    fixture.serve(Reply::redirect(302, &elsewhere));
    let result = fixture.fetch().await;
    assert!(matches!(result, Err(NotesFailure::Http(HttpError::RedirectRefused { .. }))), "{result:?}");
    assert!(fixture.github.web.requests().is_empty());
}

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn the_cache_round_trips_owner_only_and_replaces_the_previous_one() {
    let fixture = fixture().await;
    let notes = fixture.fetch().await.unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let updates = tmp.path().join("relay/updates");
    assert_eq!(read_notes_cache(&updates), None, "no cache yet");

    write_notes_cache(&updates, &notes, 1_800_000_000_000).unwrap();
    let file = updates.join(NOTES_DIR).join(NOTES_CACHE_FILE);
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(&updates.join(NOTES_DIR)), 0o700);
    assert_eq!(read_notes_cache(&updates), Some((notes.clone(), 1_800_000_000_000)));

    write_notes_cache(&updates, &notes[..1], 1_800_000_000_001).unwrap();
    assert_eq!(read_notes_cache(&updates), Some((notes[..1].to_vec(), 1_800_000_000_001)));
    let names: Vec<String> =
        fs::read_dir(updates.join(NOTES_DIR)).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names, [NOTES_CACHE_FILE], "no temporary file is left");
}

#[test]
fn a_corrupt_or_linked_cache_is_ignored_and_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let updates = tmp.path().join("relay/updates");
    write_notes_cache(&updates, &[], 1).unwrap();
    let file = updates.join(NOTES_DIR).join(NOTES_CACHE_FILE);
    for corrupt in [&b"{not json"[..], b"{\"fetched_at_ms\": 1, \"releases\": {}}", b"[]"] {
        fs::write(&file, corrupt).unwrap();
        assert_eq!(read_notes_cache(&updates), None);
        assert!(!file.exists(), "a corrupt cache is removed");
    }
    let target = tmp.path().join("elsewhere.json");
    fs::write(&target, serde_json::to_vec(&notes_cache_json(&[], 5)).unwrap()).unwrap();
    std::os::unix::fs::symlink(&target, &file).unwrap();
    assert_eq!(read_notes_cache(&updates), None, "a link is never followed");
    assert!(fs::symlink_metadata(&file).is_err() && target.exists(), "the link goes, its target stays");
}
