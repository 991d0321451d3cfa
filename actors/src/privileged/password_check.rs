//! Password checks that cost the same whether or not the account exists: a password for an
//! unknown username, a malformed one, an account never given a password or an unknown paired
//! device is verified against [`DUMMY_HASH`], an Argon2id hash with the parameters of stored
//! hashes, and refused, so how long the answer takes does not tell which usernames exist. The
//! verifier is injectable ([`VerifyPassword`]), so tests can count the verifications.

use std::sync::Arc;

/// Verifies a password against a stored PHC hash string.
pub trait VerifyPassword: Send + Sync {
    fn verify(&self, password: &str, phc: &str) -> bool;
}

/// Argon2id, as protected passwords are stored (`infra::password`).
pub struct Argon2id;

impl VerifyPassword for Argon2id {
    fn verify(&self, password: &str, phc: &str) -> bool {
        infra::password::verify_password(password, phc)
    }
}

/// The hash of a random password nobody knows, with `infra::password`'s parameters (a test
/// checks that they still are the ones new hashes get). Matching it never admits anyone.
pub const DUMMY_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$I6v48V7py8Ho+TDXihDKhw$Zg446ZTSiUVNDf2fzAv/1lSv5BmZ83vTk1FHaHSZWaM";

/// The privileged service's password check.
#[derive(Clone)]
pub struct PasswordCheck {
    verifier: Arc<dyn VerifyPassword>,
}

impl Default for PasswordCheck {
    fn default() -> Self {
        PasswordCheck::with_verifier(Arc::new(Argon2id))
    }
}

impl PasswordCheck {
    pub fn with_verifier(verifier: Arc<dyn VerifyPassword>) -> PasswordCheck {
        PasswordCheck { verifier }
    }

    /// Whether `password` matches `stored`. With no stored hash (no such account, or none set)
    /// the same verification runs against [`DUMMY_HASH`] and the answer is no.
    pub fn matches(&self, stored: Option<&str>, password: &str) -> bool {
        match stored {
            Some(hash) => self.verifier.verify(password, hash),
            None => {
                self.verifier.verify(password, DUMMY_HASH);
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::privileged::{PrivError, PrivilegedService};
    use crate::testkit::TestCtx;

    /// Argon2id, counting the hashes it verifies.
    #[derive(Default)]
    struct CountingVerifier(AtomicUsize);

    impl VerifyPassword for CountingVerifier {
        fn verify(&self, password: &str, phc: &str) -> bool {
            self.0.fetch_add(1, Ordering::SeqCst);
            Argon2id.verify(password, phc)
        }
    }

    const PW: &str = "local-owner-password";

    #[actix_rt::test]
    async fn every_password_check_verifies_one_hash_whether_or_not_the_username_exists() {
        let tmp = tempfile::tempdir().unwrap();
        let (pool, _) = infra::db::open(&tmp.path().join("relay.db"), 2).unwrap();
        let counter = Arc::new(CountingVerifier::default());
        let check = PasswordCheck::with_verifier(counter.clone());
        let service = PrivilegedService::new(pool, TestCtx::new().clock.clone()).with_password_check(check);
        service.ensure_ready().unwrap();
        service.set_password("ryan", PW).unwrap();
        service.set_active("ryan", true).unwrap();
        let verified = || counter.0.load(Ordering::SeqCst);

        let attempts = [
            ("nobody", "wrong-password-1", "an unknown username"),
            ("Not A Username!", "wrong-password-1", "a malformed username"),
            ("charles", "wrong-password-1", "an account without a password"),
            ("ryan", "wrong-password-1", "a wrong password"),
        ];
        for (n, (username, password, what)) in attempts.into_iter().enumerate() {
            let refused = service.authenticate(username, password).err();
            assert_eq!(refused, Some(PrivError::InvalidCredentials), "{what}");
            assert_eq!(verified(), n + 1, "{what}: one hash verified");
        }
        assert!(service.authenticate("ryan", PW).is_ok());
        assert_eq!(verified(), 5, "the right password: one hash verified");
        let laptop = service.reauth("nobody", "nothing", "wrong-password-1");
        assert_eq!(laptop, Err(PrivError::InvalidCredentials));
        assert_eq!(verified(), 6, "an unknown paired device: one hash verified");
    }

    #[test]
    fn the_dummy_hash_has_the_parameters_of_new_hashes_and_admits_nobody() {
        let fresh = infra::password::hash_password("a new password").unwrap();
        let shape = |phc: &str| {
            let parts: Vec<String> = phc.split('$').map(str::to_string).collect();
            (parts[1].clone(), parts[2].clone(), parts[3].clone(), parts[4].len(), parts[5].len())
        };
        assert_eq!(shape(DUMMY_HASH), shape(&fresh), "algorithm, version, costs, salt and output lengths");
        let check = PasswordCheck::default();
        assert!(!check.matches(None, ""), "no stored hash never matches");
        assert!(check.matches(Some(&fresh), "a new password") && !check.matches(Some(&fresh), "another"));
    }
}
