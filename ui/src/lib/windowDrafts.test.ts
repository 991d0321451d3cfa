// Per-window drafts: round trip, the size bound, corrupt values read as "no draft" and removed,
// storage that throws, sign-out clearing only drafts, and overTemplate's shape rules.
import { describe, expect, it } from 'vitest';
import { clearAllDrafts, clearDraft, DRAFT_PREFIX, loadDraft, MAX_DRAFT_CHARS, overTemplate, saveDraft, stringList, type DraftStorage } from './windowDrafts';

class MemoryStorage implements DraftStorage {
  readonly map = new Map<string, string>();
  get length() {
    return this.map.size;
  }
  key(i: number) {
    return [...this.map.keys()][i] ?? null;
  }
  getItem(k: string) {
    return this.map.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.map.set(k, v);
  }
  removeItem(k: string) {
    this.map.delete(k);
  }
}

const asIs = (d: unknown) => d as { a: number };

describe('window drafts', () => {
  it('saves and loads a draft whole, versioned, under its own key', () => {
    const s = new MemoryStorage();
    expect(saveDraft('x', { a: 1 }, s)).toBe(true);
    expect(s.getItem(DRAFT_PREFIX + 'x')).toBe('{"v":1,"data":{"a":1}}');
    expect(loadDraft('x', asIs, s)).toEqual({ a: 1 });
    clearDraft('x', s);
    expect(loadDraft('x', asIs, s)).toBeNull();
  });

  it('ignores and removes corrupt, foreign-version and refused values', () => {
    const s = new MemoryStorage();
    for (const raw of ['{not json', '"text"', 'null', '{"v":2,"data":{"a":1}}', '{"data":{"a":1}}', '{"v":1,"data":"x"}']) {
      s.setItem(DRAFT_PREFIX + 'x', raw);
      expect(loadDraft('x', (d) => (typeof d === 'object' && d !== null ? (d as object) : null), s)).toBeNull();
      expect(s.getItem(DRAFT_PREFIX + 'x')).toBeNull();
    }
    s.setItem(DRAFT_PREFIX + 'x', '{"v":1,"data":{}}');
    expect(loadDraft('x', () => { throw new Error('bad'); }, s)).toBeNull();
    expect(s.getItem(DRAFT_PREFIX + 'x')).toBeNull();
  });

  it('is bounded: a draft too large is not kept and its older copy goes; an oversized stored value is dropped', () => {
    const s = new MemoryStorage();
    saveDraft('x', { a: 1 }, s);
    expect(saveDraft('x', { text: 'y'.repeat(MAX_DRAFT_CHARS) }, s)).toBe(false);
    expect(s.getItem(DRAFT_PREFIX + 'x')).toBeNull();
    s.setItem(DRAFT_PREFIX + 'x', `{"v":1,"data":{"t":"${'y'.repeat(MAX_DRAFT_CHARS)}"}}`);
    expect(loadDraft('x', asIs, s)).toBeNull();
    expect(s.getItem(DRAFT_PREFIX + 'x')).toBeNull();
  });

  it('never throws when storage is missing, full or disabled', () => {
    const broken: DraftStorage = {
      getItem: () => { throw new Error('SecurityError'); },
      setItem: () => { throw new Error('QuotaExceededError'); },
      removeItem: () => { throw new Error('SecurityError'); },
    };
    expect(saveDraft('x', { a: 1 }, broken)).toBe(false);
    expect(loadDraft('x', asIs, broken)).toBeNull();
    expect(() => clearDraft('x', broken)).not.toThrow();
    expect(() => clearAllDrafts(broken)).not.toThrow();
    expect(saveDraft('x', { a: 1 }, null)).toBe(false);
    expect(loadDraft('x', asIs, null)).toBeNull();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(saveDraft('x', cyclic, new MemoryStorage())).toBe(false);
  });

  it('sign-out clears every draft and nothing else', () => {
    const s = new MemoryStorage();
    saveDraft('compose', { a: 1 }, s);
    saveDraft('alert', { a: 2 }, s);
    s.setItem('relay-presence-session', 'tab-1');
    clearAllDrafts(s);
    expect([...s.map.keys()]).toEqual(['relay-presence-session']);
  });

  it('overTemplate keeps same-shaped fields, drops unknown ones, keeps defaults for the rest', () => {
    const template = { s: '', n: 0, list: [] as string[], obj: {} as Record<string, unknown>, b: false };
    expect(overTemplate(template, { s: 'x', n: 3, list: ['a'], obj: { k: 1 }, b: true, extra: 1 })).toEqual({ s: 'x', n: 3, list: ['a'], obj: { k: 1 }, b: true });
    expect(overTemplate(template, { s: 5, n: '3', list: {}, obj: [], b: 'yes' })).toEqual(template);
    expect(overTemplate(template, { n: Infinity })).toEqual(template);
    expect(overTemplate(template, [1])).toBeNull();
    expect(overTemplate(template, null)).toBeNull();
  });

  it('stringList bounds count and length', () => {
    expect(stringList(['a', 'b'], 2, 1)).toEqual(['a', 'b']);
    expect(stringList(['a', 'b', 'c'], 2, 1)).toBeNull();
    expect(stringList(['ab'], 2, 1)).toBeNull();
    expect(stringList(['a', 1], 2, 1)).toBeNull();
    expect(stringList('a', 2, 1)).toBeNull();
  });
});
