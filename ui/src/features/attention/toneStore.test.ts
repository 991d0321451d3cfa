// Tests for this device's custom alarm tone store: the IndexedDB-backed store over a fake
// IDBFactory (one record, put/get/clear, a foreign value counts as none, a failed open is
// retried), the memory store, and the active tone's label.
import { describe, expect, it } from 'vitest';
import { formatToneSize, idbToneStore, memoryToneStore, toneLabel, type CustomTone } from './toneStore';

type Handlers = { onsuccess: (() => void) | null; onerror: (() => void) | null; result?: unknown; error?: unknown };

/** A minimal async IndexedDB: one database, object stores as Maps, requests settle on a microtask. */
function fakeIndexedDb({ failOpens = 0 } = {}) {
  const stores = new Map<string, Map<string, unknown>>();
  let version = 0;
  let opens = 0;
  const later = (f: () => void) => queueMicrotask(f);
  const request = (run: () => unknown): Handlers => {
    const r: Handlers = { onsuccess: null, onerror: null };
    later(() => {
      r.result = run();
      r.onsuccess?.();
    });
    return r;
  };
  const db = {
    createObjectStore: (name: string) => void stores.set(name, new Map()),
    transaction: (name: string) => {
      const s = stores.get(name)!;
      const tx = {
        oncomplete: null as (() => void) | null,
        onerror: null,
        onabort: null,
        error: null,
        objectStore: () => ({
          get: (k: string) => request(() => s.get(k)),
          put: (v: unknown, k: string) => request(() => (s.set(k, v), k)),
          delete: (k: string) => request(() => void s.delete(k)),
        }),
      };
      later(() => later(() => tx.oncomplete?.()));
      return tx;
    },
  };
  const factory = {
    open: (_name: string, v: number) => {
      opens += 1;
      const r = { onupgradeneeded: null as (() => void) | null, onsuccess: null as (() => void) | null, onerror: null as (() => void) | null, result: db, error: null as unknown };
      later(() => {
        if (opens <= failOpens) {
          r.error = new Error('blocked');
          r.onerror?.();
          return;
        }
        if (version < v) {
          version = v;
          r.onupgradeneeded?.();
        }
        r.onsuccess?.();
      });
      return r;
    },
  };
  return { factory: factory as unknown as IDBFactory, stores, opens: () => opens };
}

const tone = (name = 'klaxon.mp3', size = 2048): CustomTone => ({ name, size, type: 'audio/mpeg', blob: new Blob([new Uint8Array(size)]), savedAt: 1 });

describe('idbToneStore', () => {
  it('keeps one record: none, then put, replaced, cleared', async () => {
    const idb = fakeIndexedDb();
    const store = idbToneStore(idb.factory);
    expect(await store.get()).toBeNull();
    await store.put(tone());
    expect((await store.get())?.name).toBe('klaxon.mp3');
    await store.put(tone('siren.mp3', 10));
    const got = await store.get();
    expect(got?.name).toBe('siren.mp3');
    expect(got?.blob).toBeInstanceOf(Blob);
    expect(idb.stores.get('tone')?.size).toBe(1);
    await store.clear();
    expect(await store.get()).toBeNull();
    expect(idb.opens()).toBe(1);
  });
  it('treats a value of another shape as no tone', async () => {
    const idb = fakeIndexedDb();
    const store = idbToneStore(idb.factory);
    await store.clear();
    idb.stores.get('tone')!.set('custom', { name: 'x.mp3', blob: 'file:///x.mp3' });
    expect(await store.get()).toBeNull();
  });
  it('a failed open rejects, and the next call opens again', async () => {
    const idb = fakeIndexedDb({ failOpens: 1 });
    const store = idbToneStore(idb.factory);
    await expect(store.get()).rejects.toThrow('blocked');
    expect(await store.get()).toBeNull();
    expect(idb.opens()).toBe(2);
  });
});

describe('memoryToneStore and labels', () => {
  it('put, get, clear', async () => {
    const m = memoryToneStore();
    await m.put(tone());
    expect(m.current()?.name).toBe('klaxon.mp3');
    await m.clear();
    expect(await m.get()).toBeNull();
  });
  it('labels the active tone', () => {
    expect(toneLabel(null)).toBe('Bundled');
    expect(toneLabel(tone('custom.mp3', 9404))).toBe('custom.mp3 (9.2 KB)');
    expect(formatToneSize(500)).toBe('500 B');
    expect(formatToneSize(2 * 1024 * 1024)).toBe('2.00 MB');
  });
});
