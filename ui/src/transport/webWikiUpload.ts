// Relay Web's Wiki PDF upload (the browser side of `adminWikiUpload` on the 'web' surface): the
// page's file chooser (`<input type="file">`, cancel detected), the SHA-256 of each file and of each
// chunk with @noble/hashes (Relay Web is cleartext HTTP on a LAN name, not a secure context, so
// WebCrypto's `crypto.subtle` is missing), `wiki.upload.begin`, then each file's chunks in order —
// read with File.slice, one chunk in memory at a time — to /web/api/protected/wiki/chunks, a `busy`
// pipeline retried every second up to 30 times. It reports the same WikiUploadEvents as the desktop
// shell: queued, uploading with the stored chunks rising, then the last chunk's answered state, or
// failed with the server's message. Only file names and sizes are reported: nothing else of the
// chosen files leaves this module except their bytes, to the server.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { AdminCommandName, WikiUploadEvent, WikiUploadSummary } from './desktopAdmin';

/** The chooser: the chosen files, or null when cancelled. */
export type FileChooser = (multiple: boolean) => Promise<File[] | null>;

export const PDF_ACCEPT = 'application/pdf,.pdf';
/** How often, and how far apart, a chunk refused with `busy` is sent again. */
export const BUSY_RETRIES = 30;
export const BUSY_DELAY_MS = 1_000;
/** How much of a file is read at a time to hash it whole. */
const HASH_SLICE = 4 * 1024 * 1024;
/** Without a `cancel` event: after the window has its focus back this long with no `change`, the
 * chooser counts as cancelled. */
const CANCEL_GRACE_MS = 1_500;

export interface UploadDeps {
  command(command: AdminCommandName, payload: Record<string, unknown>): Promise<unknown>;
  chunk(query: URLSearchParams, bytes: Uint8Array): Promise<unknown>;
  sleep(ms: number): Promise<void>;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/**
 * A hidden `<input type="file" accept="application/pdf,.pdf">` (multiple unless replacing),
 * clicked: resolves with the chosen files, or null when the chooser was cancelled (the `cancel`
 * event, or — where a browser lacks it — the window's focus back with no `change`).
 */
export function chooseFiles(multiple: boolean, doc: Document = document): Promise<File[] | null> {
  return new Promise((resolve) => {
    const input = doc.createElement('input');
    input.type = 'file';
    input.accept = PDF_ACCEPT;
    input.multiple = multiple;
    input.hidden = true;
    const win = doc.defaultView;
    let done = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (files: File[] | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      win?.removeEventListener('focus', onFocus);
      input.remove();
      resolve(files && files.length > 0 ? files : null);
    };
    const onFocus = () => {
      timer = setTimeout(() => finish(null), CANCEL_GRACE_MS);
    };
    input.addEventListener('change', () => finish(input.files ? Array.from(input.files) : null));
    input.addEventListener('cancel', () => finish(null));
    doc.body.appendChild(input);
    input.click();
    // The focus returns when the chooser closes; listen only after this click took it.
    setTimeout(() => win?.addEventListener('focus', onFocus), 0);
  });
}

async function readBlob(blob: Blob): Promise<Uint8Array> {
  const buffer = typeof blob.arrayBuffer === 'function' ? await blob.arrayBuffer() : await new Response(blob).arrayBuffer();
  return new Uint8Array(buffer);
}

/** Lowercase hex SHA-256 of bytes (pure JS: no secure context needed). */
export function sha256Bytes(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}

/** Lowercase hex SHA-256 of a whole file, read a slice at a time. */
export async function sha256File(file: Blob): Promise<string> {
  const h = sha256.create();
  for (let at = 0; at < file.size; at += HASH_SLICE) h.update(await readBlob(file.slice(at, Math.min(at + HASH_SLICE, file.size))));
  return bytesToHex(h.digest());
}

/** One file as `wiki.upload.begin` announced it. */
interface Announced {
  uploadId: string;
  chunkSize: number;
  chunkCount: number;
  storedChunks: number;
  state: string;
  error: string | null;
}

function announced(raw: unknown): Announced {
  const o = isObject(raw) ? raw : {};
  return {
    uploadId: str(o.uploadId),
    chunkSize: count(o.chunkSize),
    chunkCount: count(o.chunkCount),
    storedChunks: count(o.storedChunks),
    state: str(o.state) || 'queued',
    error: typeof o.error === 'string' && o.error !== '' ? o.error : null,
  };
}

const isBusy = (e: unknown) => isObject(e) && (e as { gatewayCode?: unknown }).gatewayCode === 'busy';
const isLocked = (e: unknown) => isObject(e) && (e as { code?: unknown }).code === 'locked';
const messageOf = (e: unknown) => (e instanceof Error && e.message ? e.message : 'The upload failed.');

/** One chunk, sent again while the pipeline answers `busy` (at most BUSY_RETRIES times). */
async function sendChunk(deps: UploadDeps, query: URLSearchParams, bytes: Uint8Array): Promise<unknown> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await deps.chunk(query, bytes);
    } catch (e) {
      if (!isBusy(e) || attempt >= BUSY_RETRIES) throw e;
      await deps.sleep(BUSY_DELAY_MS);
    }
  }
}

/** Feeds one announced file; resolves with its last event. A `locked` refusal ends the batch. */
async function feed(file: File, a: Announced, batchId: string, deps: UploadDeps, emit: (e: WikiUploadEvent) => void): Promise<WikiUploadEvent> {
  const base = { uploadId: a.uploadId, fileName: file.name, byteSize: file.size };
  let last: WikiUploadEvent = { ...base, state: a.state, storedChunks: a.storedChunks, chunkCount: a.chunkCount, error: a.error };
  if (a.state === 'failed' || a.state === 'ready') return last;
  const failed = (error: string) => {
    last = { ...last, state: 'failed', error };
    emit(last);
    return last;
  };
  if (!a.uploadId || a.chunkSize === 0 || a.chunkCount === 0) return failed('The server announced no chunks for this file.');
  for (let index = a.storedChunks; index < a.chunkCount; index++) {
    const start = index * a.chunkSize;
    const end = Math.min(start + a.chunkSize, file.size);
    let answer: unknown;
    try {
      const bytes = await readBlob(file.slice(start, end));
      const query = new URLSearchParams({
        uploadId: a.uploadId,
        batchId,
        index: String(index),
        byteSize: String(bytes.byteLength),
        checksum: sha256Bytes(bytes),
      });
      answer = await sendChunk(deps, query, bytes);
    } catch (e) {
      if (isLocked(e)) throw e;
      return failed(messageOf(e));
    }
    const o = isObject(answer) ? answer : {};
    const state = str(o.state) || 'uploading';
    const error = typeof o.error === 'string' && o.error !== '' ? o.error : null;
    last = { ...base, state, storedChunks: count(o.storedChunks) || index + 1, chunkCount: count(o.chunkCount) || a.chunkCount, error };
    emit(last);
    if (state === 'failed') return last;
  }
  return last;
}

/** Hashes, announces and uploads `files` (in order); resolves when every file was fed. */
export async function uploadWikiFiles(
  files: File[],
  replacementDocumentId: string | null,
  onEvent: (event: WikiUploadEvent) => void,
  deps: UploadDeps,
): Promise<WikiUploadSummary> {
  const described: { fileName: string; byteSize: number; checksum: string }[] = [];
  for (const f of files) described.push({ fileName: f.name, byteSize: f.size, checksum: await sha256File(f) });
  const payload: Record<string, unknown> = { files: described };
  if (replacementDocumentId !== null) payload.replacementDocumentId = replacementDocumentId;
  const begin = await deps.command('wiki.upload.begin', payload);
  const b = isObject(begin) ? begin : {};
  const batchId = str(b.batchId);
  const uploads = (Array.isArray(b.uploads) ? b.uploads : []).map(announced);
  const pairs = files.slice(0, uploads.length).map((file, i) => ({ file, a: uploads[i] }));
  for (const { file, a } of pairs) {
    onEvent({ uploadId: a.uploadId, fileName: file.name, byteSize: file.size, state: a.state, storedChunks: a.storedChunks, chunkCount: a.chunkCount, error: a.error });
  }
  const done: WikiUploadEvent[] = [];
  for (const { file, a } of pairs) done.push(await feed(file, a, batchId, deps, onEvent));
  return { batchId: batchId || null, files: done };
}
