// On-call history rules: the board rebuilt at a past moment ("who was on call for Network at
// 02:00 last Tuesday?") from today's rows and the server's changes, and the history CSV of a range
// (columns, order, the formula guard of toCsv).
import { describe, expect, it } from 'vitest';
import { toCsv } from '../../lib/csv';
import type { OnCallRow } from '../../lib/board';
import { boardAt, changesAfterFilter, historyCsvFileName, historyCsvRecords, toWireTime, type HistoryRecord } from './history';

const state = (team: string, role: string, name: string, sortOrder = 0) => ({ team, role, name, contact: '5550100', timeWindow: '24/7', sortOrder, teamId: team.toLowerCase() });
const at = (iso: string) => new Date(iso);
let rev = 0;
function change(iso: string, recordId: string, action: HistoryRecord['action'], before: object, after: object): HistoryRecord {
  rev += 1;
  return { id: `h${rev}`, created: toWireTime(at(iso)), revision: rev, recordId, action, stateBefore: before, stateAfter: after };
}

// Network: Ada from Monday, Bob from Tuesday 09:00, backup Eve Wednesday to Thursday.
const HISTORY: HistoryRecord[] = [
  change('2026-12-07T08:00:00Z', 'net1', 'create', {}, state('Network', 'Primary', 'Ada')),
  change('2026-12-08T09:00:00Z', 'net1', 'update', state('Network', 'Primary', 'Ada'), state('Network', 'Primary', 'Bob')),
  change('2026-12-09T10:00:00Z', 'net2', 'create', {}, state('Network', 'Backup', 'Eve', 1)),
  change('2026-12-10T11:00:00Z', 'net2', 'delete', state('Network', 'Backup', 'Eve', 1), {}),
];
const CURRENT: OnCallRow[] = [{ id: 'net1', ...state('Network', 'Primary', 'Bob') }];
const names = (rows: OnCallRow[]) => rows.filter((r) => r.teamId === 'network').sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0)).map((r) => r.name);

describe('boardAt', () => {
  it('answers who was on call for Network at 02:00 last Tuesday', () => {
    expect(names(boardAt(CURRENT, HISTORY, at('2026-12-08T02:00:00Z')))).toEqual(['Ada']);
    expect(names(CURRENT)).toEqual(['Bob']);
  });

  it('shows every moment of the week as it was, in any order of the changes', () => {
    const shuffled = [...HISTORY].reverse();
    expect(boardAt(CURRENT, shuffled, at('2026-12-07T07:59:59Z'))).toEqual([]);
    expect(names(boardAt(CURRENT, shuffled, at('2026-12-08T09:00:00Z')))).toEqual(['Bob']);
    expect(names(boardAt(CURRENT, shuffled, at('2026-12-09T12:00:00Z')))).toEqual(['Bob', 'Eve']);
    expect(names(boardAt(CURRENT, shuffled, at('2026-12-11T00:00:00Z')))).toEqual(['Bob']);
  });

  it('asks the server only for the changes after the moment', () => {
    expect(changesAfterFilter(at('2026-12-08T02:00:00Z'))).toBe('created > "2026-12-08 02:00:00.000Z"');
  });
});

describe('historyCsvRecords', () => {
  it('lists the changes of the range oldest first with the state after (before, for a delete)', () => {
    const records = historyCsvRecords(HISTORY, at('2026-12-08T00:00:00Z'), at('2026-12-10T23:59:59Z'));
    expect(records.map((r) => [r.Name, r.Action])).toEqual([['Bob', 'update'], ['Eve', 'create'], ['Eve', 'delete']]);
    expect(Object.keys(records[0])).toEqual(['Time', 'Team', 'Role', 'Name', 'Contact', 'Time Window', 'Action']);
    expect(records[0]).toMatchObject({ Team: 'Network', Role: 'Primary', Contact: '5550100', 'Time Window': '24/7' });
    expect(records[0].Time).toMatch(/^2026-12-\d\d \d\d:00:00$/);
  });

  it('guards formulas in the export', () => {
    const forged = [change('2026-12-08T10:00:00Z', 'x', 'create', {}, { team: '=HYPERLINK("http://evil")', name: '+SUM(A1)', role: '@cmd' })];
    const csv = toCsv(historyCsvRecords(forged, at('2026-12-08T00:00:00Z'), at('2026-12-09T00:00:00Z')));
    expect(csv).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(csv).toContain("'+SUM(A1)");
    expect(csv).toContain("'@cmd");
  });

  it('names the file after the range', () => {
    expect(historyCsvFileName(new Date(2026, 11, 1), new Date(2026, 11, 7))).toBe('oncall-history-2026-12-01-to-2026-12-07.csv');
  });
});
