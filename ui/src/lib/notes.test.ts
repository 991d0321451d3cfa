import { describe, expect, it } from 'vitest';
import { legacyNoteKey, noteColor, notesByRecord, parseTags, recordNoteKey, swapNotes } from './notes';

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
    expect(legacyNoteKey('contact', { email: ' Jane@X.com ' })).toBe('jane@x.com');
    expect(legacyNoteKey('server', { name: 'DB-01' })).toBe('db-01');
  });
});

describe('entity notes keyed by record id', () => {
  const twins = [
    { id: 'bbbbbbbbbbbbbbb', created: '2026-12-02 10:00:00.000Z', name: 'Bob Twin', email: 'bob@example.com' },
    { id: 'aaaaaaaaaaaaaaa', created: '2026-12-01 10:00:00.000Z', name: 'Bob Ops', email: 'BOB@example.com' },
  ];
  it('attaches an id-keyed note to that record only, even when records share an email', () => {
    const notes = [{ entityType: 'contact', entityKey: recordNoteKey('bbbbbbbbbbbbbbb'), note: 'twin note' }];
    const m = notesByRecord('contact', notes, twins);
    expect(m.get('bbbbbbbbbbbbbbb')?.note).toBe('twin note');
    expect(m.has('aaaaaaaaaaaaaaa')).toBe(false);
  });
  it('still reads an old email-keyed note, for the earliest record with that email', () => {
    const notes = [{ entityType: 'contact', entityKey: 'bob@example.com', note: 'legacy' }];
    const m = notesByRecord('contact', notes, twins);
    expect(m.get('aaaaaaaaaaaaaaa')?.note).toBe('legacy');
    expect(m.has('bbbbbbbbbbbbbbb')).toBe(false);
  });
  it('prefers the id-keyed note over a legacy one, and keeps types apart', () => {
    const notes = [
      { entityType: 'contact', entityKey: 'bob@example.com', note: 'legacy' },
      { entityType: 'contact', entityKey: recordNoteKey('aaaaaaaaaaaaaaa'), note: 'current' },
      { entityType: 'server', entityKey: recordNoteKey('bbbbbbbbbbbbbbb'), note: 'server note' },
    ];
    const m = notesByRecord('contact', notes, twins);
    expect(m.get('aaaaaaaaaaaaaaa')?.note).toBe('current');
    expect(m.has('bbbbbbbbbbbbbbb')).toBe(false);
    expect(notesByRecord('server', [{ entityType: 'server', entityKey: 'db-01', note: 's' }], [{ id: 's1', name: 'DB-01' }]).get('s1')?.note).toBe('s');
  });
});
