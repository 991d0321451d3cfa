//! The desktop updater's IO (issue #14) on top of the pure rules in `domain::updater`:
//! discovery of the latest release on GitHub and its re-fetch before a download
//! ([`discovery`]), the verified download of a release's three assets into a fresh private
//! version directory ([`download`]), the updates root and version directories themselves
//! ([`staging`]), the extraction of the one executable from the verified ZIP and the check
//! before each execution ([`prepare`]), and where the GitHub hosts are in this build
//! ([`hosts`]), and the release notes of Settings → About with their cache ([`notes`]). Every request goes through `crate::http`. Nothing here keeps state, schedules
//! checks or decides what the user sees: the updater actor drives these steps through the
//! domain state machine, one user request at a time.
//!
//! The flow the actor builds from them:
//! 1. check: `ReleaseDiscovery::check_latest` → `domain::updater::CheckOutcome`.
//! 2. download (the user asked): `UpdatesRoot::open(updates_dir)`, then
//!    `ReleaseDiscovery::refetch_and_confirm` → `InstallTarget` →
//!    `ReleaseDownloader::download` → `DownloadedRelease`.
//! 3. prepare (the user asked): `prepare::prepare_release` (blocking) → `PreparedRelease`.
//! 4. before each launch of a staged build: `prepare::verify_staged`.

pub mod discovery;
pub mod download;
pub mod hosts;
pub mod notes;
pub mod prepare;
pub mod staging;

#[cfg(any(test, feature = "test-fixtures"))]
pub mod test_support;

pub use discovery::{ConfirmError, DiscoveryFailure, ReleaseDiscovery};
pub use download::{DownloadProgress, DownloadedRelease, ReleaseDownloader, UpdateDownloadError};
pub use hosts::GitHubHosts;
pub use notes::{read_notes_cache, write_notes_cache, NotesFailure, ReleaseNotesFetcher};
pub use prepare::{prepare_release, verify_staged, PrepareError, PreparedRelease, StagedError};
pub use staging::{updates_dir_from, RootEntry, StagingError, UpdatesRoot, VersionDir};
