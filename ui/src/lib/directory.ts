// People and Servers lists: column sort (header click cycles ascending/descending, aria-sort
// value), arrow-key movement through a list (↑/↓, Home/End, PageUp/PageDown), the row scroll
// needed to bring a row into view, the tag choices found in notes, and the contact ↔ server
// relations (owner and IT contact resolved the way the Servers tab resolves them). Pure: the
// views own the state and the DOM.
import type { Contact } from '../features/people/contacts';
import { contactIndex, resolvePerson, type Server } from '../features/servers/servers';

export type SortDir = 'asc' | 'desc';
export interface SortState<K extends string> {
  key: K;
  dir: SortDir;
}

/** A click on column `key`: a new column sorts ascending, the current one flips direction. */
export function nextSort<K extends string>(cur: SortState<K> | null, key: K): SortState<K> {
  return cur?.key === key ? { key, dir: cur.dir === 'asc' ? 'desc' : 'asc' } : { key, dir: 'asc' };
}

export function ariaSort<K extends string>(cur: SortState<K> | null, key: K): 'ascending' | 'descending' | 'none' {
  return cur?.key === key ? (cur.dir === 'asc' ? 'ascending' : 'descending') : 'none';
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

/**
 * A sorted copy: by `field(item, key)` with a case/accent-insensitive, numeric-aware collator;
 * blank values last in either direction; ties keep the input order (stable).
 */
export function sortRows<T, K extends string>(items: readonly T[], cur: SortState<K> | null, field: (item: T, key: K) => string | undefined): T[] {
  if (!cur) return [...items];
  const sign = cur.dir === 'asc' ? 1 : -1;
  return items
    .map((item, i) => ({ item, i, v: (field(item, cur.key) ?? '').trim() }))
    .sort((a, b) => {
      if (!a.v !== !b.v) return a.v ? -1 : 1;
      return sign * collator.compare(a.v, b.v) || a.i - b.i;
    })
    .map((x) => x.item);
}

/** The index a key moves to in a list of `count` rows (`page` rows per page), or null. */
export function listKeyTarget(key: string, index: number, count: number, page = 8): number | null {
  if (count <= 0) return null;
  const clamp = (n: number) => Math.max(0, Math.min(count - 1, n));
  switch (key) {
    case 'ArrowDown': return clamp(index + 1);
    case 'ArrowUp': return clamp(index - 1);
    case 'Home': return 0;
    case 'End': return count - 1;
    case 'PageDown': return clamp(index + page);
    case 'PageUp': return clamp(index - page);
    default: return null;
  }
}

/** The scrollTop that shows row `index` whole, moving as little as possible. */
export function scrollToRow(scrollTop: number, viewportHeight: number, rowHeight: number, index: number): number {
  const top = index * rowHeight;
  if (top < scrollTop) return top;
  if (top + rowHeight > scrollTop + viewportHeight) return Math.max(0, top + rowHeight - viewportHeight);
  return scrollTop;
}

/** Distinct lowercased tags across `notes`, sorted. */
export function tagChoices(notes: Iterable<{ tags?: string[] | null } | undefined>): string[] {
  const s = new Set<string>();
  for (const n of notes) for (const t of n?.tags ?? []) if (t.trim()) s.add(t.trim().toLowerCase());
  return [...s].sort((a, b) => collator.compare(a, b));
}

export function hasTag(note: { tags?: string[] | null } | undefined, tag: string): boolean {
  return (note?.tags ?? []).some((t) => t.trim().toLowerCase() === tag);
}

export interface ServerRelations {
  owns: Server[];
  supports: Server[];
}

/**
 * Contact id → the servers it owns (`owner`) and supports (`contact`, the IT contact), each
 * reference resolved by email, then name (servers.contactIndex). Servers sorted by name.
 */
export function serverRelations(contacts: readonly Contact[], servers: readonly Server[]): Map<string, ServerRelations> {
  const index = contactIndex(contacts);
  const out = new Map<string, ServerRelations>();
  const slot = (id: string) => {
    let r = out.get(id);
    if (!r) out.set(id, (r = { owns: [], supports: [] }));
    return r;
  };
  const byName = [...servers].sort((a, b) => collator.compare(a.name ?? '', b.name ?? ''));
  for (const s of byName) {
    const owner = resolvePerson(s.owner, index);
    if (owner) slot(owner.id).owns.push(s);
    const support = resolvePerson(s.contact, index);
    if (support) slot(support.id).supports.push(s);
  }
  return out;
}

/** Names of the groups whose members include `email` (without case), sorted. */
export function groupsOf(email: string | undefined, groups: readonly { name: string; contacts?: string[] | null }[]): string[] {
  const e = (email ?? '').trim().toLowerCase();
  if (!e) return [];
  return groups
    .filter((g) => (g.contacts ?? []).some((c) => c.trim().toLowerCase() === e))
    .map((g) => g.name)
    .sort((a, b) => collator.compare(a, b));
}
