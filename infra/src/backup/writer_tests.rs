//! The archive writer: the layout and modes on disk, the manifest matching the bytes stored,
//! progress reports, and refusals (existing name, links, unsafe or reserved archive paths)
//! that leave nothing behind.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;

use super::*;
use crate::backup::test_support::{good_archive, live_store, T};
use domain::backup::names::ArchiveKind;

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn dir_listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

#[test]
fn writes_an_owner_only_archive_whose_manifest_matches_its_entries() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, pool) = live_store(tmp.path());
    let mut reports = Vec::new();
    let name = ArchiveName::new(ArchiveKind::Regular, T, "abcdefgh").unwrap();
    let extra = root.join("logo.png");
    fs::write(&extra, vec![7u8; 20_000]).unwrap();
    let extras = [ExtraFile { archive_path: "files/logos/logo.png".into(), source: extra }];
    let request = ArchiveRequest {
        data_root: &root,
        name: &name,
        relay_version: "0.1.0",
        created_ms: T,
        extra_files: &extras,
        compression: ArchiveCompression::Deflated,
    };
    let written = write_archive(&mut pool.get().unwrap(), &request, &mut |p| reports.push(p)).unwrap();

    let backups = root.join("backups");
    assert_eq!(written.path, backups.join(name.as_str()));
    assert_eq!(dir_listing(&backups), vec![name.as_str().to_string()], "no .part or snapshot left");
    assert_eq!((mode(&backups), mode(&written.path)), (0o700, 0o600));
    assert_eq!(written.size, fs::metadata(&written.path).unwrap().len());

    let manifest = &written.manifest;
    assert_eq!((manifest.relay_version.as_str(), manifest.created), ("0.1.0", T));
    let live_migrations = crate::backup::snapshot::applied_migrations(&mut pool.get().unwrap()).unwrap();
    assert!(!live_migrations.is_empty());
    assert_eq!(manifest.migrations, live_migrations, "every migration applied to the live store");
    let mut zip = zip::ZipArchive::new(File::open(&written.path).unwrap()).unwrap();
    let names: Vec<&str> = zip.file_names().collect();
    assert_eq!(names, vec!["relay.db", "files/logos/logo.png", "manifest.json"]);
    for entry in &manifest.entries {
        let mut bytes = Vec::new();
        zip.by_name(&entry.path).unwrap().read_to_end(&mut bytes).unwrap();
        assert_eq!((bytes.len() as u64, hex_lower(&Sha256::digest(&bytes))), (entry.size, entry.sha256.clone()));
    }
    let mut stored = Vec::new();
    zip.by_name(MANIFEST_PATH).unwrap().read_to_end(&mut stored).unwrap();
    assert_eq!(&Manifest::parse(&stored).unwrap(), manifest);
    assert_eq!(zip.by_name("relay.db").unwrap().unix_mode().map(|m| m & 0o777), Some(0o600));
    assert_eq!(zip.by_name("relay.db").unwrap().compression(), zip::CompressionMethod::Stored, "database stored");
    assert_eq!(zip.by_name("files/logos/logo.png").unwrap().compression(), zip::CompressionMethod::Deflated);

    let last = *reports.last().unwrap();
    assert_eq!((last.entries_done, last.entries_total), (3, 3));
    assert_eq!(last.bytes_done, last.bytes_total);
    assert_eq!(last.bytes_total, manifest.entries.iter().map(|e| e.size).sum::<u64>());
    assert!(reports.windows(2).all(|w| w[0].bytes_done <= w[1].bytes_done && w[0].entries_done <= w[1].entries_done));
}

fn request<'a>(root: &'a Path, name: &'a ArchiveName, extras: &'a [ExtraFile]) -> ArchiveRequest<'a> {
    ArchiveRequest {
        data_root: root,
        name,
        relay_version: "0.1.0",
        created_ms: T,
        extra_files: extras,
        compression: ArchiveCompression::Stored,
    }
}

#[test]
fn refusals_leave_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, pool) = live_store(tmp.path());
    let existing = good_archive(&root, &pool, "existing");
    let name = ArchiveName::parse(existing.path.file_name().unwrap().to_str().unwrap()).unwrap();
    let result = write_archive(&mut pool.get().unwrap(), &request(&root, &name, &[]), &mut |_| {});
    assert!(matches!(result, Err(ArchiveError::AlreadyExists)));

    fs::write(root.join("real.pdf"), b"pdf").unwrap();
    std::os::unix::fs::symlink(root.join("real.pdf"), root.join("link.pdf")).unwrap();
    let fresh = ArchiveName::new(ArchiveKind::Regular, T, "freshone").unwrap();
    for (path, source) in [
        ("files/link.pdf", "link.pdf"),
        ("../escape.pdf", "real.pdf"),
        ("relay.db", "real.pdf"),
        ("Manifest.JSON", "real.pdf"),
        ("relay.db-wal", "real.pdf"),
        ("files/", "real.pdf"),
        ("files/missing.pdf", "missing.pdf"),
    ] {
        let extras = [ExtraFile { archive_path: path.into(), source: root.join(source) }];
        let result = write_archive(&mut pool.get().unwrap(), &request(&root, &fresh, &extras), &mut |_| {});
        assert!(matches!(result, Err(ArchiveError::InvalidExtraFile(_))), "{path}: {result:?}");
        assert_eq!(dir_listing(&root.join("backups")), vec![existing.path.file_name().unwrap().to_str().unwrap()]);
    }
}

#[test]
fn an_archive_written_while_the_store_takes_writes_verifies() {
    use crate::backup::test_support::{fresh_destination, PLENTY};
    use crate::backup::verifier::verify_archive;
    use diesel::connection::SimpleConnection;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    let tmp = tempfile::tempdir().unwrap();
    let (root, pool) = live_store(tmp.path());
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (pool, stop) = (pool.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut conn = pool.get().unwrap();
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                conn.batch_execute("INSERT INTO operator_extras (note) VALUES (hex(randomblob(500)))").unwrap();
                n += 1;
            }
            n
        })
    };
    let name = ArchiveName::new(ArchiveKind::Regular, T, "whilebusy").unwrap();
    let written = write_archive(&mut pool.get().unwrap(), &request(&root, &name, &[]), &mut |_| {}).unwrap();
    stop.store(true, Ordering::Relaxed);
    let inserted = writer.join().unwrap();
    let dest = fresh_destination(&root, "whilebusy0000000");
    let verified = verify_archive(
        &written.path,
        &dest,
        &domain::backup::entries::ExtractionLimits::default(),
        &PLENTY,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(verified.manifest, written.manifest);
    assert!(verified.tables.iter().any(|t| t == "operator_extras"));
    assert!(inserted > 0, "the store took writes during the backup");
}
