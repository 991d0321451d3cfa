//! `relay-release-tool keygen --secret-key PATH [--unencrypted]`: the publisher's one-time release
//! key pair. It writes the minisign secret key to a new file (never replacing one: created
//! exclusively, not following a link, 0600), encrypted with a password asked on the terminal
//! as minisign does (`--unencrypted` only for throwaway keys, such as the tests'), and prints the
//! public key's base64 line: that line becomes `PRODUCTION_PUBLISHER_KEY` in
//! `domain/src/updater/signature.rs`, compiled into every build. The secret key never enters the
//! repository; `scripts/release.sh` reads it from `RELAY_RELEASE_MINISIGN_KEY` at release time.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

use minisign::KeyPair;

pub const USAGE: &str = "usage: relay-release-tool keygen --secret-key PATH [--unencrypted]";

/// What to generate.
pub struct KeygenRequest {
    pub secret_key: PathBuf,
    pub encrypted: bool,
}

pub fn parse_args(args: &[String]) -> Result<KeygenRequest, String> {
    match args {
        [flag, path] if flag == "--secret-key" => Ok(KeygenRequest { secret_key: path.into(), encrypted: true }),
        [flag, path, plain] | [plain, flag, path] if flag == "--secret-key" && plain == "--unencrypted" => {
            Ok(KeygenRequest { secret_key: path.into(), encrypted: false })
        }
        _ => Err(USAGE.to_owned()),
    }
}

/// Generates the pair, writes the secret key, answers the public key's base64 line.
pub fn keygen(request: &KeygenRequest) -> Result<String, String> {
    // The file is claimed before a key exists, so an existing one is refused untouched.
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&request.secret_key)
        .map_err(|e| format!("cannot create the secret key file (it must not exist yet): {e}"))?;
    let generated = if request.encrypted {
        KeyPair::generate_encrypted_keypair(None)
    } else {
        KeyPair::generate_unencrypted_keypair()
    };
    let written = generated.map_err(|e| format!("cannot generate the key pair: {e}")).and_then(|pair| {
        let secret = pair.sk.to_box(Some("Relay release publisher key")).map_err(|e| e.to_string())?;
        file.write_all(secret.into_string().as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(|e| format!("cannot write the secret key file: {e}"))?;
        Ok(pair.pk.to_base64())
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&request.secret_key);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|a| (*a).to_owned()).collect()
    }

    #[test]
    fn the_secret_key_path_is_required_and_encryption_is_the_default() {
        assert!(parse_args(&args(&["--secret-key", "/k"])).unwrap().encrypted);
        assert!(!parse_args(&args(&["--secret-key", "/k", "--unencrypted"])).unwrap().encrypted);
        assert!(!parse_args(&args(&["--unencrypted", "--secret-key", "/k"])).unwrap().encrypted);
        for refused in [&[][..], &["--secret-key"], &["/k"], &["--secret-key", "/k", "--force"]] {
            assert!(parse_args(&args(refused)).is_err(), "{refused:?}");
        }
    }
}
