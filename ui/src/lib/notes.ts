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

export function parseTags(s: string): string[] {
  return [...new Set(s.split(/[,\s]+/).map((t) => t.trim().toLowerCase()).filter(Boolean))].slice(0, 20);
}

export function entityKey(_type: 'contact' | 'server', value: string): string {
  return value.trim().toLowerCase();
}
