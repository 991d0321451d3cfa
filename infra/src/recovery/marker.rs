//! Runtime markers: `runtimes/<build-id>/marker.json` describes the one executable beside it
//! (`relay-desktop`): protocol 1, build id, version, full commit, the executable's SHA-512 and
//! the server and client data epochs it reads and writes. The catalog records each marker's own
//! SHA-512, so [`verify_runtime`] proves the whole chain before every start: the runtime
//! directory is a real owner-only directory, the marker's bytes hash to what the catalog holds,
//! the marker is strict (unknown or duplicate keys, a bad id, commit or hash refuse it) and names
//! this build, and the executable (opened once with `O_NOFOLLOW`, regular, owner's, executable
//! by the owner) hashes to the marker's value. The launcher then starts that same open file
//! through `/proc/self/fd/<n>`, so the bytes hashed are the bytes run. Any mismatch makes the
//! runtime unusable; nothing here repairs one.

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::os::unix::io::AsRawFd;
use std::path::PathBuf;

use domain::updater::{BuildId, CommitSha, Version};
use serde::{Deserialize, Serialize};

use super::fsutil::{self, hash_copy, is_lower_hex, sha512_hex};
use super::{io_step, ManagedRoot, RecoveryIoError};

/// The marker format this launcher writes and accepts.
pub const MARKER_PROTOCOL: u32 = 1;
/// The runtime executable's name inside its build directory.
pub const EXECUTABLE_NAME: &str = "relay-desktop";
/// The marker's name inside its build directory.
pub const MARKER_NAME: &str = "marker.json";
/// The longest marker accepted.
pub const MAX_MARKER_BYTES: u64 = 4096;
/// The data epochs of the runtime built from this source: a change of the server store or the
/// client cache format that an older build cannot read bumps its epoch.
pub const CURRENT_DATA_EPOCHS: DataEpochs = DataEpochs { server: 1, client: 1 };

/// The data formats a runtime reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataEpochs {
    pub server: u32,
    pub client: u32,
}

/// A runtime's marker, exactly as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RuntimeMarker {
    pub protocol: u32,
    pub build_id: String,
    pub version: String,
    pub commit: String,
    pub executable_sha512: String,
    pub data_epochs: DataEpochs,
}

impl RuntimeMarker {
    /// A protocol-1 marker for these facts.
    pub fn new(build: &BuildId, version: &Version, commit: &CommitSha, executable_sha512: &[u8; 64]) -> RuntimeMarker {
        RuntimeMarker {
            protocol: MARKER_PROTOCOL,
            build_id: build.as_str().to_owned(),
            version: version.to_string(),
            commit: commit.to_hex(),
            executable_sha512: fsutil::hex(executable_sha512),
            data_epochs: CURRENT_DATA_EPOCHS,
        }
    }

    /// Parses and checks a stored marker (strict JSON; every field well-formed).
    pub fn parse(bytes: &[u8]) -> Result<RuntimeMarker, RecoveryIoError> {
        let marker: RuntimeMarker =
            serde_json::from_slice(bytes).map_err(|_| RecoveryIoError::InvalidMarker("json"))?;
        if marker.protocol != MARKER_PROTOCOL {
            return Err(RecoveryIoError::InvalidMarker("protocol"));
        }
        BuildId::parse(&marker.build_id).map_err(|_| RecoveryIoError::InvalidMarker("build_id"))?;
        Version::parse(&marker.version).map_err(|_| RecoveryIoError::InvalidMarker("version"))?;
        if !is_lower_hex(&marker.commit, 40) {
            return Err(RecoveryIoError::InvalidMarker("commit"));
        }
        if !is_lower_hex(&marker.executable_sha512, 128) {
            return Err(RecoveryIoError::InvalidMarker("executable_sha512"));
        }
        Ok(marker)
    }

    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec_pretty(self).expect("a marker serializes")
    }
}

/// A runtime proved against the catalog, holding its executable open.
#[derive(Debug)]
pub struct VerifiedRuntime {
    pub build: BuildId,
    pub marker: RuntimeMarker,
    executable: File,
    path: PathBuf,
}

impl VerifiedRuntime {
    /// The verified executable, open read-only (close-on-exec).
    pub fn executable(&self) -> &File {
        &self.executable
    }

    /// `runtimes/<build-id>/relay-desktop` (for the child's environment, never for exec).
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// The descriptor path the launcher starts (`/proc/self/fd/<n>`): the bytes hashed.
    pub fn exec_path(&self) -> String {
        format!("/proc/self/fd/{}", self.executable.as_raw_fd())
    }
}

/// Reads `runtimes/<build>/marker.json`: its bytes' SHA-512 and the parsed marker, which must
/// name `build`. `Ok(None)` when the marker is absent.
pub fn read_marker(root: &ManagedRoot, build: &BuildId) -> Result<Option<(String, RuntimeMarker)>, RecoveryIoError> {
    let dir = root.runtime_dir(build);
    if !fsutil::check_private_dir(&dir)? {
        return Ok(None);
    }
    let Some(bytes) = fsutil::read_bounded(&dir.join(MARKER_NAME), MAX_MARKER_BYTES)? else { return Ok(None) };
    let marker = RuntimeMarker::parse(&bytes)?;
    if marker.build_id != build.as_str() {
        return Err(RecoveryIoError::RuntimeMismatch);
    }
    Ok(Some((sha512_hex(&bytes), marker)))
}

/// Proves `build`'s runtime against the catalog's `expected_marker_sha512`: the marker's own
/// hash, its build id, and the executable's SHA-512 re-hashed now. Any difference, absence or
/// unsafe entry is an error (the runtime is unusable).
pub fn verify_runtime(
    root: &ManagedRoot,
    build: &BuildId,
    expected_marker_sha512: &str,
) -> Result<VerifiedRuntime, RecoveryIoError> {
    let (marker_sha512, marker) = read_marker(root, build)?.ok_or(RecoveryIoError::RuntimeMismatch)?;
    if marker_sha512 != expected_marker_sha512 {
        return Err(RecoveryIoError::RuntimeMismatch);
    }
    let path = root.runtime_dir(build).join(EXECUTABLE_NAME);
    let mut executable = fsutil::open_regular(&path)?.ok_or(RecoveryIoError::RuntimeMismatch)?;
    let meta = executable.metadata().map_err(io_step("stat_executable"))?;
    if meta.mode() & 0o100 == 0 {
        return Err(RecoveryIoError::RuntimeMismatch);
    }
    let (_, sha512, _) = hash_copy(&mut executable, None).map_err(io_step("hash_executable"))?;
    if fsutil::hex(&sha512) != marker.executable_sha512 {
        return Err(RecoveryIoError::RuntimeMismatch);
    }
    executable.seek(SeekFrom::Start(0)).map_err(io_step("rewind_executable"))?;
    Ok(VerifiedRuntime { build: build.clone(), marker, executable, path })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marker_json(extra: &str) -> String {
        format!(
            r#"{{"protocol":1,"buildId":"v1-2-3-0123abcd","version":"1.2.3","commit":"{}","executableSha512":"{}","dataEpochs":{{"server":1,"client":1}}{extra}}}"#,
            "a".repeat(40),
            "b".repeat(128)
        )
    }

    #[test]
    fn a_well_formed_marker_parses_and_round_trips() {
        let marker = RuntimeMarker::parse(marker_json("").as_bytes()).unwrap();
        assert_eq!(marker.build_id, "v1-2-3-0123abcd");
        assert_eq!(RuntimeMarker::parse(&marker.to_json()).unwrap(), marker);
    }

    #[test]
    fn unknown_duplicate_or_malformed_fields_refuse_the_marker() {
        assert!(RuntimeMarker::parse(marker_json(r#","extra":1"#).as_bytes()).is_err());
        assert!(RuntimeMarker::parse(marker_json(r#","protocol":1"#).as_bytes()).is_err());
        let cases = [
            marker_json("").replace(r#""protocol":1"#, r#""protocol":2"#),
            marker_json("").replace("v1-2-3-0123abcd", "V1"),
            marker_json("").replace(&"a".repeat(40), &"A".repeat(40)),
            marker_json("").replace(&"b".repeat(128), &"b".repeat(127)),
            marker_json("").replace(r#""version":"1.2.3""#, r#""version":"01.2.3""#),
            marker_json("").replace(r#","client":1"#, ""),
        ];
        for case in cases {
            assert!(RuntimeMarker::parse(case.as_bytes()).is_err(), "{case}");
        }
    }
}
