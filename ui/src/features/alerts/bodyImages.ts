// Alert-body images (issue #17): the one rule for images in alert HTML (only a base64 data URL of
// PNG, JPEG, GIF or WebP survives, always written as exactly
// `<img src="…" alt="…" class="alert-body-image">`; ./richBody.ts applies it to stored bodies), the
// `[image N]` placeholder the operator sees as a line of the body while the data URLs stay beside
// the text in the draft, and the file checks and server preparation behind "Insert image" (a
// pasted or dropped image, such as a screenshot, goes through the same: transferImage picks it).
// No DOM here: plain strings only.

/** The server's input limit for an alert-body image (POST /api/relay/images/alert-body). */
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const IMAGE_TOO_LARGE = 'Image must be under 5 MB';
export const IMAGE_WRONG_TYPE = 'Image must be a PNG, JPEG or WebP file';
export const IMAGE_UNUSABLE = 'The server did not answer a usable image.';
/** The file input's accept list. */
export const IMAGE_ACCEPT = '.png,.jpg,.jpeg,.webp,image/png,image/jpeg,image/webp';
/** Longest alt text kept (a file name or what a stored body carried). */
export const ALT_MAX = 200;

/** The only image sources kept: an inline base64 PNG, JPEG, GIF or WebP (case-insensitive). */
export const SAFE_IMAGE_SRC = /^data:image\/(png|jpeg|jpg|gif|webp);base64,[a-z0-9+/=]+$/i;

export interface BodyImage {
  src: string;
  alt: string;
}
/** Images of one body by their placeholder number (`[image 3]` → images[3]). */
export type BodyImages = Readonly<Record<number, BodyImage>>;

export const isSafeImageSrc = (src: unknown): src is string => typeof src === 'string' && SAFE_IMAGE_SRC.test(src);

/** Text for an HTML attribute value or element content. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Alt text without control characters, trimmed and at most ALT_MAX long. */
export const cleanAlt = (alt: string) => alt.replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, ALT_MAX);

/** The sanitized tag for `img`, or null when its source is not a safe data URL. */
export function imageTag(img: BodyImage): string | null {
  if (!isSafeImageSrc(img.src)) return null;
  return `<img src="${img.src}" alt="${escapeHtml(cleanAlt(img.alt))}" class="alert-body-image">`;
}

export const imageToken = (n: number) => `[image ${n}]`;

/** The number of a placeholder line (`[image 12]`, surrounding blanks allowed), else null. */
export function tokenNumber(line: string): number | null {
  const m = /^\s*\[image ([1-9]\d{0,5})\]\s*$/.exec(line);
  return m ? Number(m[1]) : null;
}

const IMAGE_NAME = /\.(png|jpe?g|webp)$/i;
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp'];

/** Why `file` is refused before uploading, or null. The server checks the content itself. */
export function checkImageFile(file: { name?: string; size: number; type?: string }): string | null {
  const named = IMAGE_NAME.test(file.name ?? '') || IMAGE_TYPES.includes((file.type ?? '').toLowerCase());
  if (!named) return IMAGE_WRONG_TYPE;
  if (file.size > IMAGE_MAX_BYTES) return IMAGE_TOO_LARGE;
  return null;
}

/** The alt text for an image from its file name: the name without its extension. */
export const altFromName = (name: string | undefined) => cleanAlt((name ?? '').replace(IMAGE_NAME, ''));

export type Prepared = { ok: true; image: BodyImage } | { ok: false; message: string };

/**
 * Checks `file`, has the server prepare it (`prepare`: the transport's prepareAlertImage) and
 * answers the image, or the message to show: the local check's, the server's refusal as it
 * wrote it, or IMAGE_UNUSABLE when the answer is not a safe data URL.
 */
export async function prepareImage(file: Blob & { name?: string }, prepare: (file: Blob) => Promise<string>): Promise<Prepared> {
  const refused = checkImageFile(file);
  if (refused) return { ok: false, message: refused };
  let src: string;
  try {
    src = await prepare(file);
  } catch (e) {
    return { ok: false, message: e instanceof Error && e.message ? e.message : 'The image could not be prepared.' };
  }
  if (!isSafeImageSrc(src)) return { ok: false, message: IMAGE_UNUSABLE };
  return { ok: true, image: { src, alt: altFromName(file.name) } };
}

/** What the "Insert image" control shows: preparing, the last refusal, or the last success. */
export interface InsertState {
  busy: boolean;
  error: string | null;
  done: string | null;
}
export const IDLE_INSERT: InsertState = { busy: false, error: null, done: null };
export const PREPARING = 'Preparing image…';
export const INSERTED = 'Image inserted.';

/**
 * The "Insert image" flow: `show` the preparing state, prepare `file` (prepareImage), then
 * `insert` the image and show INSERTED, or show the refusal and insert nothing.
 */
export async function runImageInsert(
  file: Blob & { name?: string },
  prepare: (file: Blob) => Promise<string>,
  show: (s: InsertState) => void,
  insert: (image: BodyImage) => void,
): Promise<void> {
  show({ busy: true, error: null, done: null });
  const r = await prepareImage(file, prepare);
  if (!r.ok) return show({ busy: false, error: r.message, done: null });
  insert(r.image);
  show({ busy: false, error: null, done: INSERTED });
}

/** What a paste or a drop carries, as far as choosing between an image and text goes. */
export interface TransferLike {
  files: ArrayLike<Blob & { name?: string; type: string }>;
  text: string;
}

/**
 * The image file a paste or a drop inserts: the first file whose type is an image, but only when
 * the transfer has no text (a spreadsheet copy carries a picture of its cells beside the text:
 * the text wins). Null when there is none. The file is checked later like a picked one.
 */
export function transferImage(t: TransferLike): (Blob & { name?: string; type: string }) | null {
  if (t.text.trim()) return null;
  for (let i = 0; i < t.files.length; i++) {
    const f = t.files[i];
    if ((f.type ?? '').toLowerCase().startsWith('image/')) return f;
  }
  return null;
}
