//! The paired laptop's state on this PC, without any network: the binding file (the non-secret
//! half of a pairing: server origin, account and device ids, username, role, fingerprint, label
//! and whether the server revoked it; owner-only, written atomically in the data directory), the
//! signing key's place in the OS secret store (`KeyStore`: the OS store only, never a plaintext
//! fallback), and the protected session held in memory: who, the idle lock (15 minutes after
//! the last protected action, on an injectable clock; reading the status is no activity) and the
//! single-use fresh-password proof with its expiry. The renderer sees only `LaptopStatus`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use domain::secret_policy::{device_key_entry, SecretStorage};
use infra::clock::SharedClock;
use infra::device_client::{decode_secret, Proof};
use infra::secret_store::{SecretStore, SecretStoreError};
use serde::{Deserialize, Serialize};

/// The session locks this long after the last protected action.
pub const IDLE_LOCK_MS: i64 = 15 * 60 * 1000;
/// The binding file's name in the desktop's data directory.
pub const BINDING_FILE: &str = "laptop-device.json";

/// The non-secret half of a pairing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Binding {
    pub version: u32,
    pub server: String,
    pub account_id: String,
    pub device_id: String,
    pub username: String,
    pub role: String,
    pub fingerprint: String,
    pub label: String,
    #[serde(default)]
    pub revoked: bool,
}

/// What the renderer learns about the paired device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeviceView {
    pub username: String,
    pub label: String,
    pub fingerprint_suffix: String,
    pub role: String,
}

/// What the renderer learns about the protected session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    pub username: String,
    pub role: String,
    pub lock_at_ms: i64,
}

/// `laptop_status`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LaptopStatus {
    pub available: bool,
    pub pairing: &'static str,
    pub device: Option<DeviceView>,
    pub session: Option<SessionView>,
}

impl LaptopStatus {
    pub fn unavailable() -> LaptopStatus {
        LaptopStatus { available: false, pairing: "unpaired", device: None, session: None }
    }
}

/// Where the signing key's secret half lives: the OS secret store, or nowhere.
pub trait KeyStore: Send + Sync {
    fn available(&self) -> bool;
    fn get(&self, entry: &str) -> Result<Option<String>, SecretStoreError>;
    fn set(&self, entry: &str, value: &str) -> Result<(), SecretStoreError>;
    fn delete(&self, entry: &str) -> Result<(), SecretStoreError>;
}

/// The OS secret store, with no file fallback (its fallback folder is never written).
pub struct OsKeys(SecretStore);

impl OsKeys {
    pub fn new(data_dir: &Path) -> OsKeys {
        OsKeys(SecretStore::at(data_dir.join("laptop-key-unused"), SecretStorage::OsSecretStore))
    }
}

impl KeyStore for OsKeys {
    fn available(&self) -> bool {
        infra::secret_store::os_store_available()
    }
    fn get(&self, entry: &str) -> Result<Option<String>, SecretStoreError> {
        self.0.get(entry)
    }
    fn set(&self, entry: &str, value: &str) -> Result<(), SecretStoreError> {
        self.0.set(entry, value).map(drop)
    }
    fn delete(&self, entry: &str) -> Result<(), SecretStoreError> {
        self.0.delete(entry)
    }
}

/// Why the key could not be loaded.
#[derive(Debug, PartialEq, Eq)]
pub enum KeyProblem {
    /// The OS store did not answer: try again later.
    StoreUnavailable,
    /// The key is missing or does not match the binding: pair again.
    Gone,
}

/// The protected session in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Session {
    username: String,
    role: String,
    last_activity_ms: i64,
    proof: Option<Proof>,
}

/// The laptop's state: binding file, key store and session.
pub struct LaptopState {
    dir: PathBuf,
    /// The client-mode server origin; `None` in server and setup mode.
    pub origin: Option<String>,
    keys: Box<dyn KeyStore>,
    clock: SharedClock,
    session: Mutex<Option<Session>>,
}

impl LaptopState {
    pub fn new(dir: &Path, origin: Option<String>, keys: Box<dyn KeyStore>, clock: SharedClock) -> LaptopState {
        LaptopState { dir: dir.to_path_buf(), origin, keys, clock, session: Mutex::new(None) }
    }

    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    fn path(&self) -> PathBuf {
        self.dir.join(BINDING_FILE)
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Option<Session>> {
        self.session.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The binding for this client's server, if any (a file for another server, or one that does
    /// not parse, counts as none).
    pub fn binding(&self) -> Option<Binding> {
        let bytes = infra::datadir::read_private_file(&self.path()).ok().flatten()?;
        let binding: Binding = serde_json::from_slice(&bytes).ok()?;
        (Some(&binding.server) == self.origin.as_ref()).then_some(binding)
    }

    /// The server of the binding file, whichever server it names (pairing with another server
    /// replaces it, and its key with it).
    pub fn bound_server(&self) -> Option<String> {
        let bytes = infra::datadir::read_private_file(&self.path()).ok().flatten()?;
        serde_json::from_slice::<Binding>(&bytes).ok().map(|b| b.server)
    }

    pub fn write_binding(&self, binding: &Binding) -> Result<(), String> {
        infra::datadir::ensure_private_dir(&self.dir).map_err(|e| e.to_string())?;
        let json = serde_json::to_vec_pretty(binding).map_err(|e| e.to_string())?;
        infra::datadir::write_private_file(&self.path(), &json).map_err(|e| e.to_string())
    }

    pub fn remove_binding(&self) -> Result<(), String> {
        infra::datadir::remove_if_present(&self.path()).map_err(|e| e.to_string())
    }

    /// Marks the binding revoked (persisted) and ends the session.
    pub fn mark_revoked(&self) {
        self.end_session();
        if let Some(mut binding) = self.binding() {
            binding.revoked = true;
            if let Err(e) = self.write_binding(&binding) {
                tracing::warn!(target: "relay::laptop", error = %e, "could not record the revoked pairing");
            }
        }
    }

    /// The key store's entry for this server's device key.
    pub fn key_entry(origin: &str) -> String {
        device_key_entry(origin)
    }

    pub fn keys(&self) -> &dyn KeyStore {
        self.keys.as_ref()
    }

    /// The signing key of `binding`, from the OS store.
    pub fn load_key(&self, binding: &Binding) -> Result<[u8; 32], KeyProblem> {
        match self.keys.get(&Self::key_entry(&binding.server)) {
            Ok(Some(encoded)) => decode_secret(&encoded, &binding.fingerprint).map_err(|_| KeyProblem::Gone),
            Ok(None) | Err(SecretStoreError::Invalid) => Err(KeyProblem::Gone),
            Err(_) => Err(KeyProblem::StoreUnavailable),
        }
    }

    /// Opens the session for `binding` with its first proof.
    pub fn open_session(&self, binding: &Binding, proof: Proof) {
        *self.held() = Some(Session {
            username: binding.username.clone(),
            role: binding.role.clone(),
            last_activity_ms: self.now_ms(),
            proof: Some(proof),
        });
    }

    pub fn end_session(&self) {
        *self.held() = None;
    }

    /// The live session, dropped when idle too long; `touch` counts this as activity.
    fn live(&self, touch: bool) -> Option<std::sync::MutexGuard<'_, Option<Session>>> {
        let now = self.now_ms();
        let mut held = self.held();
        match held.as_mut() {
            Some(s) if now - s.last_activity_ms < IDLE_LOCK_MS => {
                if touch {
                    s.last_activity_ms = now;
                }
                Some(held)
            }
            Some(_) => {
                *held = None;
                None
            }
            None => None,
        }
    }

    /// Whether a session is live; `touch` resets the idle timer.
    pub fn session_alive(&self, touch: bool) -> bool {
        self.live(touch).is_some()
    }

    /// Keeps a new proof in the live session (false when none is live).
    pub fn keep_proof(&self, proof: Proof) -> bool {
        match self.live(true) {
            Some(mut held) => {
                if let Some(s) = held.as_mut() {
                    s.proof = Some(proof);
                }
                true
            }
            None => false,
        }
    }

    /// Takes the held proof if it has not expired (single use: it is gone afterwards either way).
    pub fn take_proof(&self) -> Option<String> {
        let now = self.now_ms();
        let mut held = self.live(false)?;
        let proof = held.as_mut()?.proof.take()?;
        (proof.expires_ms > now).then_some(proof.proof)
    }

    /// The status as the renderer may see it; never counts as activity.
    pub fn status(&self, store_probe: impl FnOnce() -> bool) -> LaptopStatus {
        if self.origin.is_none() {
            return LaptopStatus::unavailable();
        }
        let session = self.live(false).and_then(|held| {
            held.as_ref().map(|s| SessionView {
                username: s.username.clone(),
                role: s.role.clone(),
                lock_at_ms: s.last_activity_ms + IDLE_LOCK_MS,
            })
        });
        let binding = self.binding();
        let pairing = match &binding {
            _ if !store_probe() => "storeUnavailable",
            Some(b) if b.revoked => "revoked",
            Some(_) => "paired",
            None => "unpaired",
        };
        let device = binding.map(|b| DeviceView {
            fingerprint_suffix: b.fingerprint.chars().rev().take(8).collect::<Vec<_>>().into_iter().rev().collect(),
            username: b.username,
            label: b.label,
            role: b.role,
        });
        LaptopStatus { available: true, pairing, device, session: if pairing == "paired" { session } else { None } }
    }
}

#[cfg(test)]
pub mod tests {
    use std::collections::HashMap;
    use std::sync::Arc;

    use infra::clock::ManualClock;

    use super::*;

    /// An in-memory key store that can be switched off.
    #[derive(Default)]
    pub struct MemoryKeys {
        pub entries: Mutex<HashMap<String, String>>,
        pub down: std::sync::atomic::AtomicBool,
    }

    impl KeyStore for Arc<MemoryKeys> {
        fn available(&self) -> bool {
            !self.down.load(std::sync::atomic::Ordering::SeqCst)
        }
        fn get(&self, entry: &str) -> Result<Option<String>, SecretStoreError> {
            if !self.available() {
                return Err(SecretStoreError::Timeout);
            }
            Ok(self.entries.lock().unwrap().get(entry).cloned())
        }
        fn set(&self, entry: &str, value: &str) -> Result<(), SecretStoreError> {
            if !self.available() {
                return Err(SecretStoreError::Timeout);
            }
            self.entries.lock().unwrap().insert(entry.into(), value.into());
            Ok(())
        }
        fn delete(&self, entry: &str) -> Result<(), SecretStoreError> {
            self.entries.lock().unwrap().remove(entry);
            Ok(())
        }
    }

    pub const ORIGIN: &str = "http://127.0.0.1:9";

    pub fn binding(fingerprint: &str) -> Binding {
        Binding {
            version: 1,
            server: ORIGIN.into(),
            account_id: "a".repeat(15),
            device_id: "d".repeat(15),
            username: "pat".into(),
            role: "publisher".into(),
            fingerprint: fingerprint.into(),
            label: "NOC laptop".into(),
            revoked: false,
        }
    }

    pub fn state(dir: &Path) -> (LaptopState, Arc<ManualClock>, Arc<MemoryKeys>) {
        let clock = ManualClock::new(1_000_000);
        let keys = Arc::new(MemoryKeys::default());
        (LaptopState::new(dir, Some(ORIGIN.into()), Box::new(keys.clone()), clock.clone()), clock, keys)
    }

    fn proof(expires_ms: i64) -> Proof {
        Proof { proof: "p".repeat(15), expires_ms }
    }

    #[test]
    fn the_binding_file_is_owner_only_atomic_and_for_this_server_only() {
        let tmp = tempfile::tempdir().unwrap();
        let (state, _, _) = state(tmp.path());
        assert_eq!(state.binding(), None);
        state.write_binding(&binding("fp")).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(tmp.path().join(BINDING_FILE)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let leftovers: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers, [BINDING_FILE], "no temporary file left behind");
        assert_eq!(state.binding(), Some(binding("fp")));
        let other = LaptopState::new(
            tmp.path(),
            Some("http://10.0.0.2:8090".into()),
            Box::new(Arc::new(MemoryKeys::default())),
            ManualClock::new(0),
        );
        assert_eq!(other.binding(), None, "a pairing with another server is not this one");
        state.mark_revoked();
        assert!(state.binding().unwrap().revoked);
        state.remove_binding().unwrap();
        assert_eq!(state.binding(), None);
    }

    #[test]
    fn the_session_idle_locks_and_reading_the_status_keeps_nothing_alive() {
        let tmp = tempfile::tempdir().unwrap();
        let (state, clock, _) = state(tmp.path());
        state.write_binding(&binding("fp")).unwrap();
        state.open_session(&binding("fp"), proof(i64::MAX));
        let lock_at = state.status(|| true).session.unwrap().lock_at_ms;
        assert_eq!(lock_at, 1_000_000 + IDLE_LOCK_MS);
        clock.advance_ms(IDLE_LOCK_MS - 1);
        assert!(state.status(|| true).session.is_some());
        assert!(state.session_alive(true), "activity resets the timer");
        clock.advance_ms(IDLE_LOCK_MS - 1);
        assert!(state.status(|| true).session.is_some());
        clock.advance_ms(1);
        assert_eq!(state.status(|| true).session, None, "15 minutes idle");
        assert!(!state.session_alive(true));
    }

    #[test]
    fn a_proof_is_used_once_and_not_after_it_expires() {
        let tmp = tempfile::tempdir().unwrap();
        let (state, clock, _) = state(tmp.path());
        assert_eq!(state.take_proof(), None, "no session");
        assert!(!state.keep_proof(proof(i64::MAX)), "no session to keep it in");
        state.open_session(&binding("fp"), proof(1_000_000 + 60_000));
        assert_eq!(state.take_proof().as_deref(), Some("p".repeat(15).as_str()));
        assert_eq!(state.take_proof(), None, "single use");
        assert!(state.keep_proof(proof(1_000_000 + 60_000)));
        clock.advance_ms(60_000);
        assert_eq!(state.take_proof(), None, "expired");
    }

    #[test]
    fn status_tells_unpaired_paired_revoked_and_an_absent_store() {
        let tmp = tempfile::tempdir().unwrap();
        let (state, _, _) = state(tmp.path());
        assert_eq!(state.status(|| true).pairing, "unpaired");
        assert_eq!(state.status(|| false).pairing, "storeUnavailable");
        state.write_binding(&binding("0123456789abcdef")).unwrap();
        let status = state.status(|| true);
        assert_eq!(status.pairing, "paired");
        assert_eq!(status.device.unwrap().fingerprint_suffix, "89abcdef");
        state.open_session(&binding("fp"), proof(0));
        state.mark_revoked();
        let status = serde_json::to_value(state.status(|| true)).unwrap();
        assert_eq!(status["pairing"], "revoked");
        assert_eq!(status["session"], serde_json::Value::Null);
        assert_eq!(status["device"]["fingerprintSuffix"], "89abcdef");
        let server_mode =
            LaptopState::new(tmp.path(), None, Box::new(Arc::new(MemoryKeys::default())), ManualClock::new(0));
        assert_eq!(server_mode.status(|| true), LaptopStatus::unavailable());
    }

    #[test]
    fn a_missing_or_mismatched_key_means_pair_again_and_a_silent_store_means_retry() {
        let tmp = tempfile::tempdir().unwrap();
        let (state, _, keys) = state(tmp.path());
        let secret = infra::device_client::new_device_secret().unwrap();
        let fp = infra::device_client::public_jwk(&secret).unwrap().fingerprint();
        assert_eq!(state.load_key(&binding(&fp)), Err(KeyProblem::Gone));
        keys.set(&LaptopState::key_entry(ORIGIN), &infra::device_client::encode_secret(&secret)).unwrap();
        assert_eq!(state.load_key(&binding(&fp)), Ok(secret));
        assert_eq!(state.load_key(&binding("another")), Err(KeyProblem::Gone));
        keys.down.store(true, std::sync::atomic::Ordering::SeqCst);
        assert_eq!(state.load_key(&binding(&fp)), Err(KeyProblem::StoreUnavailable));
    }
}
