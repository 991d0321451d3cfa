//! The image pipeline and the logo files. [`process_logo`] and [`process_body_image`] are plain
//! synchronous functions (the branding actor runs them on a blocking thread, one at a time):
//! size check first, format by magic bytes (`domain::images::sniff`, never the file name), a
//! completeness check (cut-off files are refused, not padded), the header's declared width and
//! height read before any pixel is decoded and checked against the budget, animated WebP
//! refused, then a decode under `image::Limits` (width, height and allocation budgets) as a
//! second line of defence. Logos are resized inside 400x400 (never enlarged) and written as a
//! best-compression PNG whose size is bounded; alert-body images are narrowed to 516 px, a PNG
//! stays PNG and anything else becomes JPEG q82, bounded to 5 MiB. `store` keeps the logos as
//! owner-only files under `DATA/store/assets/` (so backups include them). Nothing here knows
//! about actors or HTTP, and no decoder runs on bytes that failed an earlier check.

mod store;

pub use store::{read_input_file, InputFileError, LogoStore, ASSETS_DIR};

use std::io::Cursor;

use domain::images::{
    body_output_format, body_size, check_complete, check_header_dimensions, fit_inside, sniff, webp_header, ImageError,
    ImageFormat, ImagePurpose, BODY_JPEG_QUALITY, LOGO_BOX, MAX_DECODE_ALLOC, MAX_HEADER_SIDE,
};
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::{CompressionType, FilterType as PngFilter, PngEncoder};
use image::imageops::FilterType;
use image::{DynamicImage, ImageEncoder, ImageReader, Limits, RgbImage, RgbaImage};

/// A processed image ready to store or send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Processed {
    pub bytes: Vec<u8>,
    pub format: ImageFormat,
    pub width: u32,
    pub height: u32,
}

/// The resampling filter for every resize (sharp enough for logos, cheaper than Lanczos3).
const RESIZE_FILTER: FilterType = FilterType::CatmullRom;

/// The decoder budgets: the header limits as `image::Limits`, plus the allocation budget.
pub fn decode_limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_HEADER_SIDE);
    limits.max_image_height = Some(MAX_HEADER_SIDE);
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    limits
}

/// Logo pipeline: checks, decode, resize inside [`LOGO_BOX`], PNG (best compression), bounded.
pub fn process_logo(input: &[u8]) -> Result<Processed, ImageError> {
    let (image, _) = decode_checked(input, ImagePurpose::Logo, decode_limits())?;
    let (w, h) = fit_inside(image.width(), image.height(), LOGO_BOX.0, LOGO_BOX.1);
    let rgba = resized_rgba(image, w, h);
    let bytes = encode_png(&rgba)?;
    bounded(ImagePurpose::Logo, Processed { bytes, format: ImageFormat::Png, width: w, height: h })
}

/// Alert-body pipeline: checks, decode, narrow to 516 px, PNG stays PNG else JPEG q82, bounded.
pub fn process_body_image(input: &[u8]) -> Result<Processed, ImageError> {
    let (image, format) = decode_checked(input, ImagePurpose::AlertBody, decode_limits())?;
    let (w, h) = body_size(image.width(), image.height());
    let rgba = resized_rgba(image, w, h);
    let out = body_output_format(format);
    let bytes = match out {
        ImageFormat::Png => encode_png(&rgba)?,
        _ => encode_jpeg(&over_white(&rgba))?,
    };
    bounded(ImagePurpose::AlertBody, Processed { bytes, format: out, width: w, height: h })
}

fn bounded(purpose: ImagePurpose, processed: Processed) -> Result<Processed, ImageError> {
    if processed.bytes.len() > purpose.max_output_bytes() {
        return Err(ImageError::output_too_large(purpose));
    }
    Ok(processed)
}

/// Every check before and during decoding, in order; returns the image and its sniffed format.
pub fn decode_checked(
    input: &[u8],
    purpose: ImagePurpose,
    limits: Limits,
) -> Result<(DynamicImage, ImageFormat), ImageError> {
    purpose.check_input_len(input.len())?;
    let format = sniff(input).ok_or(ImageError::UnsupportedFormat)?;
    check_complete(format, input)?;
    if format == ImageFormat::Webp {
        // Our own parse of the first chunk, so a huge canvas or an animation never reaches
        // the decoder's constructor.
        let header = webp_header(input).ok_or(ImageError::DecodeFailed)?;
        check_header_dimensions(header.width, header.height)?;
        if header.animated {
            return Err(ImageError::Animated);
        }
        refuse_animated_webp(input)?;
    }
    let (width, height) = header_dimensions(input, format)?;
    check_header_dimensions(width, height)?;
    let mut reader = ImageReader::with_format(Cursor::new(input), codec_format(format));
    reader.limits(limits);
    let image = reader.decode().map_err(|e| decode_error(e, width, height))?;
    Ok((image, format))
}

fn codec_format(format: ImageFormat) -> image::ImageFormat {
    match format {
        ImageFormat::Png => image::ImageFormat::Png,
        ImageFormat::Jpeg => image::ImageFormat::Jpeg,
        ImageFormat::Webp => image::ImageFormat::WebP,
    }
}

/// The width and height the header declares, read without decoding pixels. Only the
/// allocation budget applies here, so an oversized header is reported with its dimensions by
/// `check_header_dimensions` rather than as a generic decoder limit.
fn header_dimensions(input: &[u8], format: ImageFormat) -> Result<(u32, u32), ImageError> {
    let mut reader = ImageReader::with_format(Cursor::new(input), codec_format(format));
    let mut limits = Limits::no_limits();
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    reader.limits(limits);
    reader.into_dimensions().map_err(|e| decode_error(e, 0, 0))
}

/// The decoder's own view of the animation flag (a second opinion on `webp_header`).
fn refuse_animated_webp(input: &[u8]) -> Result<(), ImageError> {
    let decoder = image::codecs::webp::WebPDecoder::new(Cursor::new(input)).map_err(|e| decode_error(e, 0, 0))?;
    if decoder.has_animation() {
        return Err(ImageError::Animated);
    }
    Ok(())
}

fn decode_error(error: image::ImageError, width: u32, height: u32) -> ImageError {
    match error {
        image::ImageError::Limits(_) => ImageError::DimensionsTooLarge { width, height },
        image::ImageError::IoError(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => ImageError::Truncated,
        image::ImageError::Unsupported(_) => ImageError::UnsupportedFormat,
        _ => ImageError::DecodeFailed,
    }
}

/// Converts to 8-bit RGBA (bounds every later buffer) and resizes when the size changes.
fn resized_rgba(image: DynamicImage, width: u32, height: u32) -> RgbaImage {
    let rgba = image.into_rgba8();
    if (rgba.width(), rgba.height()) == (width, height) {
        return rgba;
    }
    image::imageops::resize(&rgba, width, height, RESIZE_FILTER)
}

/// Composites over white (a JPEG has no alpha; transparent areas must not turn black).
fn over_white(rgba: &RgbaImage) -> RgbImage {
    RgbImage::from_fn(rgba.width(), rgba.height(), |x, y| {
        let [r, g, b, a] = rgba.get_pixel(x, y).0;
        let a = u32::from(a);
        let blend = |c: u8| ((u32::from(c) * a + 255 * (255 - a) + 127) / 255) as u8;
        image::Rgb([blend(r), blend(g), blend(b)])
    })
}

fn encode_png(rgba: &RgbaImage) -> Result<Vec<u8>, ImageError> {
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, CompressionType::Best, PngFilter::Adaptive)
        .write_image(rgba.as_raw(), rgba.width(), rgba.height(), image::ExtendedColorType::Rgba8)
        .map_err(|_| ImageError::DecodeFailed)?;
    Ok(out)
}

fn encode_jpeg(rgb: &RgbImage) -> Result<Vec<u8>, ImageError> {
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, BODY_JPEG_QUALITY)
        .write_image(rgb.as_raw(), rgb.width(), rgb.height(), image::ExtendedColorType::Rgb8)
        .map_err(|_| ImageError::DecodeFailed)?;
    Ok(out)
}

#[cfg(test)]
mod tests;

#[cfg(any(test, feature = "test-fixtures"))]
pub mod testdata;
