// Global search ranking: substring match over contacts, groups and servers,
// ranked exact > prefix > word prefix > substring, primary field first; ≤ 15 results.

export const SEARCH_LIMIT = 15;
export const SEARCH_DEBOUNCE_MS = 200;

export type SearchKind = 'group' | 'contact' | 'server' | 'action';

export interface SearchItem {
  kind: SearchKind;
  id: string;
  label: string;
  detail?: string;
  /** Fields to match; the first is the primary field. */
  fields: (string | undefined | null)[];
}

export interface SearchHit {
  item: SearchItem;
  score: number;
}

/** Lower is better; null = no match. */
export function matchScore(q: string, fields: readonly (string | undefined | null)[]): number | null {
  let best: number | null = null;
  fields.forEach((f, i) => {
    if (!f) return;
    const v = f.toLowerCase();
    const pos = v.indexOf(q);
    if (pos < 0) return;
    let s: number;
    if (v === q) s = 0;
    else if (pos === 0) s = 1;
    else if (/[\s@._\-(]/.test(v[pos - 1])) s = 2;
    else s = 3;
    s = s * 2 + (i === 0 ? 0 : 1);
    if (best === null || s < best) best = s;
  });
  return best;
}

const KIND_RANK: Record<SearchKind, number> = { action: 0, group: 1, contact: 2, server: 3 };

export function rankSearch(query: string, items: Iterable<SearchItem>, limit = SEARCH_LIMIT): SearchItem[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const hits: SearchHit[] = [];
  for (const item of items) {
    const score = matchScore(q, item.fields);
    if (score !== null) hits.push({ item, score });
  }
  hits.sort(
    (a, b) =>
      a.score - b.score || KIND_RANK[a.item.kind] - KIND_RANK[b.item.kind] || a.item.label.localeCompare(b.item.label),
  );
  return hits.slice(0, limit).map((h) => h.item);
}

export const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
