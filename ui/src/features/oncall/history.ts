// On-call history (issue #38 item 7a): the server keeps one `oncall_history` row per change of an
// `oncall` row (written by the database in the change's own transaction; clients only read it).
// This module is pure: `boardAt` rebuilds the board's rows at a past moment from today's rows by
// undoing, newest first, every change made after that moment (the same rule as the server's
// `domain::oncall_history::board_at`), and `historyCsvRecords` turns a range of changes into
// export rows (the formula guard is `toCsv`'s).
import type { OnCallRow } from '../../lib/board';

export type HistoryAction = 'create' | 'update' | 'delete';

/** A row's board fields as the history stores them (`{}` when there is no row). */
export type HistoryState = Partial<Omit<OnCallRow, 'id'>>;

export interface HistoryRecord {
  id: string;
  /** When the change was made (server wire time). */
  created: string;
  /** Store-wide revision: orders changes made in the same millisecond. */
  revision?: number;
  recordId: string;
  action: HistoryAction;
  teamId?: string;
  team?: string;
  stateBefore?: HistoryState | null;
  stateAfter?: HistoryState | null;
}

/** The server's wire format of an instant, for filters (`2026-12-08 02:00:00.000Z`). */
export function toWireTime(at: Date): string {
  return at.toISOString().replace('T', ' ');
}

/** Epoch ms of a wire time (or ISO string); NaN when unreadable. */
export function wireTimeMs(wire: string): number {
  return Date.parse(wire.includes('T') ? wire : wire.replace(' ', 'T'));
}

const hasState = (s: HistoryState | null | undefined): s is HistoryState => Boolean(s && Object.keys(s).length > 0);

function newestFirst(a: HistoryRecord, b: HistoryRecord): number {
  return wireTimeMs(b.created) - wireTimeMs(a.created) || (b.revision ?? 0) - (a.revision ?? 0);
}

/** The rows as they stood at `at`: every change after `at` undone, newest first. */
export function boardAt(current: readonly OnCallRow[], history: readonly HistoryRecord[], at: Date): OnCallRow[] {
  const atMs = at.getTime();
  let rows: OnCallRow[] = current.map((r) => ({ ...r }));
  const later = history.filter((h) => wireTimeMs(h.created) > atMs).sort(newestFirst);
  for (const change of later) {
    rows = rows.filter((r) => r.id !== change.recordId);
    if (change.action !== 'create' && hasState(change.stateBefore)) {
      rows.push({ ...change.stateBefore, id: change.recordId, team: change.stateBefore.team ?? '' });
    }
  }
  return rows;
}

/** The history filter for changes after `at` (what a past view at `at` must undo). */
export function changesAfterFilter(at: Date): string {
  return `created > "${toWireTime(at)}"`;
}

/** The history filter for changes in [from, to]. */
export function changesBetweenFilter(from: Date, to: Date): string {
  return `created >= "${toWireTime(from)}" && created <= "${toWireTime(to)}"`;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** A local time as `YYYY-MM-DD HH:MM:SS` for the export (the operators' own clock). */
function localTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/**
 * Export rows for the changes made in [from, to], oldest first: the time (local), the team and the
 * row's fields after the change (before it, for a delete), and the action.
 */
export function historyCsvRecords(
  history: readonly HistoryRecord[],
  from: Date,
  to: Date,
  phone: (raw: string | undefined) => string = (p) => p ?? '',
): Record<string, string>[] {
  const inRange = history.filter((h) => {
    const ms = wireTimeMs(h.created);
    return ms >= from.getTime() && ms <= to.getTime();
  });
  return [...inRange].sort((a, b) => -newestFirst(a, b)).map((h) => {
    const state = (h.action === 'delete' ? h.stateBefore : h.stateAfter) ?? {};
    return {
      Time: localTime(wireTimeMs(h.created)),
      Team: state.team ?? h.team ?? '',
      Role: state.role ?? '',
      Name: state.name ?? '',
      Contact: phone(state.contact),
      'Time Window': state.timeWindow ?? '',
      Action: h.action,
    };
  });
}

export function historyCsvFileName(from: Date, to: Date): string {
  const day = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return `oncall-history-${day(from)}-to-${day(to)}.csv`;
}
