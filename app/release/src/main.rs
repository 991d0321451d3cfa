//! `relay-release-tool`: the packaging half of `scripts/release.sh`. From a built `relay-desktop`
//! it writes the three release assets of `docs/updater.md` into an output directory:
//! `relay-vX.Y.Z-linux-x86_64.zip` (exactly one deflated member `relay-desktop`, mode 0755,
//! the fixed 1980-01-01 timestamp, so the same binary always gives the same bytes), its
//! `.sha256` line (`<hex>  <name>`, as `sha256sum` writes it) and its `.minisig`: a prehashed
//! minisign signature made with the publisher's secret key file, whose trusted comment is
//! exactly `domain::updater::expected_trusted_comment` (`relay-release vX.Y.Z <commit> <name>`).
//! An encrypted key asks for its password the way minisign does (on the terminal). It refuses
//! a binary that is not an x86-64 ELF of the allowed size and never overwrites an existing
//! file; it does not build, upload, or hold any key itself.
//!
//! ```text
//! relay-release-tool --binary PATH --version X.Y.Z --commit <40 hex> --key SECRET_KEY_FILE --out-dir DIR
//! relay-release-tool keygen --secret-key PATH [--unencrypted]
//! ```
//!
//! `keygen` (see [`keygen`]) makes the publisher's key pair once and prints the public key line
//! that is compiled into Relay.

mod keygen;

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use minisign::{SecretKey, SecretKeyBox};
use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

use domain::updater::archive::{MAX_EXECUTABLE_BYTES, MIN_EXECUTABLE_BYTES};
use domain::updater::release::{archive_asset_name, checksum_asset_name, signature_asset_name};
use domain::updater::{
    check_executable_header, expected_trusted_comment, CommitSha, Sha256Digest, Version, EXECUTABLE_NAME,
};

/// What to package.
struct Request {
    binary: PathBuf,
    version: Version,
    commit: CommitSha,
    key: PathBuf,
    out_dir: PathBuf,
}

const USAGE: &str =
    "usage: relay-release-tool --binary PATH --version X.Y.Z --commit <40 hex> --key SECRET_KEY_FILE --out-dir DIR";

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Request, String> {
    let (mut binary, mut version, mut commit, mut key, mut out_dir) = (None, None, None, None, None);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        match flag.as_str() {
            "--binary" => binary = Some(PathBuf::from(value)),
            "--version" => {
                version = Some(Version::parse(&value).map_err(|e| format!("--version: {e}"))?);
            }
            "--commit" => {
                commit = Some(CommitSha::parse_hex(&value).ok_or("--commit must be 40 lowercase hex characters")?);
            }
            "--key" => key = Some(PathBuf::from(value)),
            "--out-dir" => out_dir = Some(PathBuf::from(value)),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    match (binary, version, commit, key, out_dir) {
        (Some(binary), Some(version), Some(commit), Some(key), Some(out_dir)) => {
            Ok(Request { binary, version, commit, key, out_dir })
        }
        _ => Err(USAGE.to_owned()),
    }
}

/// Reads the publisher's secret key file: unencrypted, or encrypted with a password minisign
/// asks for on the terminal.
fn load_secret_key(path: &Path) -> Result<SecretKey, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("cannot read the secret key file: {e}"))?;
    let boxed = SecretKeyBox::from_string(&text).map_err(|e| format!("not a minisign secret key: {e}"))?;
    match boxed.clone().into_unencrypted_secret_key() {
        Ok(key) => Ok(key),
        Err(_) => boxed.into_secret_key(None).map_err(|e| format!("cannot open the secret key: {e}")),
    }
}

fn read_binary(path: &Path) -> Result<Vec<u8>, String> {
    let file = File::open(path).map_err(|e| format!("cannot open the binary: {e}"))?;
    let mut bytes = Vec::new();
    file.take(MAX_EXECUTABLE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read the binary: {e}"))?;
    if !(MIN_EXECUTABLE_BYTES..=MAX_EXECUTABLE_BYTES).contains(&(bytes.len() as u64)) {
        return Err("the binary is empty or larger than 512 MiB".to_owned());
    }
    check_executable_header(&bytes).map_err(|e| format!("the binary is refused: {e}"))?;
    Ok(bytes)
}

/// The release ZIP: one deflated `relay-desktop`, mode 0755, the fixed DOS epoch timestamp.
fn zip_archive(executable: &[u8]) -> io::Result<Vec<u8>> {
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .unix_permissions(0o755)
        .last_modified_time(DateTime::default());
    let mut writer = ZipWriter::new(io::Cursor::new(Vec::new()));
    writer.start_file(EXECUTABLE_NAME, options).map_err(io::Error::other)?;
    writer.write_all(executable)?;
    Ok(writer.finish().map_err(io::Error::other)?.into_inner())
}

/// Writes a new file (never replacing one), readable by everyone: these are public assets.
fn write_new(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    file.write_all(bytes).and_then(|()| file.sync_all()).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn package(request: &Request) -> Result<Vec<PathBuf>, String> {
    let executable = read_binary(&request.binary)?;
    let secret_key = load_secret_key(&request.key)?;
    let archive = zip_archive(&executable).map_err(|e| format!("cannot build the ZIP: {e}"))?;
    let digest = Sha256Digest::from_bytes(Sha256::digest(&archive).into());
    let archive_name = archive_asset_name(&request.version);
    let checksum = format!("{digest}  {archive_name}\n");
    let trusted_comment = expected_trusted_comment(&request.version, &request.commit);
    let untrusted_comment = format!("signature of {archive_name}");
    let signature =
        minisign::sign(None, &secret_key, archive.as_slice(), Some(&trusted_comment), Some(&untrusted_comment))
            .map_err(|e| format!("cannot sign: {e}"))?
            .into_string();

    fs::create_dir_all(&request.out_dir).map_err(|e| format!("cannot create the output directory: {e}"))?;
    let outputs = [
        (archive_name, archive),
        (checksum_asset_name(&request.version), checksum.into_bytes()),
        (signature_asset_name(&request.version), signature.into_bytes()),
    ];
    let mut written = Vec::new();
    for (name, bytes) in outputs {
        let path = request.out_dir.join(name);
        write_new(&path, &bytes)?;
        written.push(path);
    }
    Ok(written)
}

/// `keygen`: prints the public key line and where it goes.
fn run_keygen(args: &[String]) -> ExitCode {
    match keygen::parse_args(args).and_then(|request| keygen::keygen(&request)) {
        Ok(public_key) => {
            println!("public key (set PRODUCTION_PUBLISHER_KEY in domain/src/updater/signature.rs to this line):");
            println!("{public_key}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("relay-release-tool: {message}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|first| first == "keygen") {
        return run_keygen(&args[1..]);
    }
    let result = parse_args(args.into_iter()).and_then(|request| package(&request));
    match result {
        Ok(written) => {
            for path in written {
                println!("{}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("relay-release-tool: {message}");
            ExitCode::FAILURE
        }
    }
}
