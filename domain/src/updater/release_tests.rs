//! Discovery rules: the fixed endpoints and asset names, the HTTP facts (status, content type,
//! size), the refusals that yield no check (draft, prerelease, bad tag, malformed), the
//! advisory-only releases with each typed reason (mutability, commit, asset count, names,
//! duplicates, state, id, URL, size, digest), the installable shape, the re-fetch agreement,
//! and properties: no body panics the evaluation and a check is installable only with its
//! three assets.

use super::*;
use crate::updater::recovery::ReleaseFingerprint;
use proptest::prelude::*;
use serde_json::json;

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";
const DIGEST_A: &str = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const DIGEST_B: &str = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
const DIGEST_C: &str = "sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc";

fn current() -> Version {
    Version::new(1, 2, 3)
}

fn asset(name: &str, id: u64, size: u64, digest: &str) -> Value {
    json!({
        "name": name,
        "id": id,
        "url": format!("https://api.github.com/repos/CrimsonSoul/Relay/releases/assets/{id}"),
        "browser_download_url": format!("https://github.com/CrimsonSoul/Relay/releases/download/v1.3.0/{name}"),
        "state": "uploaded",
        "size": size,
        "digest": digest,
        "content_type": "application/zip",
    })
}

fn release() -> Value {
    json!({
        "tag_name": "v1.3.0",
        "name": "Relay 1.3.0",
        "body": "## Fixes\n- a fix",
        "draft": false,
        "prerelease": false,
        "immutable": true,
        "target_commitish": COMMIT,
        "published_at": "2026-01-02T03:04:05Z",
        "assets": [
            asset("relay-v1.3.0-linux-x86_64.zip", 101, 40_000_000, DIGEST_A),
            asset("relay-v1.3.0-linux-x86_64.zip.sha256", 102, 97, DIGEST_B),
            asset("relay-v1.3.0-linux-x86_64.zip.minisig", 103, 352, DIGEST_C),
        ],
    })
}

fn check(value: &Value) -> ReleaseCheck {
    release_check_from_json(value, current()).unwrap()
}

fn reasons(value: &Value) -> Vec<NotInstallableReason> {
    check(value).not_installable_reasons
}

fn facts(status: u16, content_type: Option<&str>, body_len: u64) -> HttpFacts<'_> {
    HttpFacts { status, content_type, content_length: Some(body_len), body_len }
}

#[test]
fn endpoints_and_asset_names_are_fixed() {
    let version = Version::new(1, 3, 0);
    assert_eq!(LATEST_RELEASE_URL, "https://api.github.com/repos/CrimsonSoul/Relay/releases/latest");
    assert_eq!(RELEASE_HISTORY_URL, "https://api.github.com/repos/CrimsonSoul/Relay/releases?per_page=20");
    assert_eq!(release_by_tag_url(&version), "https://api.github.com/repos/CrimsonSoul/Relay/releases/tags/v1.3.0");
    assert_eq!(release_page_url(None), "https://github.com/CrimsonSoul/Relay/releases");
    assert_eq!(release_page_url(Some(&version)), "https://github.com/CrimsonSoul/Relay/releases/tag/v1.3.0");
    assert_eq!(asset_api_url(7), "https://api.github.com/repos/CrimsonSoul/Relay/releases/assets/7");
    assert_eq!(archive_asset_name(&version), "relay-v1.3.0-linux-x86_64.zip");
    assert_eq!(checksum_asset_name(&version), "relay-v1.3.0-linux-x86_64.zip.sha256");
    assert_eq!(signature_asset_name(&version), "relay-v1.3.0-linux-x86_64.zip.minisig");
    assert_eq!(discovery_user_agent(&current()), "Relay/1.2.3");
    assert_eq!((DISCOVERY_TIMEOUT_MS, CHECK_INTERVAL_MS, MAX_RELEASE_JSON_BYTES), (8_000, 900_000, 65_536));
}

#[test]
fn only_a_200_json_answer_of_at_most_64_kib_is_read() {
    assert_eq!(check_discovery_response(&facts(200, Some("application/json; charset=utf-8"), 10)), Ok(()));
    assert_eq!(check_discovery_response(&facts(200, Some("Application/JSON"), 10)), Ok(()));
    assert_eq!(
        check_discovery_response(&facts(302, Some("application/json"), 10)),
        Err(DiscoveryError::UnexpectedStatus { status: 302 })
    );
    assert_eq!(check_discovery_response(&facts(200, Some("text/html"), 10)), Err(DiscoveryError::NotJson));
    assert_eq!(check_discovery_response(&facts(200, Some("application/jsonp"), 10)), Err(DiscoveryError::NotJson));
    assert_eq!(check_discovery_response(&facts(200, None, 10)), Err(DiscoveryError::NotJson));
    assert_eq!(check_discovery_response(&facts(200, Some("application/json"), 65_536)), Ok(()));
    assert_eq!(check_discovery_response(&facts(200, Some("application/json"), 65_537)), Err(DiscoveryError::TooLarge));
    let declared_too_large =
        HttpFacts { status: 200, content_type: Some("application/json"), content_length: Some(70_000), body_len: 5 };
    assert_eq!(check_discovery_response(&declared_too_large), Err(DiscoveryError::TooLarge));
}

#[test]
fn the_whole_answer_is_evaluated_from_facts_and_body() {
    let body = serde_json::to_vec(&release()).unwrap();
    let ok = facts(200, Some("application/json"), body.len() as u64);
    assert!(evaluate_latest_release(&ok, &body, current()).unwrap().installable);
    assert_eq!(evaluate_latest_release(&ok, b"{not json", current()), Err(DiscoveryError::InvalidJson));
    assert_eq!(evaluate_latest_release(&ok, b"[]", current()), Err(DiscoveryError::Malformed));
    let huge = vec![b' '; 65_537];
    assert_eq!(evaluate_latest_release(&ok, &huge, current()), Err(DiscoveryError::TooLarge));
    assert_eq!(DiscoveryError::InvalidJson.code(), "invalid_json");
}

#[test]
fn an_immutable_release_with_exactly_the_three_assets_is_installable() {
    let result = check(&release());
    assert_eq!(result.current_version, current());
    assert_eq!(result.latest_version, Version::new(1, 3, 0));
    assert_eq!(result.target_commitish.map(|c| c.to_hex()), Some(COMMIT.to_owned()));
    assert!(result.update_available);
    assert!(result.installable);
    assert_eq!(result.archive_size, Some(40_000_000));
    assert_eq!(result.not_installable_reasons, vec![]);
    let assets = result.assets.unwrap();
    assert_eq!(assets.archive.name, "relay-v1.3.0-linux-x86_64.zip");
    assert_eq!((assets.archive.id, assets.archive.size), (101, 40_000_000));
    assert_eq!(assets.archive.digest.to_hex(), "a".repeat(64));
    assert_eq!(assets.checksum.api_url, "https://api.github.com/repos/CrimsonSoul/Relay/releases/assets/102");
    assert_eq!(assets.signature.digest.to_hex(), "c".repeat(64));
    let notes = result.release_notes;
    assert_eq!((notes.title.as_str(), notes.body.as_str()), ("Relay 1.3.0", "## Fixes\n- a fix"));
    assert_eq!(notes.published_at.as_deref(), Some("2026-01-02T03:04:05Z"));
    assert!(notes.immutable);
    assert_eq!(
        serde_json::to_value(NotInstallableReason::MissingAsset(AssetKind::Signature)).unwrap(),
        json!({"code": "missing-asset", "asset": "signature"})
    );
}

#[test]
fn drafts_prereleases_and_bad_tags_yield_no_check() {
    let with = |key: &str, value: Value| {
        let mut release = release();
        release[key] = value;
        release_check_from_json(&release, current())
    };
    assert_eq!(with("draft", json!(true)), Err(DiscoveryError::Draft));
    assert_eq!(with("prerelease", json!(true)), Err(DiscoveryError::Prerelease));
    assert_eq!(with("draft", json!(null)), Err(DiscoveryError::Malformed));
    assert_eq!(with("prerelease", json!("false")), Err(DiscoveryError::Malformed));
    assert_eq!(with("tag_name", json!(130)), Err(DiscoveryError::Malformed));
    assert_eq!(with("tag_name", json!("1.3.0")), Err(DiscoveryError::InvalidTag(VersionError::NotATag)));
    assert_eq!(with("tag_name", json!("v1.3.0-rc.1")), Err(DiscoveryError::InvalidTag(VersionError::Malformed)));
    assert_eq!(release_check_from_json(&json!("v1.3.0"), current()), Err(DiscoveryError::Malformed));
    assert_eq!(DiscoveryError::Draft.code(), "release_draft");
}

#[test]
fn an_older_or_equal_release_is_not_an_update() {
    let mut same = release();
    same["tag_name"] = json!("v1.2.3");
    same["assets"] = json!([
        asset("relay-v1.2.3-linux-x86_64.zip", 1, 10, DIGEST_A),
        asset("relay-v1.2.3-linux-x86_64.zip.sha256", 2, 10, DIGEST_B),
        asset("relay-v1.2.3-linux-x86_64.zip.minisig", 3, 10, DIGEST_C),
    ]);
    let result = check(&same);
    assert!(!result.update_available);
    assert!(!result.installable, "never offered as an install");
    assert_eq!(result.not_installable_reasons, vec![]);
}

#[test]
fn a_mutable_release_is_advisory_only() {
    for immutable in [json!(false), json!(null), json!("true")] {
        let mut mutable = release();
        mutable["immutable"] = immutable;
        let result = check(&mutable);
        assert!(result.update_available);
        assert!(!result.installable);
        assert!(!result.release_notes.immutable);
        assert_eq!(result.not_installable_reasons, vec![NotInstallableReason::NotImmutable]);
        assert_eq!(result.assets, None);
    }
    let mut missing = release();
    missing.as_object_mut().unwrap().remove("immutable");
    assert_eq!(reasons(&missing), vec![NotInstallableReason::NotImmutable]);
}

#[test]
fn the_target_must_be_a_full_commit() {
    for commitish in [json!("main"), json!(&COMMIT[..7]), json!(COMMIT.to_uppercase()), json!(null)] {
        let mut release = release();
        release["target_commitish"] = commitish;
        assert_eq!(reasons(&release), vec![NotInstallableReason::TargetCommitInvalid]);
        assert_eq!(check(&release).target_commitish, None);
    }
}

#[test]
fn exactly_the_three_expected_asset_names_are_required() {
    use NotInstallableReason as R;
    let mut missing_sig = release();
    missing_sig["assets"].as_array_mut().unwrap().pop();
    assert_eq!(reasons(&missing_sig), vec![R::AssetCount, R::MissingAsset(AssetKind::Signature)]);

    let mut extra = release();
    extra["assets"].as_array_mut().unwrap().push(asset("notes.txt", 104, 5, DIGEST_A));
    assert_eq!(reasons(&extra), vec![R::AssetCount, R::UnexpectedAsset]);

    let mut case_variant = release();
    case_variant["assets"][0]["name"] = json!("Relay-v1.3.0-linux-x86_64.zip");
    assert_eq!(reasons(&case_variant), vec![R::UnexpectedAsset, R::MissingAsset(AssetKind::Archive)]);

    let mut bare_sig = release();
    bare_sig["assets"][2]["name"] = json!("relay-v1.3.0-linux-x86_64.zip.sig");
    assert_eq!(reasons(&bare_sig), vec![R::UnexpectedAsset, R::MissingAsset(AssetKind::Signature)]);

    let mut windows = release();
    windows["assets"][0]["name"] = json!("relay-v1.3.0-windows-x64.zip");
    assert_eq!(reasons(&windows), vec![R::UnexpectedAsset, R::MissingAsset(AssetKind::Archive)]);

    let mut other_version = release();
    other_version["assets"][1]["name"] = json!("relay-v1.2.9-linux-x86_64.zip.sha256");
    assert_eq!(reasons(&other_version), vec![R::UnexpectedAsset, R::MissingAsset(AssetKind::Checksum)]);

    let mut duplicate = release();
    duplicate["assets"][2] = asset("relay-v1.3.0-linux-x86_64.zip", 105, 10, DIGEST_A);
    let result = check(&duplicate);
    assert_eq!(
        result.not_installable_reasons,
        vec![R::DuplicateAsset(AssetKind::Archive), R::MissingAsset(AssetKind::Signature)]
    );
    assert_eq!(result.archive_size, None, "which archive's size would be ambiguous");

    let mut not_a_list = release();
    not_a_list["assets"] = json!({});
    assert_eq!(reasons(&not_a_list), vec![R::AssetsNotAList]);
    assert_eq!(R::AssetCount.code(), "asset_count");
}

#[test]
fn each_asset_must_be_uploaded_with_a_positive_id_its_fixed_url_a_bounded_size_and_a_digest() {
    use AssetKind::{Archive, Checksum, Signature};
    use NotInstallableReason as R;
    let with = |index: usize, key: &str, value: Value| {
        let mut release = release();
        release["assets"][index][key] = value;
        reasons(&release)
    };
    assert_eq!(with(0, "state", json!("starter")), vec![R::AssetNotUploaded(Archive)]);
    assert_eq!(with(1, "state", json!(null)), vec![R::AssetNotUploaded(Checksum)]);
    assert_eq!(with(2, "id", json!(0)), vec![R::AssetIdInvalid(Signature)]);
    assert_eq!(with(2, "id", json!(-3)), vec![R::AssetIdInvalid(Signature)]);
    assert_eq!(with(2, "id", json!(103.5)), vec![R::AssetIdInvalid(Signature)]);
    assert_eq!(with(2, "id", json!(9_007_199_254_740_992u64)), vec![R::AssetIdInvalid(Signature)]);
    assert_eq!(with(2, "id", json!(104)), vec![R::AssetUrlMismatch(Signature)], "URL names another id");
    assert_eq!(
        with(0, "url", json!("https://api.github.com/repos/Someone/Relay/releases/assets/101")),
        vec![R::AssetUrlMismatch(Archive)]
    );
    assert_eq!(
        with(0, "url", json!("https://api.github.com/repos/CrimsonSoul/Relay/releases/assets/101/")),
        vec![R::AssetUrlMismatch(Archive)]
    );
    assert_eq!(with(0, "size", json!(0)), vec![R::AssetSizeOutOfBounds(Archive)]);
    assert_eq!(with(0, "size", json!(512 * 1024 * 1024 + 1)), vec![R::AssetSizeOutOfBounds(Archive)]);
    assert!(with(0, "size", json!(512 * 1024 * 1024)).is_empty());
    assert_eq!(with(1, "size", json!(257)), vec![R::AssetSizeOutOfBounds(Checksum)]);
    assert!(with(1, "size", json!(256)).is_empty());
    assert_eq!(with(2, "size", json!(1025)), vec![R::AssetSizeOutOfBounds(Signature)]);
    assert!(with(2, "size", json!(1024)).is_empty());
    assert_eq!(with(0, "digest", json!(null)), vec![R::AssetDigestInvalid(Archive)]);
    assert_eq!(with(0, "digest", json!(&DIGEST_A[7..])), vec![R::AssetDigestInvalid(Archive)]);
    assert_eq!(with(0, "digest", json!(DIGEST_A.replace("sha256", "sha512"))), vec![R::AssetDigestInvalid(Archive)]);
    assert_eq!(with(0, "digest", json!(DIGEST_A.to_uppercase())), vec![R::AssetDigestInvalid(Archive)]);
    let mut out_of_bounds = release();
    out_of_bounds["assets"][0]["size"] = json!(0);
    assert_eq!(check(&out_of_bounds).archive_size, None);
}

#[test]
fn a_missing_name_or_body_falls_back_and_odd_published_at_is_dropped() {
    let mut bare = release();
    bare["name"] = json!("  ");
    bare.as_object_mut().unwrap().remove("body");
    bare["published_at"] = json!("x".repeat(41));
    let notes = check(&bare).release_notes;
    assert_eq!((notes.title.as_str(), notes.body.as_str(), notes.published_at), ("v1.3.0", "", None));
}

fn target(check: &ReleaseCheck) -> InstallTarget {
    InstallTarget {
        version: check.latest_version,
        commit: check.target_commitish.unwrap(),
        assets: check.assets.clone().unwrap(),
    }
}

#[test]
fn the_refetch_before_a_download_must_agree_with_the_discovery() {
    let discovered = check(&release());
    let none = QuarantineHistory::new();
    assert_eq!(confirm_refetch(&discovered, &check(&release()), &none), Ok(target(&discovered)));

    let mut newer = release();
    newer["tag_name"] = json!("v1.3.1");
    assert_eq!(confirm_refetch(&discovered, &check(&newer), &none), Err(ResolveError::ReleaseChanged));

    let mut mutable = release();
    mutable["immutable"] = json!(false);
    assert_eq!(confirm_refetch(&discovered, &check(&mutable), &none), Err(ResolveError::NotImmutable));

    let mut broken = release();
    broken["assets"][0]["state"] = json!("open");
    assert_eq!(confirm_refetch(&discovered, &check(&broken), &none), Err(ResolveError::NotInstallable));

    let mut recommitted = release();
    recommitted["target_commitish"] = json!("f".repeat(40));
    assert_eq!(confirm_refetch(&discovered, &check(&recommitted), &none), Err(ResolveError::ReleaseChanged));

    let mut redigested = release();
    redigested["assets"][0]["digest"] = json!(DIGEST_B);
    assert_eq!(confirm_refetch(&discovered, &check(&redigested), &none), Err(ResolveError::ReleaseChanged));

    let mut reuploaded = release();
    reuploaded["assets"][2] = asset("relay-v1.3.0-linux-x86_64.zip.minisig", 203, 352, DIGEST_C);
    assert_eq!(confirm_refetch(&discovered, &check(&reuploaded), &none), Err(ResolveError::ReleaseChanged));

    let not_newer = release_check_from_json(&release(), Version::new(1, 3, 0)).unwrap();
    assert_eq!(confirm_refetch(&discovered, &not_newer, &none), Err(ResolveError::NotNewer));

    let mut quarantine = QuarantineHistory::new();
    quarantine.quarantine(ReleaseFingerprint::parse(&format!("v1.3.0@{COMMIT}")).unwrap());
    assert_eq!(confirm_refetch(&discovered, &check(&release()), &quarantine), Err(ResolveError::Quarantined));
    assert_eq!(ResolveError::ReleaseChanged.code(), "release_changed");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bodies_never_panic(body in proptest::collection::vec(any::<u8>(), 0..256)) {
        let facts = facts(200, Some("application/json"), body.len() as u64);
        let _ = evaluate_latest_release(&facts, &body, current());
    }

    #[test]
    fn arbitrary_json_text_never_panics(text in "\\PC{0,200}") {
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            let _ = release_check_from_json(&value, current());
        }
    }

    #[test]
    fn installable_exactly_when_no_reason_and_newer(
        drop_index in proptest::option::of(0usize..3),
        immutable in any::<bool>(),
        size in 0u64..=600 * 1024 * 1024,
        major in 0u64..3,
    ) {
        let mut value = release();
        value["tag_name"] = json!(format!("v{major}.3.0"));
        value["immutable"] = json!(immutable);
        let names = [format!("relay-v{major}.3.0-linux-x86_64.zip"), format!("relay-v{major}.3.0-linux-x86_64.zip.sha256"), format!("relay-v{major}.3.0-linux-x86_64.zip.minisig")];
        for (index, name) in names.iter().enumerate() {
            value["assets"][index]["name"] = json!(name);
        }
        value["assets"][0]["size"] = json!(size);
        if let Some(index) = drop_index {
            value["assets"].as_array_mut().unwrap().remove(index);
        }
        let result = check(&value);
        let expected = drop_index.is_none() && immutable && (1..=MAX_ARCHIVE_BYTES).contains(&size) && major >= 1;
        prop_assert_eq!(result.installable, expected);
        prop_assert_eq!(result.assets.is_some(), result.not_installable_reasons.is_empty());
        prop_assert_eq!(result.update_available, major >= 1);
    }
}

#[test]
fn a_repair_takes_only_the_exact_immutable_release_of_the_retained_build() {
    let commit = CommitSha::parse_hex(COMMIT).unwrap();
    let version = Version::new(1, 3, 0);
    // Older than the running version does not matter for a repair (here 1.3.0 is newer; below
    // the same release judged from 1.4.0).
    let older_than_running = release_check_from_json(&release(), Version::new(1, 4, 0)).unwrap();
    assert!(!older_than_running.update_available);
    let target = repair_target(&older_than_running, version, commit).unwrap();
    assert_eq!((target.version, target.commit), (version, commit));
    assert_eq!(target.assets.archive.id, 101);

    assert_eq!(repair_target(&check(&release()), Version::new(1, 2, 9), commit), Err(RepairError::VersionMismatch));
    let other = CommitSha::parse_hex(&"f".repeat(40)).unwrap();
    assert_eq!(repair_target(&check(&release()), version, other), Err(RepairError::CommitMismatch));
    let mut mutable = release();
    mutable["immutable"] = json!(false);
    assert_eq!(repair_target(&check(&mutable), version, commit), Err(RepairError::NotImmutable));
    let mut extra = release();
    extra["assets"].as_array_mut().unwrap().push(asset("notes.txt", 104, 10, DIGEST_A));
    assert_eq!(repair_target(&check(&extra), version, commit), Err(RepairError::NotInstallable));
}
