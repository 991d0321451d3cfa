// People view logic: the Contact record shape, name ordering, and merging
// realtime create/update/delete events into the loaded list (pure functions).
import type { BaseRecord, RealtimeEvent } from '../../transport/types';

export const CONTACTS = 'contacts';

export interface Contact extends BaseRecord {
  name: string;
  email?: string;
  phone?: string;
  title?: string;
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

/** Case/accent-insensitive by name, then by id so the order is total and stable. */
export function compareContacts(a: Contact, b: Contact): number {
  return collator.compare(a.name ?? '', b.name ?? '') || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function sortContacts(list: readonly Contact[]): Contact[] {
  return [...list].sort(compareContacts);
}

/**
 * Applies one realtime event. create/update upsert by id (an event older than
 * the copy we hold, by `updated`, is ignored); delete removes by id.
 * Returns a new sorted array; the input is not modified.
 */
export function applyContactEvent(list: readonly Contact[], e: RealtimeEvent<Contact>): Contact[] {
  const rec = e.record;
  if (!rec || typeof rec.id !== 'string') return [...list];
  const idx = list.findIndex((c) => c.id === rec.id);
  if (e.action === 'delete') return idx < 0 ? [...list] : list.filter((c) => c.id !== rec.id);
  if (idx < 0) return sortContacts([...list, rec]);
  const held = list[idx];
  // "2026-12-02 12:57:11.123Z" timestamps compare correctly as strings.
  if (held.updated && rec.updated && rec.updated < held.updated) return [...list];
  const next = [...list];
  next[idx] = rec;
  return sortContacts(next);
}

export interface ContactsState {
  status: 'loading' | 'ready' | 'error';
  contacts: Contact[];
  error: string | null;
  /** A full fetch is in flight; events seen meanwhile are kept in `pending`. */
  syncing: boolean;
  /** Events since the in-flight fetch started; replayed onto its result. */
  pending: RealtimeEvent<Contact>[];
}

export type ContactsAction =
  | { type: 'sync-start' }
  | { type: 'loaded'; contacts: Contact[] }
  | { type: 'failed'; error: string }
  | { type: 'event'; event: RealtimeEvent<Contact> };

export const initialContactsState: ContactsState = {
  status: 'loading',
  contacts: [],
  error: null,
  syncing: true,
  pending: [],
};

export function contactsReducer(s: ContactsState, a: ContactsAction): ContactsState {
  switch (a.type) {
    case 'sync-start':
      return { ...s, syncing: true, pending: [] };
    case 'loaded': {
      // The fetch may predate events we already saw: replay them on top.
      const merged = s.pending.reduce(applyContactEvent, sortContacts(a.contacts));
      return { status: 'ready', contacts: merged, error: null, syncing: false, pending: [] };
    }
    case 'failed':
      // Keep whatever we already show (cached data) and say what went wrong.
      return {
        ...s,
        status: s.status === 'ready' ? 'ready' : 'error',
        error: a.error,
        syncing: false,
        pending: [],
      };
    case 'event':
      return {
        ...s,
        contacts: applyContactEvent(s.contacts, a.event),
        pending: s.syncing ? [...s.pending, a.event] : s.pending,
      };
  }
}
