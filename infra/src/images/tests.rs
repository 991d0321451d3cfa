//! Tests of the image pipeline and the logo files. Fixtures are made in code: encoded with the
//! `image` crate, then header bytes patched (with the PNG chunk CRC recomputed) or cut off; the
//! animated and huge-canvas WebPs are assembled chunk by chunk around a real lossless frame.

use super::testdata::{pixels, png, png_declaring};
use super::*;
use domain::images::{LogoKind, MAX_BODY_OUTPUT_BYTES, MAX_LOGO_INPUT_BYTES, MAX_LOGO_OUTPUT_BYTES};
use image::codecs::webp::WebPEncoder;
use proptest::prelude::*;

fn jpeg(w: u32, h: u32, seed: u32) -> Vec<u8> {
    encode_jpeg(&DynamicImage::ImageRgba8(pixels(w, h, seed)).into_rgb8()).unwrap()
}

fn webp(w: u32, h: u32, seed: u32) -> Vec<u8> {
    let img = pixels(w, h, seed);
    let mut out = Vec::new();
    WebPEncoder::new_lossless(&mut out).write_image(img.as_raw(), w, h, image::ExtendedColorType::Rgba8).unwrap();
    out
}

fn riff(chunks: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
    let mut body = b"WEBP".to_vec();
    for (fourcc, data) in chunks {
        body.extend_from_slice(*fourcc);
        body.extend_from_slice(&(data.len() as u32).to_le_bytes());
        body.extend_from_slice(data);
        if data.len() % 2 == 1 {
            body.push(0);
        }
    }
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

fn u24(v: u32) -> [u8; 3] {
    let b = v.to_le_bytes();
    [b[0], b[1], b[2]]
}

/// The `VP8L` chunk payload of a real lossless WebP of `w`x`h`.
fn vp8l_frame(w: u32, h: u32) -> Vec<u8> {
    let simple = webp(w, h, 7);
    assert_eq!(&simple[12..16], b"VP8L");
    let len = u32::from_le_bytes(simple[16..20].try_into().unwrap()) as usize;
    simple[20..20 + len].to_vec()
}

fn vp8x(flags: u8, w: u32, h: u32) -> Vec<u8> {
    let mut d = vec![flags, 0, 0, 0];
    d.extend_from_slice(&u24(w - 1));
    d.extend_from_slice(&u24(h - 1));
    d
}

/// An animated WebP: VP8X with the animation flag, ANIM, and two ANMF frames.
fn animated_webp() -> Vec<u8> {
    let frame = |x: u32| {
        let mut d = Vec::new();
        d.extend_from_slice(&u24(x / 2));
        d.extend_from_slice(&u24(0));
        d.extend_from_slice(&u24(7));
        d.extend_from_slice(&u24(7));
        d.extend_from_slice(&u24(100));
        d.push(0);
        let vp8l = vp8l_frame(8, 8);
        d.extend_from_slice(b"VP8L");
        d.extend_from_slice(&(vp8l.len() as u32).to_le_bytes());
        d.extend_from_slice(&vp8l);
        if vp8l.len() % 2 == 1 {
            d.push(0);
        }
        d
    };
    riff(&[(b"VP8X", vp8x(0x02, 16, 8)), (b"ANIM", vec![0, 0, 0, 0, 0, 0]), (b"ANMF", frame(0)), (b"ANMF", frame(8))])
}

fn refused(bytes: &[u8]) -> &'static str {
    let logo = process_logo(bytes).unwrap_err();
    let body = process_body_image(bytes).unwrap_err();
    assert_eq!(logo.code(), body.code(), "both pipelines refuse alike");
    logo.code()
}

use domain::problem::HttpProblem as _;

#[test]
fn valid_inputs_of_each_format_become_bounded_pngs() {
    for input in [png(800, 200, 0), jpeg(300, 600, 3), webp(120, 90, 5)] {
        let out = process_logo(&input).unwrap();
        assert_eq!(out.format, ImageFormat::Png);
        assert!(out.width <= 400 && out.height <= 400);
        let back = image::load_from_memory_with_format(&out.bytes, image::ImageFormat::Png).unwrap();
        assert_eq!((back.width(), back.height()), (out.width, out.height));
    }
    let out = process_logo(&png(800, 200, 0)).unwrap();
    assert_eq!((out.width, out.height), (400, 100));
    let small = process_logo(&webp(120, 90, 5)).unwrap();
    assert_eq!((small.width, small.height), (120, 90), "never enlarged");
}

#[test]
fn over_two_mebibytes_is_refused_before_sniffing() {
    let mut big = png(8, 8, 0);
    big.resize(MAX_LOGO_INPUT_BYTES + 1, 0);
    let err = process_logo(&big).unwrap_err();
    assert_eq!((err.code(), err.to_string().as_str()), ("too_large", "Image must be under 2 MB"));
    let err = process_logo(&vec![b'x'; MAX_LOGO_INPUT_BYTES + 1]).unwrap_err();
    assert_eq!(err.code(), "too_large");
}

#[test]
fn wrong_magic_is_unsupported_whatever_the_name() {
    assert_eq!(refused(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"), "unsupported_format");
    assert_eq!(refused(b"just some text saved as logo.png\n"), "unsupported_format");
    assert_eq!(refused(b"<svg xmlns='http://www.w3.org/2000/svg'/>"), "unsupported_format");
    assert_eq!(refused(b""), "unsupported_format");
    let err = process_logo(b"BM....").unwrap_err();
    assert_eq!(err.to_string(), "Image must be a PNG, JPEG or WebP file");
}

#[test]
fn truncated_png_jpeg_and_webp_are_refused() {
    for (name, full) in [("png", png(64, 64, 9)), ("jpeg", jpeg(64, 64, 9)), ("webp", webp(64, 64, 9))] {
        for cut in [full.len() / 2, full.len() - 1] {
            assert_eq!(refused(&full[..cut]), "truncated", "{name} cut at {cut}");
        }
    }
}

#[test]
fn a_20000_square_header_is_refused_before_decode() {
    let err = process_logo(&png_declaring(20_000, 20_000)).unwrap_err();
    assert_eq!(err, ImageError::DimensionsTooLarge { width: 20_000, height: 20_000 });
    assert!(err.to_string().contains("20000x20000"), "{err}");
}

#[test]
fn a_decompression_bomb_within_the_side_limit_is_refused_by_pixel_count() {
    // 8000x8000 passes the per-side limit but is 64 megapixels (256 MB decoded).
    assert_eq!(refused(&png_declaring(8000, 8000)), "dimensions_too_large");
    assert_eq!(refused(&png_declaring(8192, 2049)), "dimensions_too_large");
}

#[test]
fn the_header_budget_holds_even_without_decoder_limits() {
    // The header check alone refuses these, before any pixel buffer is allocated.
    for (w, h) in [(20_000, 20_000), (8000, 8000)] {
        let err = decode_checked(&png_declaring(w, h), ImagePurpose::Logo, Limits::no_limits()).unwrap_err();
        assert_eq!(err, ImageError::DimensionsTooLarge { width: w, height: h });
    }
}

#[test]
fn the_decoder_runs_under_image_limits() {
    // Within the header budget, but over a tight allocation budget: the decoder refuses.
    let mut tight = decode_limits();
    tight.max_alloc = Some(1024);
    let err = decode_checked(&png(64, 64, 1), ImagePurpose::Logo, tight).unwrap_err();
    assert_eq!(err.code(), "dimensions_too_large");
    assert!(decode_checked(&png(64, 64, 1), ImagePurpose::Logo, decode_limits()).is_ok());
}

#[test]
fn animated_webp_is_refused() {
    assert_eq!(refused(&animated_webp()), "animated");
    let err = process_logo(&animated_webp()).unwrap_err();
    assert_eq!(err.to_string(), "Animated images are not supported");
}

#[test]
fn webp_with_a_huge_canvas_or_frame_is_refused() {
    let frame = vp8l_frame(8, 8);
    let canvas = riff(&[(b"VP8X", vp8x(0, 20_000, 20_000)), (b"VP8L", frame.clone())]);
    assert_eq!(refused(&canvas), "dimensions_too_large");
    // A simple (VP8L) WebP whose frame header declares 16384x16384.
    let mut huge = frame;
    let bits: u32 = 16_383 | (16_383 << 14);
    huge[1..5].copy_from_slice(&bits.to_le_bytes());
    assert_eq!(refused(&riff(&[(b"VP8L", huge)])), "dimensions_too_large");
}

#[test]
fn body_images_keep_png_and_turn_the_rest_into_jpeg() {
    let out = process_body_image(&png(1032, 100, 0)).unwrap();
    assert_eq!((out.format, out.width, out.height), (ImageFormat::Png, 516, 50));
    let out = process_body_image(&jpeg(200, 100, 2)).unwrap();
    assert_eq!((out.format, out.width, out.height), (ImageFormat::Jpeg, 200, 100));
    let out = process_body_image(&webp(600, 60, 2)).unwrap();
    assert_eq!((out.format, out.width), (ImageFormat::Jpeg, 516));
    assert_eq!(image::guess_format(&out.bytes).unwrap(), image::ImageFormat::Jpeg);
}

#[test]
fn outputs_over_their_bound_are_refused() {
    let over = |n| Processed { bytes: vec![0; n], format: ImageFormat::Png, width: 1, height: 1 };
    assert!(bounded(ImagePurpose::Logo, over(MAX_LOGO_OUTPUT_BYTES)).is_ok());
    let err = bounded(ImagePurpose::Logo, over(MAX_LOGO_OUTPUT_BYTES + 1)).unwrap_err();
    assert_eq!(err.code(), "output_too_large");
    assert!(bounded(ImagePurpose::AlertBody, over(MAX_BODY_OUTPUT_BYTES + 1)).is_err());
}

#[test]
fn transparent_areas_become_white_in_jpeg() {
    let clear = RgbaImage::from_pixel(2, 2, image::Rgba([0, 0, 0, 0]));
    assert_eq!(over_white(&clear).get_pixel(0, 0).0, [255, 255, 255]);
    let solid = RgbaImage::from_pixel(1, 1, image::Rgba([10, 20, 30, 255]));
    assert_eq!(over_white(&solid).get_pixel(0, 0).0, [10, 20, 30]);
}

fn any_format() -> impl Strategy<Value = u8> {
    0u8..3
}

fn encode(format: u8, w: u32, h: u32, seed: u32) -> Vec<u8> {
    match format {
        0 => png(w, h, seed),
        1 => jpeg(w, h, seed),
        _ => webp(w, h, seed),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn logo_output_is_always_inside_the_box_and_the_byte_bound(
        w in 1u32..=700, h in 1u32..=700, seed in 0u32..1000, format in any_format(),
    ) {
        let out = process_logo(&encode(format, w, h, seed)).unwrap();
        prop_assert!(out.width <= 400 && out.height <= 400);
        prop_assert!(out.width <= w && out.height <= h, "never enlarged");
        prop_assert_eq!((out.width, out.height), fit_inside(w, h, 400, 400));
        prop_assert!(out.bytes.len() <= MAX_LOGO_OUTPUT_BYTES);
        let back = image::load_from_memory_with_format(&out.bytes, image::ImageFormat::Png).unwrap();
        prop_assert_eq!((back.width(), back.height()), (out.width, out.height));
    }

    #[test]
    fn body_output_is_at_most_516_wide_and_follows_the_format_rule(
        w in 1u32..=800, h in 1u32..=300, seed in 0u32..1000, format in any_format(),
    ) {
        let out = process_body_image(&encode(format, w, h, seed)).unwrap();
        prop_assert!(out.width <= 516 && out.width <= w);
        prop_assert_eq!(out.format, if format == 0 { ImageFormat::Png } else { ImageFormat::Jpeg });
        prop_assert!(out.bytes.len() <= MAX_BODY_OUTPUT_BYTES);
        let back = image::load_from_memory(&out.bytes).unwrap();
        prop_assert_eq!((back.width(), back.height()), (out.width, out.height));
    }
}

mod storage {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn logos_are_owner_only_replaced_atomically_and_removed_idempotently() {
        let dir = tempfile::tempdir().unwrap();
        let logos = LogoStore::new(dir.path());
        assert_eq!(logos.get(LogoKind::Company).unwrap(), None);
        logos.put(LogoKind::Company, b"first").unwrap();
        logos.put(LogoKind::Company, b"second").unwrap();
        assert_eq!(logos.get(LogoKind::Company).unwrap().as_deref(), Some(&b"second"[..]));
        assert_eq!(logos.get(LogoKind::Footer).unwrap(), None);
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&logos.path(LogoKind::Company)), 0o600);
        assert_eq!(mode(&logos.dir()), 0o700);
        assert_eq!(mode(&dir.path().join("store")), 0o700);
        let names: Vec<_> = std::fs::read_dir(logos.dir()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["company-logo.png"], "no temp file left behind");
        // An oversized write is refused and the previous logo stays.
        assert!(logos.put(LogoKind::Company, &vec![0; MAX_LOGO_OUTPUT_BYTES + 1]).is_err());
        assert_eq!(logos.get(LogoKind::Company).unwrap().as_deref(), Some(&b"second"[..]));
        logos.remove(LogoKind::Company).unwrap();
        logos.remove(LogoKind::Company).unwrap();
        assert_eq!(logos.get(LogoKind::Company).unwrap(), None);
    }

    #[test]
    fn a_linked_logo_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let logos = LogoStore::new(dir.path());
        logos.put(LogoKind::Footer, b"x").unwrap();
        std::fs::remove_file(logos.path(LogoKind::Footer)).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", logos.path(LogoKind::Footer)).unwrap();
        assert!(logos.get(LogoKind::Footer).is_err());
    }

    #[test]
    fn a_stored_logo_is_in_the_backup_file_list() {
        let dir = tempfile::tempdir().unwrap();
        let logos = LogoStore::new(dir.path());
        let out = process_logo(&png(500, 500, 0)).unwrap();
        logos.put(LogoKind::Company, &out.bytes).unwrap();
        logos.put(LogoKind::Footer, &out.bytes).unwrap();
        let files = crate::backup::files::store_extra_files(dir.path()).unwrap();
        let names: Vec<_> = files.iter().map(|f| f.archive_path.as_str()).collect();
        assert_eq!(names, ["assets/company-logo.png", "assets/footer-logo.png"]);
    }

    #[test]
    fn input_files_are_read_bounded_and_regular_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("logo.png");
        std::fs::write(&path, b"12345").unwrap();
        assert_eq!(read_input_file(&path, 5).unwrap(), b"12345");
        assert!(matches!(read_input_file(&path, 4), Err(InputFileError::TooLarge)));
        assert!(matches!(read_input_file(dir.path(), 10), Err(InputFileError::NotRegular)));
        assert!(matches!(read_input_file(&dir.path().join("missing"), 10), Err(InputFileError::Io(_))));
    }
}
