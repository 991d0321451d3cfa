//! The pure rules of the desktop updater and its recovery launcher (Linux x86-64): strict
//! release versions ([`version`]), the fixed GitHub endpoints and the discovery decision
//! ([`release`]), the release notes of Settings → About ([`notes`]), the redirect and byte-count rules of a download ([`download`]), the checksum
//! file and single-member ZIP rules ([`archive`]), the independent minisign (Ed25519) publisher
//! signature of the archive bound to its release ([`signature`]), the check → download → prepare → restart
//! state machine ([`state`]) and retained builds, probation, quarantine and staging names
//! ([`recovery`]). It refuses to perform IO, read clocks or run processes: the updater actor,
//! the infra downloader and the launcher do that and pass bytes, facts and instants in.
//! `docs/updater.md` describes the formats.

pub mod archive;
pub mod digest;
pub mod download;
pub mod notes;
pub mod recovery;
pub mod release;
pub mod signature;
pub mod state;
pub mod version;

pub use archive::{
    check_archive_digests, check_executable_header, check_extraction, check_zip_entries, parse_checksum_file,
    ArchiveError, ZipEntryFacts, EXECUTABLE_NAME,
};
pub use digest::{CommitSha, Sha256Digest};
pub use download::{check_asset_url, check_content_length, next_hop, ByteCounter, DownloadError, Hop};
pub use notes::{parse_release_history, ReleaseNote, ReleaseNotesError};
pub use recovery::{
    decide_probation, plan_retention, staging_cleanup, BuildId, ProbationDecision, ProbationObservation,
    QuarantineHistory, RecoveryError, ReleaseFingerprint, RetainedBuild, RetentionPlan, RollbackReason, StagingCleanup,
    StagingDirName,
};
pub use release::{
    check_discovery_response, check_json_response, confirm_refetch, evaluate_latest_release, release_by_tag_url,
    release_check_from_json, repair_target, AssetKind, DiscoveryError, HttpFacts, InstallTarget, NotInstallableReason,
    ReleaseAsset, ReleaseAssets, ReleaseCheck, ReleaseNotes, RepairError, ResolveError,
};
pub use signature::{
    expected_trusted_comment, parse_signature_file, verify_release_signature, ArchiveSignatureVerifier, PublisherKey,
    SignatureError, SignatureFile,
};
pub use state::{
    CheckOutcome, Transition, TransitionError, UpdateEffect, UpdateEvent, UpdateFailure, UpdatePhase, UpdateSnapshot,
    UpdateState,
};
pub use version::{Version, VersionError};
