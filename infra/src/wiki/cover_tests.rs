//! Tests of the cover checks: only a regular PNG of at most 2 MiB is kept, and a renderer
//! failure leaves no file behind (the real renderer runs when `pdftoppm` is installed).

use std::os::unix::fs::symlink;

use super::*;
use crate::wiki::test_pdfs;

fn png_of(len: usize) -> Vec<u8> {
    let mut bytes = PNG_SIGNATURE.to_vec();
    bytes.resize(len, 0);
    bytes
}

#[test]
fn only_a_regular_png_within_2_mib_passes() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good.png");
    fs::write(&good, png_of(1024)).unwrap();
    assert_eq!(check_png(&good), Ok(()));

    let big = tmp.path().join("big.png");
    fs::write(&big, png_of(MAX_COVER_PNG_BYTES as usize + 1)).unwrap();
    assert_eq!(check_png(&big), Err(CoverError::TooLarge));

    let jpeg = tmp.path().join("cover.jpg");
    fs::write(&jpeg, b"\xFF\xD8\xFF\xE0 not a png").unwrap();
    assert_eq!(check_png(&jpeg), Err(CoverError::NotPng));

    let link = tmp.path().join("link.png");
    symlink(&good, &link).unwrap();
    assert_eq!(check_png(&link), Err(CoverError::RenderFailed), "a link is never followed");
}

#[test]
fn a_render_failure_leaves_no_cover() {
    let tmp = tempfile::tempdir().unwrap();
    let pdf = tmp.path().join("garbage.pdf");
    fs::write(&pdf, test_pdfs::header_then_garbage()).unwrap();
    let expected = if renderer().is_some() { CoverError::RenderFailed } else { CoverError::RendererMissing };
    assert_eq!(render_cover(&pdf, tmp.path(), Duration::from_secs(30)), Err(expected));
    assert!(!tmp.path().join(COVER_FILE_NAME).exists());
}
