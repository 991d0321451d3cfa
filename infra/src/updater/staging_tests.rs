//! The updates root and version directories on a real filesystem: missing components created
//! 0700, links anywhere on the path refused, relative or `..` paths refused, loose modes
//! tightened; fresh `vX.Y.Z-<uuid v4>` directories that remove themselves unless kept; files
//! created exclusively (an existing file or a planted link is refused) with exact modes; a
//! commit that never replaces a file; the root's listing (links reported, not followed) and the
//! removal of a staging directory that refuses a link in its place; where the root lives.

use std::io::Write;
use std::os::unix::fs::{symlink, PermissionsExt};

use domain::updater::StagingDirName;

use super::*;

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn the_root_and_its_missing_parents_are_created_owner_only() {
    let tmp = tempfile::tempdir().unwrap();
    let root_path = tmp.path().join("data/relay/updates");
    let root = UpdatesRoot::open(&root_path).unwrap();
    assert_eq!(root.path(), root_path);
    for created in [tmp.path().join("data"), tmp.path().join("data/relay"), root_path.clone()] {
        assert_eq!(mode(&created), 0o700, "{}", created.display());
    }
    // Opening again is fine.
    UpdatesRoot::open(&root_path).unwrap();
}

#[test]
fn a_symlink_anywhere_on_the_root_path_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real");
    fs::create_dir(&real).unwrap();
    symlink(&real, tmp.path().join("link")).unwrap();
    for path in [tmp.path().join("link"), tmp.path().join("link/updates"), tmp.path().join("link/a/b")] {
        let err = UpdatesRoot::open(&path).unwrap_err();
        assert!(matches!(err, StagingError::SymlinkInPath), "{}: {err:?}", path.display());
    }
    assert!(fs::read_dir(&real).unwrap().next().is_none(), "nothing was created through the link");
}

#[test]
fn relative_dotted_and_file_paths_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("file");
    fs::write(&file, b"x").unwrap();
    assert!(matches!(UpdatesRoot::open(Path::new("relay/updates")), Err(StagingError::RootNotAbsolute)));
    let dotted = tmp.path().join("a/../updates");
    assert!(matches!(UpdatesRoot::open(&dotted), Err(StagingError::RootNotAbsolute)));
    assert!(matches!(UpdatesRoot::open(&file), Err(StagingError::NotADirectory)));
    assert!(matches!(UpdatesRoot::open(&file.join("updates")), Err(StagingError::NotADirectory)));
}

#[test]
fn a_loose_root_is_tightened() {
    let tmp = tempfile::tempdir().unwrap();
    let root_path = tmp.path().join("updates");
    fs::create_dir(&root_path).unwrap();
    fs::set_permissions(&root_path, fs::Permissions::from_mode(0o777)).unwrap();
    UpdatesRoot::open(&root_path).unwrap();
    assert_eq!(mode(&root_path), 0o700);
}

#[test]
fn version_directories_are_fresh_private_and_removed_unless_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let root = UpdatesRoot::open(&tmp.path().join("updates")).unwrap();
    let version = Version::new(1, 3, 0);
    let first = root.create_version_dir(version).unwrap();
    let second = root.create_version_dir(version).unwrap();
    assert_ne!(first.path(), second.path());
    let name = first.path().file_name().unwrap().to_str().unwrap().to_owned();
    assert!(name.starts_with("v1.3.0-"), "{name}");
    assert_eq!(StagingDirName::parse(&name).unwrap(), *first.name());
    assert_eq!(mode(first.path()), 0o700);

    let dropped = first.path().to_path_buf();
    drop(first);
    assert!(!dropped.exists(), "a dropped directory is removed");
    let kept = second.keep();
    assert!(kept.is_dir(), "a kept directory stays");
}

#[test]
fn staging_files_are_exclusive_and_never_follow_links() {
    let tmp = tempfile::tempdir().unwrap();
    let root = UpdatesRoot::open(&tmp.path().join("updates")).unwrap();
    let dir = root.create_version_dir(Version::new(1, 3, 0)).unwrap();
    let mut file = dir.create_file("a.zip.part", 0o600).unwrap();
    file.write_all(b"zip").unwrap();
    assert_eq!(mode(&dir.file("a.zip.part")), 0o600);
    assert!(matches!(dir.create_file("a.zip.part", 0o600), Err(StagingError::AlreadyExists)));

    let outside = tmp.path().join("outside");
    symlink(&outside, dir.file("planted.part")).unwrap();
    assert!(matches!(dir.create_file("planted.part", 0o600), Err(StagingError::AlreadyExists)));
    assert!(!outside.exists(), "the link target was not created");
    assert!(matches!(dir.open_file("planted.part"), Err(StagingError::SymlinkInPath)));

    let exe = dir.create_file("relay-desktop", 0o700).unwrap();
    drop(exe);
    assert_eq!(mode(&dir.file("relay-desktop")), 0o700);
}

#[test]
fn a_commit_renames_and_never_replaces() {
    let tmp = tempfile::tempdir().unwrap();
    let root = UpdatesRoot::open(&tmp.path().join("updates")).unwrap();
    let dir = root.create_version_dir(Version::new(1, 3, 0)).unwrap();
    let file = dir.create_file("a.part", 0o600).unwrap();
    dir.commit(file, "a.part", "a").unwrap();
    assert!(dir.file("a").is_file() && !dir.file("a.part").exists());

    let file = dir.create_file("a.part", 0o600).unwrap();
    assert!(matches!(dir.commit(file, "a.part", "a"), Err(StagingError::AlreadyExists)));
}

#[test]
fn the_listing_reports_links_as_links_and_removal_refuses_them() {
    let tmp = tempfile::tempdir().unwrap();
    let root = UpdatesRoot::open(&tmp.path().join("updates")).unwrap();
    let kept = root.create_version_dir(Version::new(1, 3, 0)).unwrap();
    let name = *kept.name();
    let kept_path = kept.keep();
    fs::write(kept_path.join("relay-desktop"), b"x").unwrap();
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    let linked = StagingDirName::parse("v1.2.9-00000000-0000-4000-8000-000000000000").unwrap();
    symlink(&elsewhere, root.path().join(linked.to_string())).unwrap();

    let mut entries = root.entries().unwrap();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let shape: Vec<(String, bool, bool)> =
        entries.iter().map(|e| (e.name.clone(), e.is_dir, e.modified_ms.is_some())).collect();
    let mut expected = vec![(name.to_string(), true, true), (linked.to_string(), false, true)];
    expected.sort();
    assert_eq!(shape, expected);

    assert!(matches!(root.remove_staging_dir(&linked), Err(StagingError::SymlinkInPath)));
    assert!(elsewhere.is_dir(), "the link's target was touched");
    root.remove_staging_dir(&name).unwrap();
    assert!(!kept_path.exists());
}

#[test]
fn the_root_lives_under_the_xdg_data_home() {
    use std::ffi::OsStr;
    let from = |xdg: Option<&str>, home: Option<&str>| updates_dir_from(xdg.map(OsStr::new), home.map(OsStr::new));
    assert_eq!(from(Some("/data"), Some("/home/op")), Some(PathBuf::from("/data/relay/updates")));
    assert_eq!(from(Some("relative"), Some("/home/op")), Some(PathBuf::from("/home/op/.local/share/relay/updates")));
    assert_eq!(from(None, Some("/home/op")), Some(PathBuf::from("/home/op/.local/share/relay/updates")));
    assert_eq!(from(None, Some("home")), None);
    assert_eq!(from(None, None), None);
}
