//! Password hashing for protected accounts with Argon2id (the maintained `argon2` crate,
//! default parameters, random salt, PHC string output). Verification is done by the crate in
//! constant time; an unparseable stored hash simply fails verification.

use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::Argon2;

#[derive(Debug, thiserror::Error)]
#[error("password hashing failed")]
pub struct HashError;

pub fn hash_password(password: &str) -> Result<String, HashError> {
    let salt = crate::ids::random_bytes(16);
    Argon2::default().hash_password_with_salt(password.as_bytes(), &salt).map(|h| h.to_string()).map_err(|_| HashError)
}

pub fn verify_password(password: &str, stored: &str) -> bool {
    Argon2::default().verify_password(password.as_bytes(), stored).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_verify_only_the_right_password_and_are_salted() {
        let a = hash_password("correct horse battery staple").unwrap();
        let b = hash_password("correct horse battery staple").unwrap();
        assert!(a.starts_with("$argon2id$"));
        assert_ne!(a, b, "random salt");
        assert!(verify_password("correct horse battery staple", &a));
        assert!(!verify_password("correct horse battery stapl", &a));
        assert!(!verify_password("x", "not a phc string"));
    }
}
