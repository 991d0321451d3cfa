import { describe, expect, it } from 'vitest';
import { NO_CACHED_DATA, byField, collectionReducer, initialCollection, insertSorted, type CollectionAction } from './collection';

interface R { id: string; created: string; updated: string; name: string }
const r = (id: string, name: string, updated = '2026-12-02 12:00:00.000Z'): R => ({ id, name, created: updated, updated });
const reduce = collectionReducer<R>(byField<R>('name'));
const run = (...as: CollectionAction<R>[]) => as.reduce(reduce, initialCollection<R>());

describe('collection state', () => {
  it('replays events that raced the fetch', () => {
    const s = run(
      { type: 'event', event: { action: 'create', record: r('3', 'Bob') } },
      { type: 'loaded', items: [r('1', 'Zed'), r('2', 'Al')] },
    );
    expect(s.items.map((x) => x.name)).toEqual(['Al', 'Bob', 'Zed']);
  });
  it('upserts, ignores stale updates and deletes', () => {
    let s = run({ type: 'loaded', items: [r('1', 'A'), r('2', 'B')] });
    s = reduce(s, { type: 'event', event: { action: 'update', record: r('1', 'C', '2026-12-02 12:01:00.000Z') } });
    expect(s.items.map((x) => x.name)).toEqual(['B', 'C']);
    s = reduce(s, { type: 'event', event: { action: 'update', record: r('1', 'Old', '2026-12-02 11:00:00.000Z') } });
    expect(s.items.map((x) => x.name)).toEqual(['B', 'C']);
    s = reduce(s, { type: 'event', event: { action: 'delete', record: r('2', 'B') } });
    expect(s.items.map((x) => x.id)).toEqual(['1']);
  });
  it('turns a reload event into a refetch request without touching items', () => {
    const s0 = run({ type: 'loaded', items: [r('1', 'A')] });
    const s1 = reduce(s0, { type: 'event', event: { action: 'reload', record: { collectionName: 'contacts' } as never } });
    expect(s1.reloadRequests).toBe(1);
    expect(s1.items).toBe(s0.items);
  });
});

describe('offline cache marks (desktop client mode)', () => {
  it('marks items from the cache with their time and clears the mark on a server load', () => {
    const cached = run({ type: 'loaded', items: [r('1', 'A')], cachedAtMs: 1764770000000 });
    expect(cached).toMatchObject({ status: 'ready', cached: 1764770000000 });
    expect(reduce(cached, { type: 'loaded', items: [r('1', 'A')] }).cached).toBeNull();
  });
  it('says nothing is cached yet, unless server data is already on screen', () => {
    expect(run({ type: 'cache-missing' })).toMatchObject({ status: 'error', error: NO_CACHED_DATA, cached: 'missing', items: [] });
    const shown = run({ type: 'loaded', items: [r('1', 'A')] }, { type: 'sync-start' }, { type: 'cache-missing' });
    expect(shown).toMatchObject({ status: 'ready', cached: null, syncing: false });
    expect(shown.items.map((x) => x.name)).toEqual(['A']);
  });
});

describe('insertSorted', () => {
  it('inserts at the sorted position, after equal keys', () => {
    const num = (a: number, b: number) => a - b;
    expect(insertSorted([1, 3, 5], 4, num)).toEqual([1, 3, 4, 5]);
    expect(insertSorted([1, 3, 5], 0, num)).toEqual([0, 1, 3, 5]);
    expect(insertSorted([1, 3, 5], 9, num)).toEqual([1, 3, 5, 9]);
    expect(insertSorted([], 1, num)).toEqual([1]);
    const pairs = insertSorted<[number, string]>([[1, 'a'], [2, 'b']], [1, 'c'], (x, y) => x[0] - y[0]);
    expect(pairs.map((p) => p[1])).toEqual(['a', 'c', 'b']);
  });
});
