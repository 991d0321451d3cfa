// Per-window drafts: the non-secret work in progress that must survive a reload of its window
// (Compose recipients, the alert draft), kept in sessionStorage, which belongs to one tab or
// desktop window and dies with it. Never credentials: tokens and CSRF values stay in memory
// (docs/security.md). Each draft is stored whole as `{"v":1,"data":…}` under `relay-draft:<name>`,
// bounded (a draft larger than MAX_DRAFT_CHARS is not kept, and any older copy is removed), and
// read defensively: unparsable JSON, another version or a value its validator refuses reads as
// "no draft" and is removed. Storage that is missing or throws (disabled, quota) is ignored.
// Rules for callers: save on every change, clear when the draft is sent or cleared (what was
// sent lives in History), and clearAllDrafts() on sign-out.
import { useEffect, useRef } from 'react';

export const DRAFT_PREFIX = 'relay-draft:';
export const DRAFT_VERSION = 1;
/** Longest stored draft, in UTF-16 code units of its JSON (sessionStorage quotas are ~5 M). */
export const MAX_DRAFT_CHARS = 512 * 1024;

export type DraftStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> & { readonly length?: number; key?(i: number): string | null };

/** The window's sessionStorage, or null where there is none (or reading it throws). */
export function windowStorage(): DraftStorage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null;
  }
}

function quietly<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}

/** The stored draft `name` if `validate` accepts it (returning the value to use), else null. */
export function loadDraft<T>(name: string, validate: (data: unknown) => T | null, storage: DraftStorage | null = windowStorage()): T | null {
  if (!storage) return null;
  const key = DRAFT_PREFIX + name;
  const raw = quietly(() => storage.getItem(key), null);
  if (raw === null) return null;
  let value: T | null = null;
  if (raw.length <= MAX_DRAFT_CHARS) {
    const parsed = quietly<unknown>(() => JSON.parse(raw), null) as { v?: unknown; data?: unknown } | null;
    if (parsed && typeof parsed === 'object' && parsed.v === DRAFT_VERSION) value = quietly(() => validate(parsed.data), null);
  }
  if (value === null) quietly(() => storage.removeItem(key), undefined); // corrupt: never read again
  return value;
}

/** Keeps `data` as draft `name`; false (and no stored copy) when it is too large or storage refuses. */
export function saveDraft(name: string, data: unknown, storage: DraftStorage | null = windowStorage()): boolean {
  if (!storage) return false;
  const key = DRAFT_PREFIX + name;
  const raw = quietly(() => JSON.stringify({ v: DRAFT_VERSION, data }), null);
  if (raw && raw.length <= MAX_DRAFT_CHARS && quietly(() => (storage.setItem(key, raw), true), false)) return true;
  quietly(() => storage.removeItem(key), undefined); // a stale copy must not come back
  return false;
}

export function clearDraft(name: string, storage: DraftStorage | null = windowStorage()): void {
  if (storage) quietly(() => storage.removeItem(DRAFT_PREFIX + name), undefined);
}

/** Sign-out: every draft of this window goes. */
export function clearAllDrafts(storage: DraftStorage | null = windowStorage()): void {
  if (!storage || typeof storage.key !== 'function') return;
  const keys = quietly(() => {
    const out: string[] = [];
    for (let i = 0; i < (storage.length ?? 0); i++) {
      const k = storage.key!(i);
      if (k?.startsWith(DRAFT_PREFIX)) out.push(k);
    }
    return out;
  }, [] as string[]);
  for (const k of keys) quietly(() => storage.removeItem(k), undefined);
}

/**
 * Saves `value` as draft `name` whenever it changes after the first render (an empty draft, by
 * `isEmpty`, removes the stored one). Returns nothing: callers clear with clearDraft on send.
 */
export function useWindowDraft<T>(name: string, value: T, isEmpty: (v: T) => boolean): void {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if (isEmpty(value)) clearDraft(name);
    else saveDraft(name, value);
    // isEmpty is a pure rule; only a new value is a change.
  }, [name, value]);
}

// Validators' helpers.

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An array of at most `max` strings of at most `maxLen` characters each, or null. */
export function stringList(v: unknown, max: number, maxLen: number): string[] | null {
  if (!Array.isArray(v) || v.length > max) return null;
  return v.every((s) => typeof s === 'string' && s.length <= maxLen) ? (v as string[]) : null;
}

/**
 * `template` with each of its fields taken from `data` when the stored value has the same shape
 * (same typeof; arrays for arrays, plain objects for objects); fields `data` lacks or has in
 * another shape keep the template's value, and unknown fields are dropped. Null unless `data` is
 * a plain object.
 */
export function overTemplate<T extends object>(template: T, data: unknown): T | null {
  if (!isRecord(data)) return null;
  const out: Record<string, unknown> = { ...(template as Record<string, unknown>) };
  for (const [k, def] of Object.entries(template as Record<string, unknown>)) {
    const v = data[k];
    if (v === undefined) continue;
    const same = Array.isArray(def) ? Array.isArray(v) : isRecord(def) ? isRecord(v) : typeof v === typeof def && !(typeof v === 'number' && !Number.isFinite(v));
    if (same) out[k] = v;
  }
  return out as T;
}
