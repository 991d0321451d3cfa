import { describe, expect, it } from 'vitest';
import { BOARD_CSV_COLUMNS, boardCsvFileName, boardCsvRecords, groupTeams, moveItem, orderedCards, reconcileOrder, renameInOrder, validateRename, validateTeamName, weekRange, type OnCallRow, type TeamCard } from './board';
import { toCsv } from './csv';

const r = (id: string, team: string, sortOrder = 0, teamId?: string): OnCallRow => ({ id, team, sortOrder, teamId });

describe('on-call board ordering', () => {
  const rows = [r('1', 'Network', 1), r('2', 'Network', 0), r('3', 'DBA'), r('4', 'Apps', 0, 'apps'), r('5', ' network ', 2)];
  it('groups by teamId (trimmed lowercase name) and sorts rows by sortOrder', () => {
    const g = groupTeams(rows);
    expect([...g.keys()].sort()).toEqual(['apps', 'dba', 'network']);
    expect(g.get('network')!.rows.map((x) => x.id)).toEqual(['2', '1', '5']);
  });
  it('follows teamOrder, drops stale ids, appends new teams alphabetically', () => {
    expect(orderedCards(rows, ['dba', 'gone', 'network']).map((c) => c.teamId)).toEqual(['dba', 'network', 'apps']);
    expect(orderedCards(rows, null).map((c) => c.teamId)).toEqual(['apps', 'dba', 'network']);
    expect(reconcileOrder(['b', 'b', 'a'], ['a', 'b'])).toEqual(['b', 'a']);
  });
  it('moves items for drag and keyboard reorder', () => {
    expect(moveItem(['a', 'b', 'c'], 0, 2)).toEqual(['b', 'c', 'a']);
    expect(moveItem(['a', 'b', 'c'], 2, 0)).toEqual(['c', 'a', 'b']);
    expect(moveItem(['a', 'b', 'c'], 1, 9)).toEqual(['a', 'c', 'b']);
    expect(moveItem(['a', 'b'], 5, 0)).toEqual(['a', 'b']);
  });
  it('rejects blank and duplicate team names', () => {
    expect(validateTeamName(' ', [])).toMatch(/required/);
    expect(validateTeamName('NETWORK ', ['network'])).toMatch(/already exists/);
    expect(validateTeamName('Storage', ['network'])).toBeNull();
  });
});

describe('weekRange', () => {
  it('runs Monday to Sunday, also when today is Sunday', () => {
    const sun = weekRange(new Date(2026, 11, 6, 12)); // Sunday Dec 6
    expect([sun.start.getDate(), sun.end.getDate()]).toEqual([30, 6]);
    expect(sun.start.getMonth()).toBe(10);
    const mon = weekRange(new Date(2026, 11, 7, 0, 5));
    expect([mon.start.getDate(), mon.end.getDate()]).toEqual([7, 13]);
  });
});

describe('board export and rename', () => {
  const cards: TeamCard[] = [
    { teamId: 'net', team: 'Net, Ops', rows: [{ id: '1', team: 'Net, Ops', role: 'Primary', name: '=cmd|x', contact: '5551234567', timeWindow: '24/7' }] },
    { teamId: 'dba', team: 'DBA', rows: [{ id: '2', team: 'DBA', role: 'Backup', name: 'Ann "A"' }, { id: '3', team: 'DBA' }] },
  ];
  it('writes one record per row in board order with the five columns', () => {
    const recs = boardCsvRecords(cards, (p) => (p ? `tel ${p}` : ''));
    expect(recs.map((r) => Object.keys(r))).toEqual(Array(3).fill([...BOARD_CSV_COLUMNS]));
    expect(recs.map((r) => r.Name)).toEqual(['=cmd|x', 'Ann "A"', '']);
    expect(recs[0].Phone).toBe('tel 5551234567');
  });
  it('is RFC 4180 quoted and formula-guarded through toCsv', () => {
    const csv = toCsv(boardCsvRecords(cards));
    expect(csv.split('\r\n')).toEqual([
      'Team,Role,Name,Phone,Time Window',
      '"Net, Ops",Primary,\'=cmd|x,5551234567,24/7',
      'DBA,Backup,"Ann ""A""",,',
      'DBA,,,,',
      '',
    ]);
    expect(toCsv(boardCsvRecords([{ teamId: 'x', team: '+x', rows: [{ id: '1', team: '+x', name: '@a', role: '-r', timeWindow: '\tt', contact: '\rc' }] }])).split('\r\n')[1])
      .toBe('\'+x,\'-r,\'@a,"\'\rc",\'\tt');
  });
  it('names the file by local date', () => {
    expect(boardCsvFileName(new Date(2026, 0, 9, 23, 59))).toBe('oncall-export-2026-01-09.csv');
  });
  it('validates a rename against the other cards only', () => {
    expect(validateRename('DBA', 'dba', ['dba', 'net'])).toBeNull();
    expect(validateRename('dba ', 'net', ['dba', 'net'])).toMatch(/already exists/);
    expect(validateRename(' ', 'net', ['net'])).toMatch(/required/);
  });
  it('replaces the id in the saved order', () => {
    expect(renameInOrder(['a', 'b', 'c'], 'b', 'z')).toEqual(['a', 'z', 'c']);
    expect(renameInOrder(['a'], 'b', 'z')).toEqual(['a', 'z']);
    expect(renameInOrder(['a', 'b'], 'b', 'a')).toEqual(['a']);
  });
});
