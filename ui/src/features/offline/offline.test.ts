// The offline queue's words and review helpers: pending/review counts, progress, a stopped
// replay, the side-by-side rows (bookkeeping fields left out, differences marked), the server
// copy explained when it is gone or unreadable, and retry edits kept to each field's type.
import { describe, expect, it } from 'vitest';
import { changeName, compareRows, editableFields, pendingText, progressText, retryEdits, serverCopyText, stoppedText } from './offline';

describe('status-bar words', () => {
  it('counts changes waiting and changes needing review', () => {
    expect(pendingText({ pendingCount: 0, issueCount: 0 })).toBeNull();
    expect(pendingText({ pendingCount: 1, issueCount: 0 })).toBe('1 change waiting to sync');
    expect(pendingText({ pendingCount: 3, issueCount: 1 })).toBe('3 changes waiting to sync · 1 needs review');
    expect(pendingText({ pendingCount: 0, issueCount: 2 })).toBe('2 need review');
  });
  it('words progress and a stopped replay', () => {
    expect(progressText([2, 5])).toBe('Syncing offline changes: 2 of 5');
    expect(stoppedText(null)).toBeNull();
    expect(stoppedText({ total: 3, synced: 3, conflicts: 0, failed: 0, stopped: null })).toBeNull();
    expect(stoppedText({ total: 3, synced: 1, conflicts: 0, failed: 0, stopped: 'The server went away.' })).toBe('Sync stopped: The server went away.');
  });
  it('names a change by its label, else by collection and id', () => {
    expect(changeName({ label: 'Ann', collection: 'contacts', recordId: 'abcdefghijklmno' })).toBe('Ann');
    expect(changeName({ label: '', collection: 'oncall', recordId: 'abcdefghijklmno' })).toBe('On-call board abcdefghijklmno');
  });
});

describe('review helpers', () => {
  const local = { id: 'abcdefghijklmno', updated: 'x', revision: 4, collectionId: 'c', name: 'Ann B', phone: '', tags: ['a'], vip: true, order: 2 };
  it('puts this PC beside the server field by field, bookkeeping left out', () => {
    const rows = compareRows(local, { state: 'present', record: { id: 'abcdefghijklmno', updated: 'y', name: 'Ann C', phone: '', tags: ['a'], vip: true, order: 2 } });
    expect(rows.map((r) => r.field)).toEqual(['name', 'order', 'phone', 'tags', 'vip']);
    expect(rows.find((r) => r.field === 'name')).toEqual({ field: 'name', local: 'Ann B', server: 'Ann C', differs: true });
    expect(rows.find((r) => r.field === 'phone')).toEqual({ field: 'phone', local: '(empty)', server: '(empty)', differs: false });
    expect(rows.find((r) => r.field === 'tags')?.local).toBe('["a"]');
    // No server copy: nothing is marked as differing, the server side is a dash.
    expect(compareRows(local, { state: 'deleted' }).every((r) => r.server === '—' && !r.differs)).toBe(true);
    expect(compareRows(null, { state: 'present', record: { name: 'Ann' } })).toEqual([{ field: 'name', local: '—', server: 'Ann', differs: true }]);
  });
  it('explains a server copy that is gone or unreadable', () => {
    expect(serverCopyText({ state: 'present', record: {} })).toBeNull();
    expect(serverCopyText({ state: 'deleted' })).toMatch(/deleted there/);
    expect(serverCopyText({ state: 'unavailable' })).toMatch(/could not be read/);
  });
  it('offers only existing scalar fields for edits, never bookkeeping ones', () => {
    expect(editableFields(null)).toEqual([]);
    expect(editableFields(local).map((f) => f.field)).toEqual(['name', 'order', 'phone', 'vip']);
  });
  it('keeps each edit to its field type and sends only what changed', () => {
    const fields = editableFields(local);
    expect(retryEdits(fields, {})).toEqual({ edits: {}, invalid: [] });
    expect(retryEdits(fields, { name: 'Ann D', order: '3', vip: false, phone: '' })).toEqual({ edits: { name: 'Ann D', order: 3, vip: false }, invalid: [] });
    expect(retryEdits(fields, { order: 'three' })).toEqual({ edits: {}, invalid: ['order'] });
    expect(retryEdits(fields, { order: ' ' })).toEqual({ edits: {}, invalid: ['order'] });
    expect(retryEdits(fields, { id: 'zzzzzzzzzzzzzzz', revision: '9' } as never)).toEqual({ edits: {}, invalid: [] });
  });
});
