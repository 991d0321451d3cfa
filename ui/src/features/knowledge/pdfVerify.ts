// The Wiki PDF check before anything renders or saves it: SHA-256 of the bytes as received
// (WebCrypto) must equal the document record's `checksum` and, when the response exposed it,
// the server's `X-Relay-Checksum`. A mismatch is refused with ChecksumMismatch; nothing here
// shows or stores the bytes.
import type { WikiPdf } from '../../transport/types';

export class ChecksumMismatch extends Error {
  constructor() {
    super('This PDF does not match the published document (checksum mismatch), so it is not shown. Try again, or ask the publisher to replace it.');
    this.name = 'ChecksumMismatch';
  }
}

export async function sha256Hex(bytes: ArrayBuffer | Uint8Array, subtle: SubtleCrypto = globalThis.crypto.subtle): Promise<string> {
  const digest = await subtle.digest('SHA-256', bytes as BufferSource);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The bytes of `pdf` once their SHA-256 matched `expected` (and the header when present). */
export async function verifiedPdfBytes(pdf: WikiPdf, expected: string, subtle?: SubtleCrypto): Promise<Uint8Array> {
  const want = expected.trim().toLowerCase();
  const header = pdf.checksum?.trim().toLowerCase() ?? null;
  if (!/^[0-9a-f]{64}$/.test(want) || (header !== null && header !== want)) throw new ChecksumMismatch();
  const got = await sha256Hex(pdf.bytes, subtle);
  if (got !== want) throw new ChecksumMismatch();
  return new Uint8Array(pdf.bytes);
}
