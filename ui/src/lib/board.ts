// On-call board: group oncall rows into team cards, order cards by the board
// settings' teamOrder, reorder (drag / keyboard move), rename a card's id in that order, and the
// board's CSV export records (quoting and the formula guard are lib/csv's).
import { localDateKey } from './dates';

export interface OnCallRow {
  id: string;
  team: string;
  role?: string;
  name?: string;
  contact?: string;
  timeWindow?: string;
  sortOrder?: number;
  teamId?: string;
}

export interface TeamCard {
  teamId: string;
  team: string;
  rows: OnCallRow[];
}

export const teamIdOf = (name: string) => name.trim().toLowerCase();

export function groupTeams(rows: readonly OnCallRow[]): Map<string, TeamCard> {
  const m = new Map<string, TeamCard>();
  for (const r of rows) {
    const id = (r.teamId && r.teamId.trim()) || teamIdOf(r.team ?? '');
    if (!id) continue;
    let card = m.get(id);
    if (!card) {
      card = { teamId: id, team: r.team ?? id, rows: [] };
      m.set(id, card);
    }
    card.rows.push(r);
  }
  for (const c of m.values()) c.rows.sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0) || (a.id < b.id ? -1 : 1));
  return m;
}

/** Known ids in saved order (stale ones dropped), then new ones by team name. */
export function reconcileOrder(order: readonly string[] | null | undefined, teamIds: Iterable<string>, names?: Map<string, string>): string[] {
  const ids = new Set(teamIds);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of order ?? []) {
    if (ids.has(id) && !seen.has(id)) {
      out.push(id);
      seen.add(id);
    }
  }
  const rest = [...ids].filter((id) => !seen.has(id));
  rest.sort((a, b) => (names?.get(a) ?? a).localeCompare(names?.get(b) ?? b));
  return [...out, ...rest];
}

export function orderedCards(rows: readonly OnCallRow[], order: readonly string[] | null | undefined): TeamCard[] {
  const teams = groupTeams(rows);
  const names = new Map([...teams.values()].map((t) => [t.teamId, t.team]));
  return reconcileOrder(order, teams.keys(), names).map((id) => teams.get(id)!);
}

/** Moves the item at `from` to index `to` (clamped). Returns a new array. */
export function moveItem<T>(list: readonly T[], from: number, to: number): T[] {
  const next = [...list];
  if (from < 0 || from >= next.length) return next;
  const [x] = next.splice(from, 1);
  next.splice(Math.max(0, Math.min(to, next.length)), 0, x);
  return next;
}

/** Null when a new card name is fine. */
export function validateTeamName(name: string, existing: Iterable<string>): string | null {
  const id = teamIdOf(name);
  if (!id) return 'Team name is required.';
  for (const e of existing) if (e === id) return `A card for "${name.trim()}" already exists.`;
  return null;
}

/** Monday–Sunday of the week containing `now` (local time), e.g. "Dec 7 – Dec 13". */
export function weekRange(now: Date): { start: Date; end: Date } {
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate() - ((now.getDay() + 6) % 7));
  const end = new Date(start.getFullYear(), start.getMonth(), start.getDate() + 6);
  return { start, end };
}

/** Board export columns, in order (EXPORT → `oncall-export-YYYY-MM-DD.csv`). */
export const BOARD_CSV_COLUMNS = ['Team', 'Role', 'Name', 'Phone', 'Time Window'] as const;

/**
 * One CSV record per row, cards in board order and rows in card order. `phone` formats the
 * stored number for display. Quoting and the formula guard are lib/csv's `toCsv`.
 */
export function boardCsvRecords(cards: readonly TeamCard[], phone: (raw: string | undefined) => string = (p) => p ?? ''): Record<string, string>[] {
  const out: Record<string, string>[] = [];
  for (const c of cards) {
    for (const r of c.rows) {
      out.push({ Team: c.team, Role: r.role ?? '', Name: r.name ?? '', Phone: phone(r.contact), 'Time Window': r.timeWindow ?? '' });
    }
  }
  return out;
}

export function boardCsvFileName(now: Date): string {
  return `oncall-export-${localDateKey(now)}.csv`;
}

/** Null when `name` may replace team `fromId`'s name (other cards' ids must stay unique). */
export function validateRename(name: string, fromId: string, existing: Iterable<string>): string | null {
  return validateTeamName(name, [...existing].filter((id) => id !== fromId));
}

/** `order` with `fromId` replaced by `toId` in place (or appended when absent), no repeats. */
export function renameInOrder(order: readonly string[], fromId: string, toId: string): string[] {
  const next = order.includes(fromId) ? order.map((id) => (id === fromId ? toId : id)) : [...order, toId];
  return next.filter((id, i) => next.indexOf(id) === i);
}
