// Compose recipient set algebra: (group emails ∪ manual adds) − manual removes,
// case-insensitive on email, plus group-name validation, the shape check of a stored per-window
// Compose draft (lib/windowDrafts), and what the add box says when Enter adds nothing.
import { isRecord, stringList } from './windowDrafts';

export interface GroupLike {
  id: string;
  name: string;
  contacts?: string[] | null;
}

export interface ComposeState {
  /** Selected group ids. */
  groups: string[];
  /** Manually added emails (as typed). */
  adds: string[];
  /** Manually removed emails (lowercased). */
  removes: string[];
  /** Stack of removals for Undo. */
  undo: string[];
}

export const emptyCompose: ComposeState = { groups: [], adds: [], removes: [], undo: [] };

/** Name of the Compose recipients draft in the window's storage. */
export const COMPOSE_DRAFT = 'compose';
/** Bounds of a restored Compose draft: entries per list, characters per entry. */
export const COMPOSE_DRAFT_MAX = 5000;
export const COMPOSE_ENTRY_MAX = 320;

export const isEmptyCompose = (s: ComposeState) => s.groups.length + s.adds.length + s.removes.length === 0;

/** A stored Compose draft as state, or null when it is not one (wrong shape, too many or too long entries). */
export function restoreCompose(data: unknown): ComposeState | null {
  if (!isRecord(data)) return null;
  const [groups, adds, removes, undo] = (['groups', 'adds', 'removes', 'undo'] as const).map((k) => stringList(data[k], COMPOSE_DRAFT_MAX, COMPOSE_ENTRY_MAX));
  if (!groups || !adds || !removes || !undo) return null;
  return { groups: [...groups], adds: [...adds], removes: [...removes], undo: undo.filter((e) => removes.includes(e)) };
}

export interface Recipient {
  email: string;
  groups: string[];
  manual: boolean;
}

const key = (e: string) => e.trim().toLowerCase();

export function computeRecipients(groups: readonly GroupLike[], s: ComposeState): Recipient[] {
  const removed = new Set(s.removes.map(key));
  const out = new Map<string, Recipient>();
  const selected = new Set(s.groups);
  for (const g of groups) {
    if (!selected.has(g.id)) continue;
    for (const raw of g.contacts ?? []) {
      const k = key(raw);
      if (!k || removed.has(k)) continue;
      const r = out.get(k);
      if (r) r.groups.push(g.name);
      else out.set(k, { email: raw.trim(), groups: [g.name], manual: false });
    }
  }
  for (const raw of s.adds) {
    const k = key(raw);
    if (!k || removed.has(k)) continue;
    const r = out.get(k);
    if (r) r.manual = true;
    else out.set(k, { email: raw.trim(), groups: [], manual: true });
  }
  return [...out.values()];
}

export type ComposeAction =
  | { type: 'toggle-group'; id: string }
  | { type: 'set-groups'; ids: string[] }
  | { type: 'add'; email: string }
  | { type: 'remove'; email: string }
  | { type: 'undo' }
  | { type: 'reset' }
  | { type: 'load'; groups: string[]; adds: string[] };

export function composeReducer(s: ComposeState, a: ComposeAction): ComposeState {
  switch (a.type) {
    case 'toggle-group':
      return { ...s, groups: s.groups.includes(a.id) ? s.groups.filter((g) => g !== a.id) : [...s.groups, a.id] };
    case 'set-groups':
      return { ...s, groups: [...a.ids] };
    case 'add': {
      const k = key(a.email);
      if (!k) return s;
      const adds = s.adds.some((e) => key(e) === k) ? s.adds : [...s.adds, a.email.trim()];
      return { ...s, adds, removes: s.removes.filter((e) => e !== k) };
    }
    case 'remove': {
      const k = key(a.email);
      if (s.removes.includes(k)) return s;
      return { ...s, removes: [...s.removes, k], undo: [...s.undo, k] };
    }
    case 'undo': {
      const last = s.undo[s.undo.length - 1];
      if (!last) return s;
      return { ...s, removes: s.removes.filter((e) => e !== last), undo: s.undo.slice(0, -1) };
    }
    case 'reset':
      return emptyCompose;
    case 'load':
      return { groups: [...a.groups], adds: [...a.adds], removes: [], undo: [] };
  }
}

/** "; "-joined clipboard text. */
export function recipientsText(list: readonly Recipient[]): string {
  return list.map((r) => r.email).join('; ');
}

/** Null when fine, else the reason. Names compare trimmed and case-insensitively. */
export function validateGroupName(name: string, groups: readonly GroupLike[], exceptId?: string): string | null {
  const n = name.trim();
  if (!n) return 'Group name is required.';
  if (groups.some((g) => g.id !== exceptId && g.name.trim().toLowerCase() === n.toLowerCase())) {
    return `A group named "${n}" already exists.`;
  }
  return null;
}

export type RecipientSortKey = 'name' | 'email' | 'title' | 'phone';

/** Sort recipients by a looked-up field (name falls back to the email's local part). */
export function sortRecipients<C extends { name?: string; title?: string; phone?: string }>(
  list: readonly Recipient[],
  lookup: (email: string) => C | undefined,
  key: RecipientSortKey | null,
  dir: 'asc' | 'desc' = 'asc',
): Recipient[] {
  if (!key) return [...list];
  const val = (r: Recipient): string => {
    const c = lookup(r.email.toLowerCase());
    if (key === 'email') return r.email.toLowerCase();
    if (key === 'name') return (c?.name ?? r.email.split('@')[0]).toLowerCase();
    return (c?.[key] ?? '').toLowerCase();
  };
  const sign = dir === 'asc' ? 1 : -1;
  return [...list].sort((a, b) => sign * (val(a).localeCompare(val(b)) || a.email.localeCompare(b.email)));
}

/** The add box's inline message for an entry that is neither an address nor a contact with one. */
export function addBoxRefusal(typed: string): string {
  return `“${typed.trim()}” is not an email address, and no contact with an email matches it. Type a full address (name@example.com) or pick a contact from the list.`;
}
