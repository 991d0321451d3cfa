//! Image fixtures made in code, shared by the pipeline's unit tests, the branding actor's
//! tests, the black-box branding test and the image bench (compiled for tests and with the
//! `test-fixtures` feature only): deterministic pixels, PNG encoding, and a small PNG whose
//! header declares any size (a decompression bomb's header, chunk CRC recomputed).

use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ExtendedColorType, ImageEncoder, RgbaImage};

/// Deterministic pixels: noise from `seed`, or a gradient when `seed` is 0.
pub fn pixels(w: u32, h: u32, seed: u32) -> RgbaImage {
    let mut state = seed.wrapping_mul(2_654_435_761).max(1);
    RgbaImage::from_fn(w, h, |x, y| {
        if seed == 0 {
            return image::Rgba([(x % 256) as u8, (y % 256) as u8, 128, 255]);
        }
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        image::Rgba(state.to_le_bytes())
    })
}

/// `raw` pixels of `color` as a PNG (best compression, adaptive filter).
pub fn encode_png(raw: &[u8], w: u32, h: u32, color: ExtendedColorType) -> Vec<u8> {
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, CompressionType::Best, FilterType::Adaptive)
        .write_image(raw, w, h, color)
        .expect("fixture pixels encode");
    out
}

/// A `w`x`h` RGBA PNG of [`pixels`].
pub fn png(w: u32, h: u32, seed: u32) -> Vec<u8> {
    encode_png(pixels(w, h, seed).as_raw(), w, h, ExtendedColorType::Rgba8)
}

/// A noisy RGB PNG (no alpha): about 3 bytes a pixel, for size-bound cases.
pub fn noisy_rgb_png(w: u32, h: u32, seed: u32) -> Vec<u8> {
    let rgba = pixels(w, h, seed.max(1));
    let rgb: Vec<u8> = rgba.pixels().flat_map(|p| [p.0[0], p.0[1], p.0[2]]).collect();
    encode_png(&rgb, w, h, ExtendedColorType::Rgb8)
}

/// The PNG chunk CRC (CRC-32/ISO-HDLC).
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// A valid 8x8 PNG whose IHDR declares `w`x`h` (CRC fixed, so only the size is a lie).
pub fn png_declaring(w: u32, h: u32) -> Vec<u8> {
    let mut bytes = png(8, 8, 0);
    bytes[16..20].copy_from_slice(&w.to_be_bytes());
    bytes[20..24].copy_from_slice(&h.to_be_bytes());
    let crc = crc32(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    bytes
}
