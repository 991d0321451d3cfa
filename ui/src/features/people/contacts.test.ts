// Tests for contact ordering and merging realtime events into the list.
import { describe, expect, it } from 'vitest';
import {
  applyContactEvent,
  contactsReducer,
  initialContactsState,
  sortContacts,
  type Contact,
  type ContactsAction,
} from './contacts';

function c(id: string, name: string, updated = '2026-12-02 12:00:00.000Z', extra: Partial<Contact> = {}): Contact {
  return { id, name, created: '2026-12-01 08:00:00.000Z', updated, ...extra };
}
const names = (l: Contact[]) => l.map((x) => x.name);

describe('sortContacts', () => {
  it('orders by name ignoring case and accents, numbers naturally', () => {
    const l = [c('1', 'bob'), c('2', 'Alice'), c('3', 'Émile'), c('4', 'agent 10'), c('5', 'agent 9')];
    expect(names(sortContacts(l))).toEqual(['agent 9', 'agent 10', 'Alice', 'bob', 'Émile']);
  });

  it('breaks name ties by id and does not mutate its input', () => {
    const l = [c('b', 'Sam'), c('a', 'sam')];
    expect(sortContacts(l).map((x) => x.id)).toEqual(['a', 'b']);
    expect(l.map((x) => x.id)).toEqual(['b', 'a']);
  });
});

describe('applyContactEvent', () => {
  const base = sortContacts([c('1', 'Alice'), c('2', 'Carol')]);

  it('inserts a created contact in name order', () => {
    expect(names(applyContactEvent(base, { action: 'create', record: c('3', 'Bob') }))).toEqual([
      'Alice',
      'Bob',
      'Carol',
    ]);
  });

  it('treats a repeated create (our own echo) as an upsert, not a duplicate', () => {
    const once = applyContactEvent(base, { action: 'create', record: c('3', 'Bob') });
    const twice = applyContactEvent(once, { action: 'create', record: c('3', 'Bob') });
    expect(twice.map((x) => x.id)).toEqual(['1', '3', '2']);
  });

  it('replaces an updated contact and re-sorts on rename', () => {
    const next = applyContactEvent(base, {
      action: 'update',
      record: c('1', 'Zed', '2026-12-02 12:05:00.000Z', { email: 'z@x' }),
    });
    expect(names(next)).toEqual(['Carol', 'Zed']);
    expect(next[1].email).toBe('z@x');
  });

  it('ignores an update older than the copy held', () => {
    const fresh = applyContactEvent(base, { action: 'update', record: c('1', 'Alicia', '2026-12-02 12:10:00.000Z') });
    const stale = applyContactEvent(fresh, { action: 'update', record: c('1', 'Old', '2026-12-02 12:01:00.000Z') });
    expect(names(stale)).toEqual(['Alicia', 'Carol']);
  });

  it('adds an update for an unknown id', () => {
    expect(names(applyContactEvent(base, { action: 'update', record: c('9', 'Bea') }))).toEqual([
      'Alice',
      'Bea',
      'Carol',
    ]);
  });

  it('removes a deleted contact and ignores unknown deletes', () => {
    expect(names(applyContactEvent(base, { action: 'delete', record: c('1', 'Alice') }))).toEqual(['Carol']);
    expect(names(applyContactEvent(base, { action: 'delete', record: c('x', 'Nobody') }))).toEqual(['Alice', 'Carol']);
  });

  it('does not mutate the list it is given', () => {
    const copy = [...base];
    applyContactEvent(base, { action: 'delete', record: c('1', 'Alice') });
    applyContactEvent(base, { action: 'update', record: c('2', 'Aaron', '2026-12-03 00:00:00.000Z') });
    expect(base).toEqual(copy);
  });
});

describe('contactsReducer', () => {
  const reduce = (...actions: ContactsAction[]) => actions.reduce(contactsReducer, initialContactsState);

  it('replays events that raced the initial fetch onto its result', () => {
    const s = reduce(
      { type: 'event', event: { action: 'create', record: c('3', 'Bob') } },
      { type: 'event', event: { action: 'delete', record: c('1', 'Alice') } },
      { type: 'loaded', contacts: [c('2', 'Carol'), c('1', 'Alice')] },
    );
    expect(s.status).toBe('ready');
    expect(names(s.contacts)).toEqual(['Bob', 'Carol']);
    expect(s.pending).toEqual([]);
  });

  it('applies live events directly once loaded', () => {
    const s = reduce(
      { type: 'loaded', contacts: [c('1', 'Alice')] },
      { type: 'event', event: { action: 'create', record: c('2', 'Aaron') } },
    );
    expect(names(s.contacts)).toEqual(['Aaron', 'Alice']);
    expect(s.pending).toEqual([]);
  });

  it('keeps showing cached contacts when a resync fails', () => {
    const s = reduce(
      { type: 'loaded', contacts: [c('1', 'Alice')] },
      { type: 'sync-start' },
      { type: 'failed', error: 'Cannot reach the Relay server.' },
    );
    expect(s.status).toBe('ready');
    expect(names(s.contacts)).toEqual(['Alice']);
    expect(s.error).toBe('Cannot reach the Relay server.');
  });

  it('reports an error when the first load fails', () => {
    expect(reduce({ type: 'failed', error: 'boom' }).status).toBe('error');
  });
});
