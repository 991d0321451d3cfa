// Generic live-collection state: initial fetch + realtime events (create/update/delete
// upsert by id, stale updates ignored, events racing a fetch replayed onto it) and the
// 'reload' event that asks for a refetch (sent after bulk imports). In desktop client mode
// while the server is unreachable, the items come from the shell's offline cache instead,
// and the state says from when (or that nothing was cached yet).
import type { BaseRecord, RealtimeEvent } from '../transport/types';

export type Compare<T> = (a: T, b: T) => number;

/** A collection's error while offline with nothing in the offline cache for it. */
export const NO_CACHED_DATA = 'Offline — no cached data yet';

export interface CollectionState<T extends BaseRecord> {
  status: 'loading' | 'ready' | 'error';
  items: T[];
  error: string | null;
  syncing: boolean;
  pending: RealtimeEvent<T>[];
  /** Bumped by a 'reload' event; the owner refetches when it changes. */
  reloadRequests: number;
  /**
   * Desktop client mode, server unreachable: the items come from the offline cache fetched at
   * this time (epoch ms), or 'missing' when nothing was cached yet. null: from the server.
   */
  cached: number | 'missing' | null;
}

export type CollectionAction<T extends BaseRecord> =
  | { type: 'sync-start' }
  /** `cachedAtMs`: the items come from the offline cache fetched then. */
  | { type: 'loaded'; items: T[]; cachedAtMs?: number }
  /** Offline with nothing cached: items already on screen stay (they are from the server). */
  | { type: 'cache-missing' }
  | { type: 'failed'; error: string }
  | { type: 'event'; event: RealtimeEvent<T> };

export function initialCollection<T extends BaseRecord>(): CollectionState<T> {
  return { status: 'loading', items: [], error: null, syncing: true, pending: [], reloadRequests: 0, cached: null };
}

export function applyEvent<T extends BaseRecord>(list: readonly T[], e: RealtimeEvent<T>, cmp: Compare<T>): T[] {
  const rec = e.record;
  if (e.action === 'reload' || !rec || typeof rec.id !== 'string') return list as T[];
  const idx = list.findIndex((c) => c.id === rec.id);
  if (e.action === 'delete') return idx < 0 ? (list as T[]) : list.filter((c) => c.id !== rec.id);
  if (idx < 0) return insertSorted(list, rec, cmp);
  const held = list[idx];
  if (held.updated && rec.updated && rec.updated < held.updated) return list as T[];
  const next = [...list];
  next[idx] = rec;
  // Only re-sort when the record moved out of place.
  const okBefore = idx === 0 || cmp(next[idx - 1], rec) <= 0;
  const okAfter = idx === next.length - 1 || cmp(rec, next[idx + 1]) <= 0;
  return okBefore && okAfter ? next : next.sort(cmp);
}

/** Binary-search insert into an already sorted list (O(log n) compares + one copy). */
export function insertSorted<T>(list: readonly T[], rec: T, cmp: Compare<T>): T[] {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(list[mid], rec) <= 0) lo = mid + 1;
    else hi = mid;
  }
  const next = list.slice();
  next.splice(lo, 0, rec);
  return next;
}

export function collectionReducer<T extends BaseRecord>(cmp: Compare<T>) {
  return (s: CollectionState<T>, a: CollectionAction<T>): CollectionState<T> => {
    switch (a.type) {
      case 'sync-start':
        return { ...s, syncing: true, pending: [] };
      case 'loaded': {
        const base = [...a.items].sort(cmp);
        const items = s.pending.reduce((l, e) => applyEvent(l, e, cmp), base);
        return { ...s, status: 'ready', items, error: null, syncing: false, pending: [], cached: a.cachedAtMs ?? null };
      }
      case 'cache-missing':
        return s.status === 'ready'
          ? { ...s, syncing: false, pending: [] }
          : { ...s, status: 'error', error: NO_CACHED_DATA, syncing: false, pending: [], cached: 'missing' };
      case 'failed':
        return { ...s, status: s.status === 'ready' ? 'ready' : 'error', error: a.error, syncing: false, pending: [] };
      case 'event':
        if (a.event.action === 'reload') return { ...s, reloadRequests: s.reloadRequests + 1 };
        return {
          ...s,
          items: applyEvent(s.items, a.event, cmp),
          pending: s.syncing ? [...s.pending, a.event] : s.pending,
        };
    }
  };
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
export const byField =
  <T extends BaseRecord>(field: keyof T): Compare<T> =>
  (a, b) =>
    collator.compare(String(a[field] ?? ''), String(b[field] ?? '')) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
export const byNumber =
  <T extends BaseRecord>(field: keyof T): Compare<T> =>
  (a, b) =>
    (Number(a[field]) || 0) - (Number(b[field]) || 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
export const newestFirst = <T extends BaseRecord>(a: T, b: T) =>
  (b.created ?? '').localeCompare(a.created ?? '') || (a.id < b.id ? 1 : -1);
