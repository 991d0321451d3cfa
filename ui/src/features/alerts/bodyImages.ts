// Alert-body images (issue #17): the one sanitizer for images in alert HTML (only a base64 data
// URL of PNG, JPEG, GIF or WebP survives, always written as exactly
// `<img src="…" alt="…" class="alert-body-image">`), the `[image N]` placeholder lines the
// operator sees in the body textarea while the data URLs stay beside the text in the draft, and
// the file checks and server preparation behind "Insert image". No DOM here: plain strings only.

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

/** The entities escapeHtml (and the old plain-text body) writes, decoded; `&amp;` last. */
export function decodeEntities(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

const cleanAlt = (alt: string) => alt.replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, ALT_MAX);

/** The sanitized tag for `img`, or null when its source is not a safe data URL. */
export function imageTag(img: BodyImage): string | null {
  if (!isSafeImageSrc(img.src)) return null;
  return `<img src="${img.src}" alt="${escapeHtml(cleanAlt(img.alt))}" class="alert-body-image">`;
}

// One attribute inside a tag: name, then an optional double-quoted, single-quoted or bare value
// (a bare value may hold '=', as browsers read it: base64 padding).
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'<>`]+)))?/g;

/**
 * The image an `<img …>` tag shows, or null unless its src is a safe data URL. Only src and alt
 * are read (the first of each, as browsers do); every other attribute is dropped.
 */
export function parseImgTag(tag: string): BodyImage | null {
  const m = /^<img(?=[\s/>])([\s\S]*?)\/?>$/i.exec(tag);
  if (!m) return null;
  const attrs = new Map<string, string>();
  for (const a of m[1].matchAll(ATTRIBUTE)) {
    const name = a[1].toLowerCase();
    if (!attrs.has(name)) attrs.set(name, a[2] ?? a[3] ?? a[4] ?? '');
  }
  const src = attrs.get('src');
  if (!isSafeImageSrc(src)) return null;
  return { src, alt: cleanAlt(decodeEntities(attrs.get('alt') ?? '')) };
}

/** An `<img …>` tag reduced to the sanitized form, or '' when it is refused. */
export function sanitizeImgTag(tag: string): string {
  const img = parseImgTag(tag);
  return (img && imageTag(img)) ?? '';
}

export const imageToken = (n: number) => `[image ${n}]`;

/** The number of a placeholder line (`[image 12]`, surrounding blanks allowed), else null. */
export function tokenNumber(line: string): number | null {
  const m = /^\s*\[image ([1-9]\d{0,5})\]\s*$/.exec(line);
  return m ? Number(m[1]) : null;
}

/** The image a body line stands for: a placeholder whose image is known and safe. */
export function lineImage(line: string, images: BodyImages): { n: number; image: BodyImage } | null {
  const n = tokenNumber(line);
  const image = n === null ? undefined : images[n];
  return n !== null && image && isSafeImageSrc(image.src) ? { n, image } : null;
}

/** Placeholder numbers written in `body`, whether or not an image stands behind them. */
export function tokenNumbers(body: string): Set<number> {
  const out = new Set<number>();
  for (const line of body.split('\n')) {
    const n = tokenNumber(line);
    if (n !== null) out.add(n);
  }
  return out;
}

/** A number no image and no placeholder line of `body` uses yet. */
export function nextImageNumber(body: string, images: BodyImages): number {
  let max = 0;
  for (const k of Object.keys(images)) max = Math.max(max, Number(k));
  for (const n of tokenNumbers(body)) max = Math.max(max, n);
  return max + 1;
}

/**
 * `image` placed at `at` (a caret offset, clamped; the end when null) as a placeholder on its own
 * line: line breaks are added before and after it where the text does not already have them.
 * Answers the new body and images and the caret just after the placeholder.
 */
export function insertImage(body: string, images: BodyImages, image: BodyImage, at: number | null): { body: string; images: BodyImages; caret: number } {
  const n = nextImageNumber(body, images);
  const pos = at === null ? body.length : Math.max(0, Math.min(at, body.length));
  const before = body.slice(0, pos);
  const after = body.slice(pos);
  const lead = before && !before.endsWith('\n') ? '\n' : '';
  const trail = after && !after.startsWith('\n') ? '\n' : '';
  const text = before + lead + imageToken(n);
  return { body: text + trail + after, images: { ...images, [n]: image }, caret: text.length };
}

export type BodySegment = { kind: 'text'; text: string } | { kind: 'image'; n: number; image: BodyImage };

/** The body as runs of text lines and image lines (for the preview). */
export function bodySegments(body: string, images: BodyImages): BodySegment[] {
  const out: BodySegment[] = [];
  let text: string[] = [];
  const flush = () => {
    if (text.length) out.push({ kind: 'text', text: text.join('\n') });
    text = [];
  };
  for (const line of body.split('\n')) {
    const hit = lineImage(line, images);
    if (!hit) {
      text.push(line);
      continue;
    }
    flush();
    out.push({ kind: 'image', ...hit });
  }
  flush();
  return out;
}

/** Whether any placeholder line of `body` shows an image. */
export const bodyHasImages = (body: string, images: BodyImages) => body.split('\n').some((l) => lineImage(l, images) !== null);

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
