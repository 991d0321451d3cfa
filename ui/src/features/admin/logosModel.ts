// Administration screen, the Logos section's pure helpers: the two logos and their labels, what
// the file picker accepts, the 2 MiB limit checked before anything is sent, the file's bytes as
// base64 (encoded in chunks, never one string built up byte by byte), and the sentence for a
// refused logo call.
import { BridgeRefusal, type LogoKind } from '../../transport/desktop';
import { describeFailure } from './adminModel';

export const LOGO_KINDS: readonly LogoKind[] = ['company', 'footer'];

export const LOGO_LABELS: Record<LogoKind, string> = { company: 'Company logo', footer: 'Footer logo' };

/** The image types the server takes (the file picker's `accept`). */
export const LOGO_ACCEPT = 'image/png,image/jpeg,image/webp';

/** The largest image file the shell takes (2 MiB, `MAX_LOGO_INPUT_BYTES`). */
export const MAX_LOGO_BYTES = 2 * 1024 * 1024;

/** Shown, with nothing sent, for a file over the limit (the shell's own wording). */
export const LOGO_TOO_LARGE = 'Image must be under 2 MB';

export const LOGO_NOTE = 'PNG, JPEG or WebP up to 2 MB; shown at most 400×400.';

/** A chosen file as far as the section reads it. */
export interface LogoFile {
  readonly size: number;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** Bytes per encoded chunk: a multiple of 3, so the chunks' base64 joins without padding inside. */
const CHUNK = 3 * 8192;

/** Standard base64 (with padding, no `data:` prefix) of `bytes`. */
export function base64Of(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += CHUNK) {
    const chunk = bytes.subarray(i, i + CHUNK);
    parts.push(btoa(String.fromCharCode.apply(null, chunk as unknown as number[])));
  }
  return parts.join('');
}

/** The operator-facing sentence for a refused logo call: the shell's image refusals as written. */
export function logoFailure(e: unknown): string {
  if (e instanceof BridgeRefusal && (e.code === 'rejected' || (e.code === 'invalid' && e.message.trim() === LOGO_TOO_LARGE))) {
    return e.message.trim() || 'The server refused this image.';
  }
  return describeFailure(e);
}
