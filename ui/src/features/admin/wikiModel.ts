// Administration screen, the Wiki section's pure helpers: the library (`wiki.library`) and the
// upload batch (`wiki.upload.status`) read field by field, the upload queue updated from the
// desktop's progress events (`admin_wiki_upload`), the review form's defaults (title from the
// file name) and its `wiki.publish` payload, the categories' new order for a move, the labels of
// types, states and failure reasons, and the sentence for a refused Wiki call (a stale revision
// says the library was reloaded).
import { formatFileSize } from '../../lib/fileSize';
import type { WikiUploadEvent } from '../../transport/desktop';
import { describeFailure } from './adminModel';

export type DocumentType = 'sop' | 'cheatsheet';

export const DOCUMENT_TYPES: readonly { value: DocumentType; label: string }[] = [
  { value: 'sop', label: 'SOP Manual' },
  { value: 'cheatsheet', label: 'Quick Guide' },
];

/** The built-in category every document falls back to (it cannot be deleted). */
export const UNCATEGORIZED_KEY = 'uncategorized';

export interface WikiCategory {
  id: string;
  name: string;
  revision: number;
  /** 'uncategorized' for the built-in category, else ''. */
  systemKey: string;
}

export interface WikiDocument {
  id: string;
  revision: number;
  title: string;
  fileName: string;
  categoryId: string;
  documentType: DocumentType;
  pageCount: number;
  lifecycleState: 'active' | 'trashed';
  /** pending, indexed, failed, … (shown as is). */
  searchIndexState: string;
}

export interface WikiLibrary {
  categories: WikiCategory[];
  documents: WikiDocument[];
}

/** Where one upload of the queue stands. `published` is the screen's own last step. */
export type UploadState = 'queued' | 'uploading' | 'assembling' | 'extracting' | 'ready' | 'failed' | 'published' | 'cancelled' | 'expired';

/** The review form of a ready upload. */
export interface Review {
  title: string;
  categoryId: string;
  documentType: DocumentType;
}

export interface UploadItem {
  uploadId: string;
  fileName: string;
  byteSize: number;
  state: UploadState;
  storedChunks: number;
  chunkCount: number;
  /** Why it failed (a reason code or the server's sentence). */
  error: string | null;
  /** The document this upload replaces the PDF of, else null. */
  replacing: string | null;
  review: Review;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

const UPLOAD_STATES: readonly string[] = ['queued', 'uploading', 'assembling', 'extracting', 'ready', 'failed', 'published', 'cancelled', 'expired'];

export function documentType(v: unknown): DocumentType {
  return v === 'cheatsheet' ? 'cheatsheet' : 'sop';
}

export function typeLabel(t: DocumentType): string {
  return t === 'cheatsheet' ? 'Quick Guide' : 'SOP Manual';
}

/** `wiki.library` with only the listed fields kept. */
export function wikiLibrary(raw: unknown): WikiLibrary {
  const r = isObject(raw) ? raw : {};
  const categories = (Array.isArray(r.categories) ? r.categories : []).filter(isObject).map((c): WikiCategory => ({
    id: str(c.id),
    name: str(c.name),
    revision: num(c.revision),
    systemKey: str(c.systemKey),
  }));
  const documents = (Array.isArray(r.documents) ? r.documents : []).filter(isObject).map((d): WikiDocument => ({
    id: str(d.id),
    revision: num(d.revision),
    title: str(d.title),
    fileName: str(d.fileName),
    categoryId: str(d.categoryId),
    documentType: documentType(d.documentType),
    pageCount: num(d.pageCount),
    lifecycleState: d.lifecycleState === 'trashed' ? 'trashed' : 'active',
    searchIndexState: str(d.searchIndexState) || 'pending',
  }));
  return { categories, documents };
}

/** "Night shift handover" from "night-shift_handover.pdf" (the review's title to start from). */
export function titleFromFileName(fileName: string): string {
  const base = fileName.replace(/\.pdf$/i, '').replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim();
  if (!base) return 'Untitled';
  return base.charAt(0).toUpperCase() + base.slice(1);
}

/** The built-in category's id (the review's default), or the first category's. */
export function defaultCategoryId(library: WikiLibrary | null): string {
  const cats = library?.categories ?? [];
  return (cats.find((c) => c.systemKey === UNCATEGORIZED_KEY) ?? cats[0])?.id ?? '';
}

function uploadState(v: unknown): UploadState {
  return UPLOAD_STATES.includes(str(v)) ? (v as UploadState) : 'queued';
}

/** One upload of the queue from a progress event or a status entry, keeping a review in progress. */
function item(raw: Record<string, unknown>, previous: UploadItem | undefined, library: WikiLibrary | null, replacing: string | null): UploadItem {
  const fileName = str(raw.fileName) || previous?.fileName || '';
  return {
    uploadId: str(raw.uploadId),
    fileName,
    byteSize: num(raw.byteSize) || previous?.byteSize || 0,
    state: uploadState(raw.state),
    storedChunks: num(raw.storedChunks),
    chunkCount: num(raw.chunkCount),
    error: typeof raw.error === 'string' && raw.error !== '' ? raw.error : null,
    replacing: previous?.replacing ?? replacing,
    review: previous?.review ?? { title: titleFromFileName(fileName), categoryId: defaultCategoryId(library), documentType: 'sop' },
  };
}

/** The queue after one progress event: the upload updated in place, or appended. */
export function applyUploadEvent(queue: readonly UploadItem[], event: WikiUploadEvent, library: WikiLibrary | null, replacing: string | null = null): UploadItem[] {
  if (!event.uploadId) return [...queue];
  const i = queue.findIndex((u) => u.uploadId === event.uploadId);
  const previous = i >= 0 ? queue[i] : undefined;
  // A published upload stays published (an event can only be older).
  if (previous?.state === 'published') return [...queue];
  const next = item(event as unknown as Record<string, unknown>, previous, library, replacing);
  return i >= 0 ? queue.map((u, j) => (j === i ? next : u)) : [...queue, next];
}

/** `wiki.upload.status`: the batch id and its uploads merged into the queue (reviews kept). The
 * uploads this screen saw published or failed stay listed after their batch completed. */
export function queueFromStatus(raw: unknown, queue: readonly UploadItem[], library: WikiLibrary | null): { batchId: string | null; queue: UploadItem[] } {
  const r = isObject(raw) ? raw : {};
  const batchId = typeof r.batchId === 'string' && r.batchId !== '' ? r.batchId : null;
  const uploads = (Array.isArray(r.uploads) ? r.uploads : []).filter(isObject);
  const listed = new Set(uploads.map((u) => str(u.uploadId)));
  let next = queue.filter((u) => u.state === 'published' || (u.state === 'failed' && !listed.has(u.uploadId)));
  for (const u of uploads) {
    const id = str(u.uploadId);
    if (!id || next.some((q) => q.uploadId === id)) continue;
    next = [...next, item(u, queue.find((q) => q.uploadId === id), library, null)];
  }
  return { batchId, queue: next };
}

/** The queue with one upload's review edited. */
export function editReview(queue: readonly UploadItem[], uploadId: string, patch: Partial<Review>): UploadItem[] {
  return queue.map((u) => (u.uploadId === uploadId ? { ...u, review: { ...u.review, ...patch } } : u));
}

/** The `wiki.publish` payload of a ready upload's review. */
export function publishPayload(u: Pick<UploadItem, 'uploadId' | 'review'>): Record<string, unknown> {
  return { uploadId: u.uploadId, title: u.review.title.trim(), categoryId: u.review.categoryId, documentType: u.review.documentType };
}

/** A review the server would take: a title of 1–240 characters and a category. */
export function reviewProblem(r: Review): string | null {
  const title = r.title.trim();
  if (!title) return 'Enter a title.';
  if ([...title].length > 240) return 'Titles are at most 240 characters.';
  if (!r.categoryId) return 'Choose a category.';
  return null;
}

/** Every category id, with `id` moved one place up (-1) or down (+1); null when it cannot move. */
export function movedOrder(categories: readonly WikiCategory[], id: string, step: -1 | 1): string[] | null {
  const ids = categories.map((c) => c.id);
  const i = ids.indexOf(id);
  const j = i + step;
  if (i < 0 || j < 0 || j >= ids.length) return null;
  [ids[i], ids[j]] = [ids[j], ids[i]];
  return ids;
}

export function categoryName(library: WikiLibrary | null, id: string): string {
  return library?.categories.find((c) => c.id === id)?.name ?? '—';
}

const STATE_LABELS: Record<UploadState, string> = {
  queued: 'Queued',
  uploading: 'Uploading',
  assembling: 'Checking',
  extracting: 'Extracting text',
  ready: 'Ready for review',
  failed: 'Failed',
  published: 'Published',
  cancelled: 'Cancelled',
  expired: 'Expired',
};

export function stateLabel(s: UploadState): string {
  return STATE_LABELS[s];
}

const REASONS: Record<string, string> = {
  'encrypted-pdf': 'the PDF is encrypted or password-protected',
  'malformed-pdf': 'the file is damaged or not a valid PDF',
  'invalid-file': 'the file is not a PDF',
  'not-pdf': 'the file is not a PDF',
  'too-large': 'the PDF is larger than 50 MB',
  'too-many-pages': 'the PDF has more than 1,000 pages',
  'page-text-limit': 'a page has too much text',
  'document-text-limit': 'the document has too much text',
  'text-item-limit': 'the document has too many text items',
  'no-searchable-text': 'the PDF has no searchable text',
  'extraction-timeout': 'reading the PDF took too long',
  'extraction-failed': 'the PDF could not be read',
  'extraction-unavailable': 'the PDF reader is unavailable; try again',
  'checksum-mismatch': 'the file changed while it was uploaded',
  'upload-failed': 'the upload did not complete',
  'storage-unavailable': 'the server could not store the file',
};

/** "Failed: the PDF is encrypted…" wording of a reason code (a sentence is shown as is). */
export function reasonText(error: string | null): string {
  if (!error) return 'the upload failed';
  return REASONS[error] ?? error;
}

/** True when the refusal is a stale revision (someone changed the record first). */
export function isStale(e: unknown): boolean {
  return e instanceof Error && /changed meanwhile|stale/i.test(e.message);
}

export const STALE_TEXT = 'Someone changed the library meanwhile; it was reloaded. Check the change and try again.';

/** A refused Wiki call in the operator's words. */
export function wikiFailure(e: unknown): string {
  return isStale(e) ? STALE_TEXT : describeFailure(e);
}

/** "9 B" / "830 KB" / "5.3 MB" for a file size (lib/fileSize: bytes are never rounded up to 1 KB). */
export function formatSize(bytes: number): string {
  return formatFileSize(bytes);
}
