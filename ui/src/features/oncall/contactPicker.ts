// The On-Call editor's Name suggestions, fed from People contacts: which contacts match what was
// typed (the name first, then email, title and phone), each with a detail line that tells two
// people of the same name apart, and what a typed name says on its own: exactly one contact of
// that name, several (ambiguous: the editor never picks one of them silently) or none. A chosen
// suggestion is resolved by contact id, never by name. Pure: no React, no DOM.
import { formatPhone } from '../../lib/phone';
import { rankSearch } from '../../lib/search';
import type { Contact } from '../people/contacts';

/** Most suggestions the Name list shows. */
export const NAME_SUGGESTIONS_MAX = 8;

export interface NameSuggestion {
  /** The contact's id: a choice fills this contact's phone. */
  id: string;
  label: string;
  /** Phone, email and title: enough to tell two contacts of the same name apart. */
  detail: string;
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The detail line of a contact: formatted phone, email and title, those that are set. */
export function contactDetail(c: Contact): string {
  return [c.phone ? formatPhone(c.phone) : '', c.email ?? '', c.title ?? ''].filter(Boolean).join(' · ');
}

/** Contacts matching `query` (ranked like the global search), at most `limit`; none for a blank query. */
export function nameSuggestions(query: string, contacts: readonly Contact[], limit = NAME_SUGGESTIONS_MAX): NameSuggestion[] {
  const items = contacts
    .filter((c) => c.name?.trim())
    .map((c) => ({ kind: 'contact' as const, id: c.id, label: c.name.trim(), detail: contactDetail(c), fields: [c.name, c.email, c.title, c.phone] }));
  return rankSearch(query, items, limit).map((s) => ({ id: s.id, label: s.label, detail: s.detail ?? '' }));
}

export type TypedName = { kind: 'none' } | { kind: 'one'; contact: Contact } | { kind: 'many'; count: number };

/** What a name typed in full says: one contact of exactly that name (case-insensitive), several, or none. */
export function typedNameMatch(name: string, contacts: readonly Contact[]): TypedName {
  if (!name.trim()) return { kind: 'none' };
  const named = contacts.filter((c) => c.name && sameName(c.name, name));
  if (named.length === 1) return { kind: 'one', contact: named[0] };
  return named.length > 1 ? { kind: 'many', count: named.length } : { kind: 'none' };
}

/** The hint shown when a typed name belongs to several contacts. */
export function ambiguousNameHint(name: string, count: number): string {
  return `${count} contacts are named ${name.trim()}: pick one from the suggestions to fill the phone.`;
}
