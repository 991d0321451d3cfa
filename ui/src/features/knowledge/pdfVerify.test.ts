// The PDF checksum gate: bytes are handed on only when their SHA-256 equals the document's
// checksum and the server's header (when the response exposed one); anything else is refused.
import { describe, expect, it } from 'vitest';
import { ChecksumMismatch, sha256Hex, verifiedPdfBytes } from './pdfVerify';

const bytes = new TextEncoder().encode('%PDF-1.4\n% a tiny test file\n%%EOF\n');
// `sha256sum` of the same bytes.
const hex = 'c07aaf4ba79a09cab29dfd750c281ad9b9d86e5672dd329c68a537895b3540c3';
const buf = () => bytes.slice().buffer;

describe('sha256Hex', () => {
  it('is the lowercase hex SHA-256 of the bytes', async () => {
    expect(await sha256Hex(buf())).toBe(hex);
    expect(await sha256Hex(new TextEncoder().encode('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('falls back to @noble/hashes without WebCrypto (Relay Web over cleartext HTTP is not a secure context)', async () => {
    expect(await sha256Hex(buf(), null)).toBe(hex);
    expect(await sha256Hex(new TextEncoder().encode('abc'), null)).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'crypto');
    Object.defineProperty(globalThis, 'crypto', { value: {}, configurable: true, writable: true });
    try {
      expect(await sha256Hex(buf())).toBe(hex);
      await expect(verifiedPdfBytes({ bytes: buf(), checksum: hex }, hex)).resolves.toHaveLength(bytes.length);
    } finally {
      if (saved) Object.defineProperty(globalThis, 'crypto', saved);
    }
  });
});

describe('verifiedPdfBytes', () => {
  it('hands on the bytes when the record checksum (any case) and the header match', async () => {
    const out = await verifiedPdfBytes({ bytes: buf(), checksum: hex }, hex.toUpperCase());
    expect(Array.from(out)).toEqual(Array.from(bytes));
  });

  it('accepts a response without the header (the desktop reads it cross-origin)', async () => {
    await expect(verifiedPdfBytes({ bytes: buf(), checksum: null }, hex)).resolves.toHaveLength(bytes.length);
  });

  it('refuses bytes that differ from the published checksum', async () => {
    const tampered = bytes.slice();
    tampered[tampered.length - 2] ^= 1;
    await expect(verifiedPdfBytes({ bytes: tampered.buffer, checksum: null }, hex)).rejects.toBeInstanceOf(ChecksumMismatch);
    // The header cannot vouch for other bytes either.
    const other = await sha256Hex(tampered);
    await expect(verifiedPdfBytes({ bytes: tampered.buffer, checksum: other }, hex)).rejects.toBeInstanceOf(ChecksumMismatch);
  });

  it('refuses when the header names another checksum, or the record has none', async () => {
    await expect(verifiedPdfBytes({ bytes: buf(), checksum: '0'.repeat(64) }, hex)).rejects.toBeInstanceOf(ChecksumMismatch);
    await expect(verifiedPdfBytes({ bytes: buf(), checksum: hex }, '')).rejects.toBeInstanceOf(ChecksumMismatch);
  });
});
