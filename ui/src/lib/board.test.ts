import { describe, expect, it } from 'vitest';
import { groupTeams, moveItem, orderedCards, reconcileOrder, validateTeamName, weekRange, type OnCallRow } from './board';

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
