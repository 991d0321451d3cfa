// Knowledge tab rules (issue #15, reader side): the Wiki's categories and active documents as the
// record API and realtime deliver them (`wiki_categories`, `wiki_documents`: server-owned, no
// client writes), their labels ("SOP Manual" / "Quick Guide", pages, size, updated), the counts
// per category, the category and type filters, and the outline as stored, checked before use. A
// trashed document reaches clients as a realtime delete carrying only its id, which the generic
// collection reducer (data/collection) drops like any delete. No network and no React here.
import { parseDate } from '../../lib/dates';
import { formatFileSize } from '../../lib/fileSize';
import type { BaseRecord, WikiDocumentType } from '../../transport/types';

export const WIKI_CATEGORIES = 'wiki_categories';
export const WIKI_DOCUMENTS = 'wiki_documents';
/** `systemKey` of the built-in category that cannot be deleted. */
export const UNCATEGORIZED_KEY = 'uncategorized';

export interface WikiCategory extends BaseRecord {
  name: string;
  normalizedName: string;
  sortOrder: number;
  systemKey?: string;
}

/** One outline node as the server stores it: `pageIndex` from 0. */
export interface OutlineEntry {
  title: string;
  pageIndex: number;
  depth: number;
}

export type SearchIndexState = 'pending' | 'ready' | 'failed' | '';

export interface WikiDocument extends BaseRecord {
  title: string;
  fileName: string;
  categoryId: string;
  documentType: WikiDocumentType;
  pageCount: number;
  byteSize: number;
  /** SHA-256 of the PDF, lowercase hex. */
  checksum: string;
  coverChecksum?: string;
  outline?: unknown;
  publishedAt?: string;
  publishedByName?: string;
  searchIndexState?: SearchIndexState;
}

export const TYPE_LABELS: Record<WikiDocumentType, string> = { sop: 'SOP Manual', cheatsheet: 'Quick Guide' };

export type TypeFilter = 'all' | WikiDocumentType;
export const TYPE_FILTERS: { id: TypeFilter; label: string }[] = [
  { id: 'all', label: 'All types' },
  { id: 'sop', label: TYPE_LABELS.sop },
  { id: 'cheatsheet', label: TYPE_LABELS.cheatsheet },
];

export interface LibraryFilter {
  /** null: every category. */
  categoryId: string | null;
  type: TypeFilter;
}

export const ALL_DOCUMENTS: LibraryFilter = { categoryId: null, type: 'all' };

export function typeLabel(t: string | undefined): string {
  return t === 'sop' || t === 'cheatsheet' ? TYPE_LABELS[t] : 'Document';
}

export function pagesText(n: number): string {
  const pages = Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
  return pages === 1 ? '1 page' : `${pages} pages`;
}

/** A document's size, as every file size is said (lib/fileSize). */
export const sizeText = formatFileSize;

/** "Updated 5 Mar 2027" from the record's `updated` (its last change: publish, replace, retitle). */
export function updatedText(doc: Pick<WikiDocument, 'updated'>): string {
  const d = parseDate(doc.updated);
  return d ? `Updated ${d.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' })}` : '';
}

export function matchesFilter(doc: WikiDocument, f: LibraryFilter): boolean {
  return (f.categoryId === null || doc.categoryId === f.categoryId) && (f.type === 'all' || doc.documentType === f.type);
}

/** The documents shown under `f`, in the order given (the store keeps them by title). */
export function filterDocuments(docs: readonly WikiDocument[], f: LibraryFilter): WikiDocument[] {
  return docs.filter((d) => matchesFilter(d, f));
}

/** Documents per category id under the type filter only (the category list's counts). */
export function categoryCounts(docs: readonly WikiDocument[], type: TypeFilter): Map<string, number> {
  const counts = new Map<string, number>();
  for (const d of docs) if (type === 'all' || d.documentType === type) counts.set(d.categoryId, (counts.get(d.categoryId) ?? 0) + 1);
  return counts;
}

/** Categories first to last: `sortOrder`, then name (the server keeps sort orders distinct). */
export function orderedCategories(cats: readonly WikiCategory[]): WikiCategory[] {
  return [...cats].sort((a, b) => (Number(a.sortOrder) || 0) - (Number(b.sortOrder) || 0) || a.name.localeCompare(b.name));
}

/** A category filter naming a category that is gone (deleted, its documents reassigned) shows everything. */
export function liveFilter(f: LibraryFilter, cats: readonly WikiCategory[]): LibraryFilter {
  return f.categoryId !== null && !cats.some((c) => c.id === f.categoryId) ? { ...f, categoryId: null } : f;
}

/**
 * The stored outline, checked: entries with a string title and integer page index and depth,
 * page indexes within the document (when its page count is known), depth at most 8 levels shown.
 */
export function outlineOf(doc: Pick<WikiDocument, 'outline' | 'pageCount'>): OutlineEntry[] {
  if (!Array.isArray(doc.outline)) return [];
  const pages = Number.isInteger(doc.pageCount) && doc.pageCount > 0 ? doc.pageCount : Infinity;
  const out: OutlineEntry[] = [];
  for (const raw of doc.outline as unknown[]) {
    if (!raw || typeof raw !== 'object') continue;
    const { title, pageIndex, depth } = raw as Record<string, unknown>;
    if (typeof title !== 'string' || title.trim() === '') continue;
    if (typeof pageIndex !== 'number' || !Number.isInteger(pageIndex) || pageIndex < 0 || pageIndex >= pages) continue;
    const d = typeof depth === 'number' && Number.isInteger(depth) && depth > 0 ? Math.min(depth, 7) : 0;
    out.push({ title, pageIndex, depth: d });
  }
  return out;
}

/** A word about the document's search index when it is not simply searchable, else null. */
export function searchIndexNote(doc: Pick<WikiDocument, 'searchIndexState'>): string | null {
  if (doc.searchIndexState === 'pending') return 'Being indexed for search';
  if (doc.searchIndexState === 'failed') return 'Not searchable';
  return null;
}
