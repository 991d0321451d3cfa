// This device's custom alarm tone: one record (the MP3 as a Blob, its name and size) kept in
// IndexedDB and nowhere else (nothing goes to the server, no file:// URL). The store is an
// interface so tests use memoryToneStore(); defaultToneStore() is the IndexedDB one, or a memory
// one where IndexedDB is missing (the tone then lasts the session). Also: the active tone's label.

export interface CustomTone {
  name: string;
  size: number;
  type: string;
  blob: Blob;
  savedAt: number;
}

export interface ToneStore {
  get(): Promise<CustomTone | null>;
  put(tone: CustomTone): Promise<void>;
  clear(): Promise<void>;
}

const DB = 'relay-alarm-tone';
const OBJECTS = 'tone';
const KEY = 'custom';

function req<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

/** The IndexedDB-backed store: database "relay-alarm-tone", object store "tone", key "custom". */
export function idbToneStore(factory: IDBFactory): ToneStore {
  let opened: Promise<IDBDatabase> | null = null;
  const db = () => {
    opened ??= new Promise<IDBDatabase>((resolve, reject) => {
      const open = factory.open(DB, 1);
      open.onupgradeneeded = () => void open.result.createObjectStore(OBJECTS);
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error ?? new Error('IndexedDB open failed'));
    }).catch((e: unknown) => {
      opened = null;
      throw e;
    });
    return opened;
  };
  const run = async <T>(mode: IDBTransactionMode, f: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> => {
    const tx = (await db()).transaction(OBJECTS, mode);
    // Listen for the end of a write before the request settles, so the event cannot be missed.
    const done =
      mode === 'readwrite'
        ? new Promise<void>((resolve, reject) => {
            tx.oncomplete = () => resolve();
            tx.onerror = () => reject(tx.error ?? new Error('IndexedDB write failed'));
            tx.onabort = () => reject(tx.error ?? new Error('IndexedDB write aborted'));
          })
        : Promise.resolve();
    const [result] = await Promise.all([req(f(tx.objectStore(OBJECTS))), done]);
    return result;
  };
  return {
    get: async () => asTone(await run('readonly', (s) => s.get(KEY))),
    put: async (tone) => void (await run('readwrite', (s) => s.put(tone, KEY))),
    clear: async () => void (await run('readwrite', (s) => s.delete(KEY))),
  };
}

/** A stored value that is not a tone record (an older or foreign shape) counts as none. */
function asTone(v: unknown): CustomTone | null {
  if (!v || typeof v !== 'object') return null;
  const t = v as Partial<CustomTone>;
  if (typeof t.name !== 'string' || typeof t.size !== 'number' || !(t.blob instanceof Blob)) return null;
  return { name: t.name, size: t.size, type: typeof t.type === 'string' ? t.type : 'audio/mpeg', blob: t.blob, savedAt: typeof t.savedAt === 'number' ? t.savedAt : 0 };
}

/** An in-memory store (tests; browsers without IndexedDB). */
export function memoryToneStore(init: CustomTone | null = null): ToneStore & { current: () => CustomTone | null } {
  let tone = init;
  return {
    get: () => Promise.resolve(tone),
    put: (t) => Promise.resolve(void (tone = t)),
    clear: () => Promise.resolve(void (tone = null)),
    current: () => tone,
  };
}

let shared: ToneStore | null = null;

/** The store this page uses (IndexedDB when the browser has it). */
export function defaultToneStore(): ToneStore {
  shared ??= typeof indexedDB === 'undefined' ? memoryToneStore() : idbToneStore(indexedDB);
  return shared;
}

export function formatToneSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(2)} MB`;
}

/** What Settings shows as the active tone: "Bundled", or the custom file's name and size. */
export function toneLabel(tone: CustomTone | null): string {
  return tone ? `${tone.name} (${formatToneSize(tone.size)})` : 'Bundled';
}
