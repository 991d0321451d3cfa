// Standalone notes: colors, order, swap; entity note keys.

export const NOTE_COLORS = ['amber', 'blue', 'green', 'red', 'purple', 'slate'] as const;
export type NoteColor = (typeof NOTE_COLORS)[number];

export interface StandaloneNote {
  id: string;
  title?: string;
  content?: string;
  color?: string;
  tags?: string[] | null;
  sortOrder?: number;
  updated?: string;
}

export function noteColor(c: string | undefined): NoteColor {
  return (NOTE_COLORS as readonly string[]).includes(c ?? '') ? (c as NoteColor) : 'amber';
}

export function sortNotes<T extends StandaloneNote>(list: readonly T[]): T[] {
  return [...list].sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0) || (a.id < b.id ? -1 : 1));
}

/** Swaps two cards; returns the sortOrder patches needed (every card re-numbered 0..n-1). */
export function swapNotes(list: readonly StandaloneNote[], aId: string, bId: string): { id: string; sortOrder: number }[] {
  const ordered = sortNotes(list);
  const i = ordered.findIndex((n) => n.id === aId);
  const j = ordered.findIndex((n) => n.id === bId);
  if (i < 0 || j < 0 || i === j) return [];
  [ordered[i], ordered[j]] = [ordered[j], ordered[i]];
  return ordered.map((n, idx) => ({ id: n.id, sortOrder: idx })).filter((p, idx) => ordered[idx].sortOrder !== p.sortOrder);
}

/** The server's tag limits (domain/src/collections.rs TAGS: 20 items of 50 characters). */
export const MAX_TAGS = 20;
export const MAX_TAG_LEN = 50;

export function parseTags(s: string): string[] {
  return [...new Set(s.split(/[,\s]+/).map((t) => [...t.trim().toLowerCase()].slice(0, MAX_TAG_LEN).join('')).filter(Boolean))].slice(0, MAX_TAGS);
}

/** `tags` plus the tags typed in `text` (parseTags), without repeats, at most MAX_TAGS. */
export function addTags(tags: readonly string[], text: string): string[] {
  return [...new Set([...tags, ...parseTags(text)])].slice(0, MAX_TAGS);
}

/**
 * Entity notes (`notes` rows) are keyed by record identity: `entityKey = "id:<record id>"`.
 * Older rows are keyed by the lowercased contact email or server name, which is not unique
 * (duplicates are allowed), so such a note could show on the wrong record. Those rows are still
 * read: a legacy note belongs to the earliest-created record holding that email/name, and
 * saving it rewrites its key to the record id (migration on write; reading never writes).
 */
export const ID_KEY_PREFIX = 'id:';

export function recordNoteKey(recordId: string): string {
  return ID_KEY_PREFIX + recordId;
}

/** The legacy key of a record: lowercased email (contact) or name (server). */
export function legacyNoteKey(type: 'contact' | 'server', rec: { name?: string; email?: string }): string {
  return ((type === 'contact' ? rec.email : rec.name) ?? '').trim().toLowerCase();
}

interface NoteRow {
  entityType: string;
  entityKey: string;
}

interface NotedRecord {
  id: string;
  created?: string;
  name?: string;
  email?: string;
}

/** Record id → its note: id-keyed notes first, then legacy ones for the record that owns the key. */
export function notesByRecord<N extends NoteRow>(type: 'contact' | 'server', notes: readonly N[], records: readonly NotedRecord[]): Map<string, N> {
  const out = new Map<string, N>();
  const legacy = new Map<string, N>();
  for (const n of notes) {
    if (n.entityType !== type) continue;
    if (n.entityKey.startsWith(ID_KEY_PREFIX)) out.set(n.entityKey.slice(ID_KEY_PREFIX.length), n);
    else legacy.set(n.entityKey.trim().toLowerCase(), n);
  }
  if (legacy.size === 0) return out;
  const owner = new Map<string, string>();
  const oldestFirst = [...records].sort((a, b) => (a.created ?? '').localeCompare(b.created ?? '') || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const r of oldestFirst) {
    const k = legacyNoteKey(type, r);
    if (k && !owner.has(k)) owner.set(k, r.id);
  }
  for (const [k, n] of legacy) {
    const id = owner.get(k);
    if (id && !out.has(id)) out.set(id, n);
  }
  return out;
}
