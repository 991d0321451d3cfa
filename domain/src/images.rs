//! The image and logo rules, with no decoder and no IO: the two logo kinds (`company`,
//! `footer`), every limit as a named constant (input bytes, the 400x400 logo box, the 516 px
//! alert-body width, JPEG quality, the header width/height/pixel and decode-allocation budgets,
//! the output byte bounds), format sniffing by magic bytes (never by file name), the header
//! budget check that runs before any pixel is decoded, the fit-inside-a-box arithmetic (never
//! enlarges, never below 1 px), and [`ImageError`], the typed refusal with stable codes and
//! operator-readable messages. Decoding and encoding live in `infra::images`; this module
//! refuses to know about files, codecs or HTTP beyond the `HttpProblem` contract.

use serde::{Deserialize, Serialize};

use crate::problem::HttpProblem;

const MIB: usize = 1024 * 1024;

/// Largest accepted logo input (compressed bytes as uploaded).
pub const MAX_LOGO_INPUT_BYTES: usize = 2 * MIB;
/// Largest accepted alert-body image input.
pub const MAX_BODY_INPUT_BYTES: usize = 5 * MIB;
/// Logos are resized to fit inside this box (never enlarged).
pub const LOGO_BOX: (u32, u32) = (400, 400);
/// Alert-body images wider than this are scaled down to it, keeping the aspect ratio.
pub const BODY_MAX_WIDTH: u32 = 516;
/// Quality of the JPEG written for non-PNG alert-body images.
pub const BODY_JPEG_QUALITY: u8 = 82;
/// Largest width or height a header may declare; checked before decoding.
pub const MAX_HEADER_SIDE: u32 = 8192;
/// Largest pixel count a header may declare (a 4096x4096 image); checked before decoding.
pub const MAX_HEADER_PIXELS: u64 = 16 * 1024 * 1024;
/// The decoder's allocation budget (`image::Limits::max_alloc`): the decoded RGBA8 frame of the
/// largest accepted image plus headroom for the decoder's own buffers.
pub const MAX_DECODE_ALLOC: u64 = 96 * MIB as u64;
/// Bound on a stored logo PNG. A 400x400 RGBA8 image is 625 KiB raw; 1 MiB leaves room for
/// PNG framing of incompressible pixels, so a valid logo always fits.
pub const MAX_LOGO_OUTPUT_BYTES: usize = MIB;
/// Bound on a processed alert-body image (the same as its input limit).
pub const MAX_BODY_OUTPUT_BYTES: usize = 5 * MIB;

/// Which logo: the header (company) logo or the footer logo. Wire names `company` / `footer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogoKind {
    Company,
    Footer,
}

impl LogoKind {
    pub const ALL: [LogoKind; 2] = [LogoKind::Company, LogoKind::Footer];

    /// The wire name (`company` / `footer`).
    pub fn as_str(self) -> &'static str {
        match self {
            LogoKind::Company => "company",
            LogoKind::Footer => "footer",
        }
    }

    /// Strict parse of a wire name (exact, lowercase).
    pub fn parse(name: &str) -> Option<LogoKind> {
        LogoKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// The stored file name: `<kind>-logo.png`.
    pub fn file_name(self) -> &'static str {
        match self {
            LogoKind::Company => "company-logo.png",
            LogoKind::Footer => "footer-logo.png",
        }
    }
}

/// The three accepted formats, as sniffed from the first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    Png,
    Jpeg,
    Webp,
}

impl ImageFormat {
    pub fn mime(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Webp => "image/webp",
        }
    }
}

const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// The format by magic bytes only (`\x89PNG\r\n\x1a\n`, `FF D8 FF`, `RIFF....WEBP`); anything
/// else, whatever its name, is `None`.
pub fn sniff(bytes: &[u8]) -> Option<ImageFormat> {
    if bytes.starts_with(PNG_MAGIC) {
        Some(ImageFormat::Png)
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(ImageFormat::Jpeg)
    } else if bytes.len() >= 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some(ImageFormat::Webp)
    } else {
        None
    }
}

/// Whether the file ends where its format says it does, checked before decoding (some
/// decoders pad a cut-off file with grey and report success): a PNG must contain its `IEND`
/// chunk (with its fixed CRC); a JPEG must have an end-of-image marker after its last
/// start-of-scan (entropy-coded data cannot contain `FF D9`: a data `FF` is stuffed as
/// `FF 00`); a WebP must be at least as long as its RIFF header says.
pub fn check_complete(format: ImageFormat, bytes: &[u8]) -> Result<(), ImageError> {
    let complete = match format {
        ImageFormat::Png => bytes.windows(8).any(|w| w == b"IEND\xAE\x42\x60\x82"),
        ImageFormat::Jpeg => {
            let last = |marker: u8| bytes.windows(2).rposition(|w| w == [0xFF, marker]);
            matches!((last(0xDA), last(0xD9)), (Some(sos), Some(eoi)) if eoi > sos)
        }
        ImageFormat::Webp => {
            let declared = bytes.get(4..8).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
            declared.is_some_and(|n| bytes.len() >= n.saturating_add(8))
        }
    };
    if complete {
        Ok(())
    } else {
        Err(ImageError::Truncated)
    }
}

/// What a WebP's first chunk declares, read without a decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebpHeader {
    /// The canvas (`VP8X`) or the single frame's (`VP8L` / `VP8 `) size.
    pub width: u32,
    pub height: u32,
    /// The `VP8X` animation flag.
    pub animated: bool,
}

/// Parses the first chunk of a `RIFF....WEBP` file: `VP8X` (flags, 24-bit canvas size),
/// `VP8L` (14-bit sizes after the 0x2f signature) or `VP8 ` (after the key-frame start code).
/// `None` when the chunk is missing, unknown or malformed.
pub fn webp_header(bytes: &[u8]) -> Option<WebpHeader> {
    if sniff(bytes) != Some(ImageFormat::Webp) {
        return None;
    }
    let fourcc = bytes.get(12..16)?;
    let data = bytes.get(20..)?;
    let u24 = |b: &[u8]| u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16;
    let u16le = |b: &[u8]| u32::from(b[0]) | u32::from(b[1]) << 8;
    match fourcc {
        b"VP8X" => {
            let d = data.get(..10)?;
            Some(WebpHeader { width: u24(&d[4..7]) + 1, height: u24(&d[7..10]) + 1, animated: d[0] & 0x02 != 0 })
        }
        b"VP8L" => {
            let d = data.get(..5)?;
            if d[0] != 0x2f {
                return None;
            }
            let bits = u32::from_le_bytes([d[1], d[2], d[3], d[4]]);
            Some(WebpHeader { width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1, animated: false })
        }
        b"VP8 " => {
            let d = data.get(..10)?;
            if d[3..6] != [0x9d, 0x01, 0x2a] {
                return None;
            }
            Some(WebpHeader { width: u16le(&d[6..8]) & 0x3FFF, height: u16le(&d[8..10]) & 0x3FFF, animated: false })
        }
        _ => None,
    }
}

/// A `data:` URL for processed image bytes (`data:image/png;base64,…`).
pub fn data_url(format: ImageFormat, bytes: &[u8]) -> String {
    use base64::Engine as _;
    format!("data:{};base64,{}", format.mime(), base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// What the image is for; decides the input limit and the error message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImagePurpose {
    Logo,
    AlertBody,
}

impl ImagePurpose {
    pub fn max_input_bytes(self) -> usize {
        match self {
            ImagePurpose::Logo => MAX_LOGO_INPUT_BYTES,
            ImagePurpose::AlertBody => MAX_BODY_INPUT_BYTES,
        }
    }

    pub fn max_output_bytes(self) -> usize {
        match self {
            ImagePurpose::Logo => MAX_LOGO_OUTPUT_BYTES,
            ImagePurpose::AlertBody => MAX_BODY_OUTPUT_BYTES,
        }
    }

    /// The input size check, done before anything else looks at the bytes.
    pub fn check_input_len(self, len: usize) -> Result<(), ImageError> {
        if len > self.max_input_bytes() {
            return Err(ImageError::TooLarge { limit_mb: self.max_input_bytes() / MIB });
        }
        if len == 0 {
            return Err(ImageError::UnsupportedFormat);
        }
        Ok(())
    }
}

/// The header budget: each side at most [`MAX_HEADER_SIDE`], at most [`MAX_HEADER_PIXELS`],
/// and no zero side. Runs on the header's declared dimensions before any pixel is decoded.
pub fn check_header_dimensions(width: u32, height: u32) -> Result<(), ImageError> {
    if width == 0 || height == 0 {
        return Err(ImageError::DecodeFailed);
    }
    if width > MAX_HEADER_SIDE || height > MAX_HEADER_SIDE || u64::from(width) * u64::from(height) > MAX_HEADER_PIXELS {
        return Err(ImageError::DimensionsTooLarge { width, height });
    }
    Ok(())
}

/// The size that fits `(width, height)` inside `(box_w, box_h)` keeping the aspect ratio:
/// unchanged when it already fits (never enlarged), each side at least 1 px.
pub fn fit_inside(width: u32, height: u32, box_w: u32, box_h: u32) -> (u32, u32) {
    let (width, height) = (width.max(1), height.max(1));
    let (box_w, box_h) = (box_w.max(1), box_h.max(1));
    if width <= box_w && height <= box_h {
        return (width, height);
    }
    let (w, h) = (u64::from(width), u64::from(height));
    let (bw, bh) = (u64::from(box_w), u64::from(box_h));
    // Scale by the tighter side: compare width/box_w with height/box_h without floats.
    let (nw, nh) = if w * bh >= h * bw { (bw, (h * bw + w / 2) / w) } else { ((w * bh + h / 2) / h, bh) };
    (nw.clamp(1, bw) as u32, nh.clamp(1, bh) as u32)
}

/// The alert-body size: wider than [`BODY_MAX_WIDTH`] scales down to it (aspect kept), else
/// unchanged.
pub fn body_size(width: u32, height: u32) -> (u32, u32) {
    fit_inside(width, height, BODY_MAX_WIDTH, u32::MAX)
}

/// The alert-body output format: a PNG stays PNG, anything else becomes JPEG.
pub fn body_output_format(input: ImageFormat) -> ImageFormat {
    match input {
        ImageFormat::Png => ImageFormat::Png,
        ImageFormat::Jpeg | ImageFormat::Webp => ImageFormat::Jpeg,
    }
}

/// Why an image was refused. Messages are for the operator and never echo the image bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    #[error("Image must be under {limit_mb} MB")]
    TooLarge { limit_mb: usize },
    #[error("Image must be a PNG, JPEG or WebP file")]
    UnsupportedFormat,
    #[error("Image dimensions {width}x{height} are too large (at most {MAX_HEADER_SIDE} px a side and 16 megapixels)")]
    DimensionsTooLarge { width: u32, height: u32 },
    #[error("Image file is truncated or incomplete")]
    Truncated,
    #[error("Animated images are not supported")]
    Animated,
    #[error("Invalid image file")]
    DecodeFailed,
    #[error("The processed image would be larger than {limit_mb} MB")]
    OutputTooLarge { limit_mb: usize },
}

impl ImageError {
    /// The output bound for `purpose` was exceeded.
    pub fn output_too_large(purpose: ImagePurpose) -> ImageError {
        ImageError::OutputTooLarge { limit_mb: purpose.max_output_bytes().div_ceil(MIB) }
    }
}

impl HttpProblem for ImageError {
    fn status(&self) -> u16 {
        match self {
            ImageError::TooLarge { .. } | ImageError::OutputTooLarge { .. } => 413,
            ImageError::UnsupportedFormat => 415,
            ImageError::DimensionsTooLarge { .. }
            | ImageError::Truncated
            | ImageError::Animated
            | ImageError::DecodeFailed => 422,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            ImageError::TooLarge { .. } => "too_large",
            ImageError::UnsupportedFormat => "unsupported_format",
            ImageError::DimensionsTooLarge { .. } => "dimensions_too_large",
            ImageError::Truncated => "truncated",
            ImageError::Animated => "animated",
            ImageError::DecodeFailed => "decode_failed",
            ImageError::OutputTooLarge { .. } => "output_too_large",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn logo_kinds_have_stable_wire_and_file_names() {
        assert_eq!(LogoKind::parse("company"), Some(LogoKind::Company));
        assert_eq!(LogoKind::parse("footer"), Some(LogoKind::Footer));
        for bad in ["Company", "header", "", "company/../x"] {
            assert_eq!(LogoKind::parse(bad), None, "{bad}");
        }
        assert_eq!(LogoKind::Footer.file_name(), "footer-logo.png");
        assert_eq!(serde_json::to_string(&LogoKind::Company).unwrap(), "\"company\"");
    }

    #[test]
    fn sniffing_uses_magic_bytes_only() {
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\nrest"), Some(ImageFormat::Png));
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xE0]), Some(ImageFormat::Jpeg));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), Some(ImageFormat::Webp));
        assert_eq!(sniff(b"GIF89a......"), None);
        assert_eq!(sniff(b"not an image, just text named logo.png"), None);
        assert_eq!(sniff(b"RIFF\0\0\0\0WAVEfmt "), None);
        assert_eq!(sniff(b""), None);
    }

    #[test]
    fn cut_off_files_are_truncated() {
        let png = b"\x89PNG\r\n\x1a\n....IDAT....\0\0\0\0IEND\xAE\x42\x60\x82";
        assert_eq!(check_complete(ImageFormat::Png, png), Ok(()));
        assert_eq!(check_complete(ImageFormat::Png, &png[..png.len() - 1]), Err(ImageError::Truncated));
        let jpeg = [0xFF, 0xD8, 0xFF, 0xDA, 1, 2, 0xFF, 0x00, 3, 0xFF, 0xD9];
        assert_eq!(check_complete(ImageFormat::Jpeg, &jpeg), Ok(()));
        assert_eq!(check_complete(ImageFormat::Jpeg, &jpeg[..9]), Err(ImageError::Truncated));
        // An embedded thumbnail's end marker before the main scan does not count.
        let thumb_then_cut = [0xFF, 0xD8, 0xFF, 0xD9, 0xFF, 0xDA, 1, 2];
        assert_eq!(check_complete(ImageFormat::Jpeg, &thumb_then_cut), Err(ImageError::Truncated));
        let mut webp = b"RIFF\x08\0\0\0WEBPVP8L".to_vec();
        assert_eq!(check_complete(ImageFormat::Webp, &webp), Ok(()));
        webp[4] = 9;
        assert_eq!(check_complete(ImageFormat::Webp, &webp), Err(ImageError::Truncated));
    }

    #[test]
    fn webp_headers_are_read_without_a_decoder() {
        let chunk = |fourcc: &[u8], data: &[u8]| {
            let mut out = b"RIFF\0\0\0\0WEBP".to_vec();
            out.extend_from_slice(fourcc);
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(data);
            out
        };
        // VP8X: animation flag, canvas 20000x300 (stored minus one, 24-bit little endian).
        let (w, h) = (20_000u32 - 1, 300u32 - 1);
        let mut vp8x = vec![0x02, 0, 0, 0];
        vp8x.extend_from_slice(&w.to_le_bytes()[..3]);
        vp8x.extend_from_slice(&h.to_le_bytes()[..3]);
        assert_eq!(
            webp_header(&chunk(b"VP8X", &vp8x)),
            Some(WebpHeader { width: 20_000, height: 300, animated: true })
        );
        let bits: u32 = 15 | (31 << 14);
        let mut vp8l = vec![0x2f];
        vp8l.extend_from_slice(&bits.to_le_bytes());
        assert_eq!(webp_header(&chunk(b"VP8L", &vp8l)), Some(WebpHeader { width: 16, height: 32, animated: false }));
        let vp8 = [0, 0, 0, 0x9d, 0x01, 0x2a, 10, 0, 20, 0];
        assert_eq!(webp_header(&chunk(b"VP8 ", &vp8)), Some(WebpHeader { width: 10, height: 20, animated: false }));
        assert_eq!(webp_header(&chunk(b"ALPH", &vp8)), None);
        assert_eq!(webp_header(&chunk(b"VP8L", &[0x00, 1, 2, 3, 4])), None);
        assert_eq!(webp_header(b"RIFF\0\0\0\0WEBPVP8X"), None);
    }

    #[test]
    fn data_urls_name_the_output_type() {
        assert_eq!(data_url(ImageFormat::Png, b"ab"), "data:image/png;base64,YWI=");
        assert!(data_url(ImageFormat::Jpeg, b"").starts_with("data:image/jpeg;base64,"));
    }

    #[test]
    fn input_limits_and_messages() {
        assert_eq!(ImagePurpose::Logo.check_input_len(MAX_LOGO_INPUT_BYTES), Ok(()));
        let err = ImagePurpose::Logo.check_input_len(MAX_LOGO_INPUT_BYTES + 1).unwrap_err();
        assert_eq!(err.to_string(), "Image must be under 2 MB");
        assert_eq!((err.status(), err.code()), (413, "too_large"));
        let err = ImagePurpose::AlertBody.check_input_len(MAX_BODY_INPUT_BYTES + 1).unwrap_err();
        assert_eq!(err.to_string(), "Image must be under 5 MB");
        assert_eq!(ImagePurpose::Logo.check_input_len(0), Err(ImageError::UnsupportedFormat));
    }

    #[test]
    fn header_budget_refuses_wide_tall_and_many_pixels() {
        assert_eq!(check_header_dimensions(8192, 2048), Ok(()));
        assert_eq!(check_header_dimensions(4096, 4096), Ok(()));
        for (w, h) in [(20_000, 20_000), (8193, 1), (1, 8193), (8192, 8192), (4097, 4096)] {
            let err = check_header_dimensions(w, h).unwrap_err();
            assert_eq!(err.code(), "dimensions_too_large", "{w}x{h}");
        }
        assert_eq!(check_header_dimensions(0, 10), Err(ImageError::DecodeFailed));
    }

    #[test]
    fn fit_inside_examples() {
        assert_eq!(fit_inside(100, 50, 400, 400), (100, 50));
        assert_eq!(fit_inside(800, 400, 400, 400), (400, 200));
        assert_eq!(fit_inside(400, 1600, 400, 400), (100, 400));
        assert_eq!(fit_inside(8000, 1, 400, 400), (400, 1));
        assert_eq!(fit_inside(1, 8000, 400, 400), (1, 400));
        assert_eq!(body_size(1032, 100), (516, 50));
        assert_eq!(body_size(300, 5000), (300, 5000));
        assert_eq!(body_size(600, 8192), (516, 7045));
    }

    #[test]
    fn body_format_rule() {
        assert_eq!(body_output_format(ImageFormat::Png), ImageFormat::Png);
        assert_eq!(body_output_format(ImageFormat::Jpeg), ImageFormat::Jpeg);
        assert_eq!(body_output_format(ImageFormat::Webp), ImageFormat::Jpeg);
    }

    #[test]
    fn every_error_has_a_stable_code_and_a_4xx_status() {
        let all = [
            ImageError::TooLarge { limit_mb: 2 },
            ImageError::UnsupportedFormat,
            ImageError::DimensionsTooLarge { width: 1, height: 1 },
            ImageError::Truncated,
            ImageError::Animated,
            ImageError::DecodeFailed,
            ImageError::output_too_large(ImagePurpose::Logo),
        ];
        let codes: std::collections::BTreeSet<_> = all.iter().map(|e| e.code()).collect();
        assert_eq!(codes.len(), all.len());
        assert!(all.iter().all(|e| (400..500).contains(&e.status())));
        assert_eq!(
            ImageError::output_too_large(ImagePurpose::Logo).to_string(),
            "The processed image would be larger than 1 MB"
        );
    }

    proptest! {
        #[test]
        fn fit_inside_never_enlarges_and_stays_in_the_box(
            w in 1u32..=20_000, h in 1u32..=20_000, bw in 1u32..=1000, bh in 1u32..=1000,
        ) {
            let (nw, nh) = fit_inside(w, h, bw, bh);
            prop_assert!(nw >= 1 && nh >= 1);
            prop_assert!(nw <= bw && nh <= bh);
            prop_assert!(nw <= w && nh <= h);
            if w <= bw && h <= bh {
                prop_assert_eq!((nw, nh), (w, h));
            } else {
                // One side touches the box.
                prop_assert!(nw == bw || nh == bh);
            }
        }
    }
}
