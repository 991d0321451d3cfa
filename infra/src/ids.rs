//! Random identifiers from the operating system's CSPRNG: 15-character record ids in
//! PocketBase's alphabet, realtime client ids, and the human-typeable connection passphrase.

use rand::distr::{Alphanumeric, SampleString};
use rand::Rng;

const ID_ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
/// Unambiguous characters for passphrases an operator may read aloud or type.
const PASSPHRASE_ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";

fn from_alphabet(alphabet: &[u8], len: usize) -> String {
    let mut rng = rand::rng();
    (0..len).map(|_| alphabet[rng.random_range(0..alphabet.len())] as char).collect()
}

/// A new record id (15 lowercase alphanumerics, ~77 bits).
pub fn record_id() -> String {
    from_alphabet(ID_ALPHABET, 15)
}

/// A realtime client id (40 alphanumerics).
pub fn client_id() -> String {
    Alphanumeric.sample_string(&mut rand::rng(), 40)
}

/// A random connection passphrase: four groups of six characters (~119 bits).
pub fn passphrase() -> String {
    (0..4).map(|_| from_alphabet(PASSPHRASE_ALPHABET, 6)).collect::<Vec<_>>().join("-")
}

/// `n` random bytes.
pub fn random_bytes(n: usize) -> Vec<u8> {
    let mut buf = vec![0u8; n];
    rand::rng().fill(&mut buf[..]);
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_the_expected_shape_and_do_not_repeat() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| record_id()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(ids.iter().all(|id| domain::validation::is_record_id(id)));
        let p = passphrase();
        assert_eq!(p.len(), 27);
        assert_ne!(p, passphrase());
        assert_eq!(client_id().len(), 40);
        assert_ne!(random_bytes(32), random_bytes(32));
    }
}
