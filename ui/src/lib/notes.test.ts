import { describe, expect, it } from 'vitest';
import { entityKey, noteColor, parseTags, swapNotes } from './notes';

describe('notes', () => {
  it('falls back to amber for unknown colors', () => {
    expect(noteColor('blue')).toBe('blue');
    expect(noteColor('pink')).toBe('amber');
    expect(noteColor(undefined)).toBe('amber');
  });
  it('swaps two cards and renumbers only what changed', () => {
    const list = [
      { id: 'a', sortOrder: 0 },
      { id: 'b', sortOrder: 1 },
      { id: 'c', sortOrder: 2 },
    ];
    expect(swapNotes(list, 'a', 'c')).toEqual([
      { id: 'c', sortOrder: 0 },
      { id: 'a', sortOrder: 2 },
    ]);
    expect(swapNotes(list, 'a', 'a')).toEqual([]);
    expect(swapNotes([{ id: 'x' }, { id: 'y' }], 'x', 'y')).toEqual([
      { id: 'y', sortOrder: 0 },
      { id: 'x', sortOrder: 1 },
    ]);
  });
  it('lowercases tags and keys', () => {
    expect(parseTags('Urgent, db  urgent')).toEqual(['urgent', 'db']);
    expect(entityKey('contact', ' Jane@X.com ')).toBe('jane@x.com');
  });
});
