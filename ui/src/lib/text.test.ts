import { describe, expect, it } from 'vitest';
import { firstGraphemes, graphemes, initials, plural } from './text';

describe('graphemes', () => {
  it('keeps emoji, flags, ZWJ sequences and combining marks whole', () => {
    expect(graphemes('🚨👩‍💻🇬🇧e\u0301')).toEqual(['🚨', '👩‍💻', '🇬🇧', 'e\u0301']);
    expect(firstGraphemes('🇬🇧 London', 1)).toBe('🇬🇧');
  });
});

describe('initials', () => {
  it('never splits a surrogate pair (the "🚨 Zoë Ñúñez" → "\\uFFFDZ" bug)', () => {
    const out = initials('🚨 Zoë Ñúñez');
    expect(out).toBe('ZÑ');
    expect(out).not.toMatch(/[\uD800-\uDFFF]/);
  });
  it('uses whole graphemes for decomposed accents and single words', () => {
    expect(initials('E\u0301mile Zola')).toBe('E\u0301Z');
    expect(initials('ñu')).toBe('ÑU');
    expect(initials('Ada Lovelace')).toBe('AL');
  });
  it('keeps symbols when the name has no letters, and is empty for a blank name', () => {
    expect(initials('🚨 🔥')).toBe('🚨🔥');
    expect(initials('👩‍💻')).toBe('👩‍💻');
    expect(initials('   ')).toBe('');
  });
});

describe('plural', () => {
  it('uses the singular only for exactly one', () => {
    expect(plural(1, 'recipient')).toBe('1 recipient');
    expect(plural(0, 'recipient')).toBe('0 recipients');
    expect(plural(2, 'update')).toBe('2 updates');
    expect(plural(1, 'entry', 'entries')).toBe('1 entry');
    expect(plural(3, 'entry', 'entries')).toBe('3 entries');
  });
});
