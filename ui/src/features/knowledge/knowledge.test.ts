// Knowledge rules and the live library: labels, filters and counts, the outline as stored, and
// the shared collection store applying Wiki realtime (a new document appears in title order, a
// trashed one, delivered as a delete with only its id, disappears; categories in sortOrder).
import { describe, expect, it, vi } from 'vitest';
import { DataStores } from '../../data/store';
import type { ConnectionState, RealtimeEvent, Transport } from '../../transport/types';
import {
  WIKI_CATEGORIES,
  WIKI_DOCUMENTS,
  categoryCounts,
  filterDocuments,
  liveFilter,
  orderedCategories,
  outlineOf,
  pagesText,
  typeLabel,
  type WikiCategory,
  type WikiDocument,
} from './knowledge';

const stamp = '2027-03-05 10:00:00.000Z';
const doc = (id: string, title: string, categoryId = 'wikiuncategoriz', documentType: 'sop' | 'cheatsheet' = 'sop'): WikiDocument => ({
  id,
  title,
  categoryId,
  documentType,
  fileName: `${id}.pdf`,
  pageCount: 3,
  byteSize: 1000,
  checksum: 'a'.repeat(64),
  created: stamp,
  updated: stamp,
});
const cat = (id: string, name: string, sortOrder: number): WikiCategory => ({ id, name, normalizedName: name.toLowerCase(), sortOrder, created: stamp, updated: stamp });

describe('labels', () => {
  it('names the types as operators know them, and counts pages', () => {
    expect(typeLabel('sop')).toBe('SOP Manual');
    expect(typeLabel('cheatsheet')).toBe('Quick Guide');
    expect(pagesText(1)).toBe('1 page');
    expect(pagesText(12)).toBe('12 pages');
  });
});

describe('filters and counts', () => {
  const docs = [doc('d1', 'A', 'net', 'sop'), doc('d2', 'B', 'net', 'cheatsheet'), doc('d3', 'C', 'voice', 'sop')];
  it('filters by category and type', () => {
    expect(filterDocuments(docs, { categoryId: 'net', type: 'all' }).map((d) => d.id)).toEqual(['d1', 'd2']);
    expect(filterDocuments(docs, { categoryId: null, type: 'sop' }).map((d) => d.id)).toEqual(['d1', 'd3']);
    expect(filterDocuments(docs, { categoryId: 'voice', type: 'cheatsheet' })).toEqual([]);
  });
  it('counts documents per category under the type filter', () => {
    expect(Object.fromEntries(categoryCounts(docs, 'all'))).toEqual({ net: 2, voice: 1 });
    expect(Object.fromEntries(categoryCounts(docs, 'cheatsheet'))).toEqual({ net: 1 });
  });
  it('orders categories by sortOrder and forgets a filter on a deleted category', () => {
    const cats = [cat('b', 'Voice', 2), cat('a', 'Uncategorized', 0), cat('c', 'Network', 1)];
    expect(orderedCategories(cats).map((c) => c.id)).toEqual(['a', 'c', 'b']);
    expect(liveFilter({ categoryId: 'gone', type: 'sop' }, cats)).toEqual({ categoryId: null, type: 'sop' });
  });
});

describe('outlineOf', () => {
  it('keeps well-formed entries within the document and drops the rest', () => {
    const outline = [
      { title: 'Overview', pageIndex: 0, depth: 0 },
      { title: 'Procedures', pageIndex: 2, depth: 1 },
      { title: 'Past the end', pageIndex: 3, depth: 0 },
      { title: '', pageIndex: 1, depth: 0 },
      { title: 'Bad index', pageIndex: 1.5, depth: 0 },
      'junk',
      { title: 'Deep', pageIndex: 1, depth: 40 },
    ];
    expect(outlineOf({ outline, pageCount: 3 })).toEqual([
      { title: 'Overview', pageIndex: 0, depth: 0 },
      { title: 'Procedures', pageIndex: 2, depth: 1 },
      { title: 'Deep', pageIndex: 1, depth: 7 },
    ]);
    expect(outlineOf({ outline: null, pageCount: 3 })).toEqual([]);
  });
});

function fakeTransport(initial: Record<string, unknown[]>) {
  const listeners = new Map<string, ((e: RealtimeEvent) => void)[]>();
  const t = {
    getFullList: vi.fn(async (c: string) => initial[c] ?? []),
    subscribe: vi.fn(async (c: string, cb: (e: RealtimeEvent) => void) => {
      listeners.set(c, [...(listeners.get(c) ?? []), cb]);
      return () => {};
    }),
    onStateChange: vi.fn((cb: (s: ConnectionState) => void) => {
      cb('connected');
      return () => {};
    }),
  } as unknown as Transport;
  return { t, emit: (c: string, e: RealtimeEvent) => listeners.get(c)?.forEach((l) => l(e)) };
}
const flush = () => new Promise((res) => setTimeout(res, 0));

describe('the live library (shared collection store)', () => {
  it('adds a newly published document in title order and drops a trashed one by id', async () => {
    const f = fakeTransport({ [WIKI_DOCUMENTS]: [doc('d2', 'VPN runbook'), doc('d1', 'DNS quick guide')] });
    const stores = new DataStores(f.t);
    const docs = stores.get<WikiDocument>(WIKI_DOCUMENTS);
    docs.subscribe(() => {});
    await flush();
    expect(docs.snapshot.items.map((d) => d.title)).toEqual(['DNS quick guide', 'VPN runbook']);

    f.emit(WIKI_DOCUMENTS, { action: 'create', record: doc('d3', 'Firewall SOP') });
    expect(docs.snapshot.items.map((d) => d.id)).toEqual(['d1', 'd3', 'd2']);

    f.emit(WIKI_DOCUMENTS, { action: 'delete', record: { id: 'd1' } });
    expect(docs.snapshot.items.map((d) => d.id)).toEqual(['d3', 'd2']);
    expect(filterDocuments(docs.snapshot.items, { categoryId: null, type: 'all' })).toHaveLength(2);
  });

  it('keeps categories in sortOrder as they are created and reordered', async () => {
    const f = fakeTransport({ [WIKI_CATEGORIES]: [cat('b', 'Voice', 1), cat('a', 'Uncategorized', 0)] });
    const stores = new DataStores(f.t);
    const cats = stores.get<WikiCategory>(WIKI_CATEGORIES);
    cats.subscribe(() => {});
    await flush();
    expect(cats.snapshot.items.map((c) => c.id)).toEqual(['a', 'b']);
    f.emit(WIKI_CATEGORIES, { action: 'update', record: { ...cat('b', 'Voice', -1), updated: '2027-03-05 11:00:00.000Z' } });
    expect(cats.snapshot.items.map((c) => c.id)).toEqual(['b', 'a']);
  });

  it('refuses client writes to the server-owned Wiki collections without a request', async () => {
    const f = fakeTransport({});
    const stores = new DataStores(f.t);
    await expect(stores.gated.create(WIKI_DOCUMENTS, { title: 'x' })).rejects.toThrow(/does not create/);
    await expect(stores.gated.remove(WIKI_CATEGORIES, 'wikiuncategoriz')).rejects.toThrow(/does not delete/);
  });
});
