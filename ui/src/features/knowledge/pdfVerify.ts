// The Wiki PDF check before anything renders or saves it: SHA-256 of the bytes as received
// (WebCrypto where the page has it; @noble/hashes on Relay Web, whose cleartext LAN origin is not
// a secure context and so has no `crypto.subtle`) must equal the document record's `checksum`
// and, when the response exposed it, the server's `X-Relay-Checksum`. A mismatch is refused with
// ChecksumMismatch; nothing here shows or stores the bytes.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { WikiPdf } from '../../transport/types';

export class ChecksumMismatch extends Error {
  constructor() {
    super('This PDF does not match the published document (checksum mismatch), so it is not shown. Try again, or ask the publisher to replace it.');
    this.name = 'ChecksumMismatch';
  }
}

/** WebCrypto's digest when this page has it (a secure context), else undefined. */
function pageSubtle(): SubtleCrypto | undefined {
  return (globalThis.crypto as Crypto | undefined)?.subtle ?? undefined;
}

/** Lowercase hex SHA-256 of `bytes`: `subtle` (default: the page's WebCrypto) when present,
 * else the pure-JS @noble/hashes digest (pass `null` to force it). */
export async function sha256Hex(bytes: ArrayBuffer | Uint8Array, subtle: SubtleCrypto | null | undefined = pageSubtle()): Promise<string> {
  if (!subtle) return bytesToHex(sha256(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)));
  const digest = await subtle.digest('SHA-256', bytes as BufferSource);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The bytes of `pdf` once their SHA-256 matched `expected` (and the header when present). */
export async function verifiedPdfBytes(pdf: WikiPdf, expected: string, subtle?: SubtleCrypto | null): Promise<Uint8Array> {
  const want = expected.trim().toLowerCase();
  const header = pdf.checksum?.trim().toLowerCase() ?? null;
  if (!/^[0-9a-f]{64}$/.test(want) || (header !== null && header !== want)) throw new ChecksumMismatch();
  const got = await sha256Hex(pdf.bytes, subtle);
  if (got !== want) throw new ChecksumMismatch();
  return new Uint8Array(pdf.bytes);
}
