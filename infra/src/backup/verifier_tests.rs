//! The verifier against real and crafted archives: a good archive round-trips with its unknown
//! tables; traversal, link, special, duplicate, encrypted, CRC-corrupt, oversized, crowded,
//! space-starved, non-SQLite, manifest-less and hash-mismatched archives are refused (a
//! corrupt byte in the writer's stored database entry too); the
//! destination must be fresh and private; the database check waits for another connection's lock.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;

use zip::write::SimpleFileOptions;
use zip::ZipWriter;

use super::*;
use crate::backup::snapshot::snapshot_database;
use crate::backup::test_support::{fresh_destination, good_archive, live_store, FixedFreeSpace, PLENTY};
use domain::backup::manifest::{ManifestEntry, FORMAT_VERSION};

fn verify(
    root: &Path,
    archive: &Path,
    limits: ExtractionLimits,
    free: &dyn FreeSpace,
) -> Result<VerifiedArchive, VerifyError> {
    let dest = fresh_destination(root, &format!("{:016x}", rand::random::<u64>()));
    verify_archive(archive, &dest, &limits, free, &mut |_| {})
}

fn stored() -> SimpleFileOptions {
    SimpleFileOptions::default().compression_method(CompressionMethod::Stored).unix_permissions(0o600)
}

/// Writes a ZIP with the given raw entries (stored, so bytes can be flipped in place).
fn craft(path: &Path, entries: &[(&str, &[u8])]) {
    let mut zip = ZipWriter::new(File::create(path).unwrap());
    for (name, bytes) in entries {
        zip.start_file(*name, stored()).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

/// A valid manifest for `entries`, listing the migrations a Relay store has.
fn manifest_for(entries: &[(&str, &[u8])]) -> Vec<u8> {
    use diesel::migration::MigrationSource;
    let shipped = MigrationSource::<diesel::sqlite::Sqlite>::migrations(&crate::db::MIGRATIONS).unwrap();
    manifest_with_migrations(entries, shipped.iter().map(|m| m.name().version().to_string()).collect())
}

fn manifest_with_migrations(entries: &[(&str, &[u8])], migrations: Vec<String>) -> Vec<u8> {
    Manifest {
        format_version: FORMAT_VERSION,
        relay_version: "0.1.0".into(),
        migrations,
        created: 0,
        entries: entries
            .iter()
            .map(|(path, bytes)| ManifestEntry {
                path: path.to_string(),
                size: bytes.len() as u64,
                sha256: hex_lower(&Sha256::digest(bytes)),
            })
            .collect(),
    }
    .to_json()
}

/// The bytes of a real, consistent Relay database.
fn database_bytes(root: &Path, pool: &crate::db::DbPool) -> Vec<u8> {
    let path = root.join("snapshot-for-test.db");
    snapshot_database(&mut pool.get().unwrap(), &path).unwrap();
    let bytes = fs::read(&path).unwrap();
    fs::remove_file(path).unwrap();
    bytes
}

/// A crafted archive with a real database, a valid manifest and `extra` entries.
fn crafted_with_manifest(root: &Path, pool: &crate::db::DbPool, extra: &[(&str, &[u8])]) -> std::path::PathBuf {
    let db = database_bytes(root, pool);
    let mut listed: Vec<(&str, &[u8])> = vec![("relay.db", &db)];
    listed.extend_from_slice(extra);
    let manifest = manifest_for(&listed);
    listed.push(("manifest.json", &manifest));
    let path = root.join("crafted.zip");
    craft(&path, &listed);
    path
}

#[test]
fn a_good_archive_round_trips_with_its_unknown_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, pool) = live_store(tmp.path());
    let written = good_archive(&root, &pool, "roundtrip");
    let dest = fresh_destination(&root, "0123456789abcdef");
    let mut reports = Vec::new();
    let verified =
        verify_archive(&written.path, &dest, &ExtractionLimits::default(), &PLENTY, &mut |p| reports.push(p)).unwrap();
    assert_eq!(verified.manifest, written.manifest);
    assert_eq!(verified.entries, 3);
    for table in ["operator_extras", "odd \"name\"", "contacts", MIGRATIONS_TABLE] {
        assert!(verified.tables.iter().any(|t| t == table), "{table} in {:?}", verified.tables);
    }
    assert_eq!(fs::read(dest.join("files/wiki/runbook.pdf")).unwrap(), b"%PDF-1.7 runbook");
    assert_eq!(fs::metadata(dest.join("relay.db")).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(fs::metadata(dest.join("files")).unwrap().permissions().mode() & 0o777, 0o700);
    let last = reports.last().unwrap();
    assert_eq!((last.entries_done, last.bytes_done), (3, verified.extracted_bytes));

    // The unknown table's row survived byte for byte.
    #[derive(QueryableByName)]
    struct Extra {
        #[diesel(sql_type = Text)]
        note: String,
        #[diesel(sql_type = Text)]
        blob: String,
    }
    let mut conn = SqliteConnection::establish(dest.join("relay.db").to_str().unwrap()).unwrap();
    let rows: Vec<Extra> =
        diesel::sql_query("SELECT note, hex(blob) AS blob FROM operator_extras").load(&mut conn).unwrap();
    assert_eq!((rows[0].note.as_str(), rows[0].blob.as_str()), ("keep me", "00FF10"));
}

#[test]
fn traversal_and_odd_entry_names_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, _pool) = live_store(tmp.path());
    let archive = root.join("names.zip");
    for name in ["../escape", "/absolute", "storage/../escape", "C:/escape", "dir\\file", "a//b", "./x", "ctl\u{1}"] {
        craft(&archive, &[("ok.txt", b"x"), (name, b"payload")]);
        assert_eq!(
            verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err(),
            VerifyError::UnsafeEntryName,
            "{name:?}"
        );
    }
    assert!(!tmp.path().join("escape").exists() && !root.join("escape").exists());
}

#[test]
fn links_special_files_and_case_duplicates_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, _pool) = live_store(tmp.path());
    let archive = root.join("kinds.zip");

    let mut zip = ZipWriter::new(File::create(&archive).unwrap());
    zip.add_symlink("relay.db", "/etc/passwd", stored()).unwrap();
    zip.finish().unwrap();
    assert_eq!(
        verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err(),
        VerifyError::LinkOrSpecialEntry
    );

    // The writer only takes permission bits, so the file type is patched into the central
    // header's external attributes (high 16 bits: the Unix mode).
    for mode in [0o120777u32, 0o020644, 0o010644, 0o140600, 0o040700] {
        craft(&archive, &[("special", b"x")]);
        let mut bytes = fs::read(&archive).unwrap();
        let at = bytes.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
        assert_eq!(bytes[at + 5], 3, "made by Unix, so the mode is read");
        bytes[at + 40..at + 42].copy_from_slice(&(mode as u16).to_le_bytes());
        fs::write(&archive, bytes).unwrap();
        assert_eq!(
            verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err(),
            VerifyError::LinkOrSpecialEntry,
            "{mode:o}"
        );
    }

    craft(&archive, &[("special", b"x")]);
    assert_eq!(
        verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err(),
        VerifyError::MissingManifest,
        "control: a regular entry passes the kind checks"
    );

    craft(&archive, &[("files/Runbook.pdf", b"a"), ("files/runbook.PDF", b"b")]);
    assert_eq!(verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err(), VerifyError::DuplicateEntry);
}

/// Sets general-purpose flag bit 0 (encrypted) in every local and central header.
fn mark_encrypted(bytes: &mut [u8]) {
    for i in 0..bytes.len().saturating_sub(10) {
        match &bytes[i..i + 4] {
            b"PK\x03\x04" => bytes[i + 6] |= 1,
            b"PK\x01\x02" => bytes[i + 8] |= 1,
            _ => {}
        }
    }
}

#[test]
fn encrypted_and_crc_corrupt_entries_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, pool) = live_store(tmp.path());
    let payload = b"PAYLOAD-PAYLOAD-PAYLOAD-PAYLOAD-PAYLOAD";
    let archive = crafted_with_manifest(&root, &pool, &[("files/note.txt", payload)]);
    verify(&root, &archive, ExtractionLimits::default(), &PLENTY).expect("the control archive passes");
    let pristine = fs::read(&archive).unwrap();

    let mut encrypted = pristine.clone();
    mark_encrypted(&mut encrypted);
    fs::write(&archive, &encrypted).unwrap();
    assert_eq!(verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err(), VerifyError::EncryptedEntry);

    let mut corrupt = pristine.clone();
    let at = corrupt.windows(payload.len()).position(|w| w == payload).unwrap();
    corrupt[at + 3] ^= 0x20; // stored data changes, the header's CRC does not
    fs::write(&archive, &corrupt).unwrap();
    assert_eq!(
        verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err(),
        VerifyError::ChecksumMismatch
    );

    // The headers understate the size: extraction stops at the declared size, writing no more.
    let mut understated = pristine.clone();
    for (signature, offset) in [(b"PK\x03\x04", 22), (b"PK\x01\x02", 24)] {
        let mut at = 0;
        while let Some(found) = understated[at..].windows(4).position(|w| w == signature) {
            let header = at + found;
            let name_at = header + if offset == 22 { 30 } else { 46 };
            if understated[name_at..].starts_with(b"files/note.txt") {
                understated[header + offset..header + offset + 4].copy_from_slice(&2u32.to_le_bytes());
            }
            at = header + 4;
        }
    }
    fs::write(&archive, &understated).unwrap();
    let dest = fresh_destination(&root, "understated00000");
    let error = verify_archive(&archive, &dest, &ExtractionLimits::default(), &PLENTY, &mut |_| {}).unwrap_err();
    assert_eq!(error, VerifyError::SizeMismatch);
    assert!(fs::metadata(dest.join("files/note.txt")).unwrap().len() <= 2, "never more than declared on disk");

    fs::write(&archive, b"this is not a zip file at all").unwrap();
    assert_eq!(verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err(), VerifyError::NotAnArchive);
}

#[test]
fn entry_count_size_and_free_space_limits_apply_before_extraction() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, pool) = live_store(tmp.path());
    let archive = good_archive(&root, &pool, "limits01").path;
    let total: u64 = {
        let verified = verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap();
        verified.extracted_bytes
    };
    let limits = ExtractionLimits { max_entries: 2, ..ExtractionLimits::default() };
    assert_eq!(verify(&root, &archive, limits, &PLENTY).unwrap_err(), VerifyError::TooManyEntries);
    let limits = ExtractionLimits { max_extracted_bytes: total - 1, ..ExtractionLimits::default() };
    assert_eq!(verify(&root, &archive, limits, &PLENTY).unwrap_err(), VerifyError::TooLarge);
    let limits = ExtractionLimits { max_extracted_bytes: total, ..ExtractionLimits::default() };
    assert!(verify(&root, &archive, limits, &PLENTY).is_ok(), "exactly at the limit");

    let margin = ExtractionLimits::default().free_space_margin_bytes;
    let tight = FixedFreeSpace(margin + total - 1);
    let dest = fresh_destination(&root, "spacecheck000000");
    assert_eq!(
        verify_archive(&archive, &dest, &ExtractionLimits::default(), &tight, &mut |_| {}).unwrap_err(),
        VerifyError::NotEnoughSpace
    );
    assert_eq!(fs::read_dir(&dest).unwrap().count(), 0, "nothing extracted before the space check");
    assert!(verify(&root, &archive, ExtractionLimits::default(), &FixedFreeSpace(margin + total)).is_ok());
    assert!(StatvfsFreeSpace.free_bytes(&root).unwrap() > 0);
}

#[test]
fn manifest_and_database_problems_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, pool) = live_store(tmp.path());
    let db = database_bytes(&root, &pool);
    let archive = root.join("content.zip");

    craft(&archive, &[("relay.db", &db)]);
    assert_eq!(
        verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err(),
        VerifyError::MissingManifest
    );

    craft(&archive, &[("relay.db", &db), ("manifest.json", b"{\"formatVersion\":1}")]);
    assert_eq!(
        verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err(),
        VerifyError::InvalidManifest
    );

    let mut tampered = db.clone();
    let last = tampered.len() - 1;
    tampered[last] ^= 1; // valid CRC for the tampered bytes, but not the manifest's hash
    craft(&archive, &[("relay.db", &tampered), ("manifest.json", &manifest_for(&[("relay.db", &db)]))]);
    assert_eq!(
        verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err(),
        VerifyError::ManifestMismatch
    );

    let other_migrations = manifest_with_migrations(&[("relay.db", &db)], vec!["20261202000001".into()]);
    craft(&archive, &[("relay.db", &db), ("manifest.json", &other_migrations)]);
    assert_eq!(
        verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err(),
        VerifyError::ManifestMismatch,
        "the manifest's migrations are the database's"
    );

    let unlisted: &[u8] = b"not in the manifest";
    craft(
        &archive,
        &[("relay.db", &db), ("extra.txt", unlisted), ("manifest.json", &manifest_for(&[("relay.db", &db)]))],
    );
    assert_eq!(
        verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err(),
        VerifyError::ManifestMismatch
    );

    let not_sqlite: &[u8] = &[b'x'; 8192];
    craft(&archive, &[("relay.db", not_sqlite), ("manifest.json", &manifest_for(&[("relay.db", not_sqlite)]))]);
    assert_eq!(verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err(), VerifyError::NotSqlite);

    let bare = {
        let path = root.join("bare.db");
        let mut conn = SqliteConnection::establish(path.to_str().unwrap()).unwrap();
        conn.batch_execute("CREATE TABLE t (x); INSERT INTO t VALUES (1);").unwrap();
        drop(conn);
        fs::read(path).unwrap()
    };
    craft(&archive, &[("relay.db", &bare), ("manifest.json", &manifest_for(&[("relay.db", &bare)]))]);
    assert_eq!(
        verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err(),
        VerifyError::MissingMigrations
    );

    // Structurally sound (nothing for the integrity check to see), but a table cannot be read:
    // a virtual table whose module this build lacks. Only reading every table finds this.
    let unreadable = {
        let path = root.join("unreadable.db");
        let mut conn = SqliteConnection::establish(path.to_str().unwrap()).unwrap();
        conn.batch_execute(
            "CREATE TABLE __diesel_schema_migrations (version TEXT); \
             PRAGMA writable_schema = ON; INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) \
             VALUES ('table', 'later', 'later', 0, 'CREATE VIRTUAL TABLE later USING later_module(x)');",
        )
        .unwrap();
        drop(conn);
        fs::read(path).unwrap()
    };
    craft(&archive, &[("relay.db", &unreadable), ("manifest.json", &manifest_for(&[("relay.db", &unreadable)]))]);
    assert_eq!(
        verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err(),
        VerifyError::UnreadableTable
    );

    // A page of the database overwritten: the integrity check (or reading) fails.
    let mut broken = db.clone();
    let page = 4096 * 3;
    broken[page..page + 4096].fill(0x5a);
    craft(&archive, &[("relay.db", &broken), ("manifest.json", &manifest_for(&[("relay.db", &broken)]))]);
    let error = verify(&root, &archive, ExtractionLimits::default(), &PLENTY).unwrap_err();
    assert!(
        matches!(error, VerifyError::IntegrityCheckFailed | VerifyError::NotSqlite | VerifyError::UnreadableTable),
        "{error:?}"
    );
}

#[test]
fn the_destination_must_be_fresh_private_absolute_and_real() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, pool) = live_store(tmp.path());
    let archive = good_archive(&root, &pool, "destchk0").path;
    let run = |dest: &Path| verify_archive(&archive, dest, &ExtractionLimits::default(), &PLENTY, &mut |_| {});

    let used = fresh_destination(&root, "used000000000000");
    fs::write(used.join("left-over"), b"x").unwrap();
    assert_eq!(run(&used).unwrap_err(), VerifyError::DestinationNotPrivate);

    let loose = fresh_destination(&root, "loose00000000000");
    fs::set_permissions(&loose, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(run(&loose).unwrap_err(), VerifyError::DestinationNotPrivate);

    let target = fresh_destination(&root, "target0000000000");
    let link = root.join(".relay-backup-verify-link000000000000");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    assert_eq!(run(&link).unwrap_err(), VerifyError::DestinationNotPrivate);

    assert_eq!(run(Path::new("relative/dir")).unwrap_err(), VerifyError::DestinationNotPrivate);
    assert_eq!(run(&root.join("absent")).unwrap_err(), VerifyError::DestinationNotPrivate);
    assert!(run(&target).is_ok(), "the control destination passes");
}

#[test]
fn the_writers_stored_database_entry_is_accepted_and_its_crc_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, pool) = live_store(tmp.path());
    let written = good_archive(&root, &pool, "storeddb");
    let mut zip = ZipArchive::new(File::open(&written.path).unwrap()).unwrap();
    assert_eq!(zip.by_name(DATABASE_PATH).unwrap().compression(), CompressionMethod::Stored);
    drop(zip);
    let verified = verify(&root, &written.path, ExtractionLimits::default(), &PLENTY).unwrap();
    assert_eq!(verified.manifest, written.manifest);

    // One byte of a row inside the stored database changes; the entry's CRC does not.
    let mut corrupt = fs::read(&written.path).unwrap();
    let at = corrupt.windows(7).position(|w| w == b"keep me").expect("the row is stored as is");
    corrupt[at] ^= 0x20;
    fs::write(&written.path, &corrupt).unwrap();
    assert_eq!(
        verify(&root, &written.path, ExtractionLimits::default(), &PLENTY).unwrap_err(),
        VerifyError::ChecksumMismatch
    );
}

#[test]
fn the_database_check_waits_for_another_connections_lock() {
    use diesel::connection::SimpleConnection;
    let tmp = tempfile::tempdir().unwrap();
    let (root, pool) = live_store(tmp.path());
    let db = root.join("store").join("relay.db");
    drop(pool);
    let mut holder = SqliteConnection::establish(db.to_str().unwrap()).unwrap();
    // The dropped pool's connections may still be closing (r2d2 opens and drops them on its
    // own threads): wait for their locks rather than fail the test on a busy machine.
    holder.batch_execute("PRAGMA busy_timeout = 10000; PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;").unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        holder.batch_execute("COMMIT; PRAGMA locking_mode = NORMAL; SELECT count(*) FROM sqlite_master;").unwrap();
    });
    let checked = check_database(&db);
    release.join().unwrap();
    assert!(checked.is_ok(), "{checked:?}");
}
