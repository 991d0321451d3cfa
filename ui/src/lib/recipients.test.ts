import { describe, expect, it } from 'vitest';
import { COMPOSE_DRAFT_MAX, composeReducer, computeRecipients, emptyCompose, isEmptyCompose, recipientsText, restoreCompose, sortRecipients, validateGroupName, type ComposeAction } from './recipients';

const groups = [
  { id: 'g1', name: 'NOC', contacts: ['a@x.com', 'B@x.com'] },
  { id: 'g2', name: 'DBA', contacts: ['b@x.com', 'c@x.com'] },
];
const run = (...as: ComposeAction[]) => as.reduce(composeReducer, emptyCompose);

describe('recipients', () => {
  it('unions selected groups case-insensitively and tags group membership', () => {
    const r = computeRecipients(groups, run({ type: 'toggle-group', id: 'g1' }, { type: 'toggle-group', id: 'g2' }));
    expect(r.map((x) => x.email)).toEqual(['a@x.com', 'B@x.com', 'c@x.com']);
    expect(r[1].groups).toEqual(['NOC', 'DBA']);
  });
  it('adds manual emails and subtracts manual removes (removes win over groups)', () => {
    const s = run({ type: 'toggle-group', id: 'g1' }, { type: 'add', email: 'd@x.com' }, { type: 'remove', email: 'b@X.com' });
    const r = computeRecipients(groups, s);
    expect(r.map((x) => x.email)).toEqual(['a@x.com', 'd@x.com']);
    expect(r[1].manual).toBe(true);
    expect(recipientsText(r)).toBe('a@x.com; d@x.com');
  });
  it('re-adding a removed email brings it back; undo restores the last removal', () => {
    let s = run({ type: 'toggle-group', id: 'g1' }, { type: 'remove', email: 'a@x.com' });
    expect(computeRecipients(groups, s).map((x) => x.email)).toEqual(['B@x.com']);
    s = composeReducer(s, { type: 'undo' });
    expect(computeRecipients(groups, s).map((x) => x.email)).toEqual(['a@x.com', 'B@x.com']);
    s = run({ type: 'remove', email: 'z@x.com' }, { type: 'add', email: 'Z@x.com' });
    expect(computeRecipients(groups, s).map((x) => x.email)).toEqual(['Z@x.com']);
  });
  it('toggling a group twice deselects it; reset clears everything', () => {
    expect(run({ type: 'toggle-group', id: 'g1' }, { type: 'toggle-group', id: 'g1' }).groups).toEqual([]);
    expect(run({ type: 'add', email: 'q@x' }, { type: 'reset' })).toEqual(emptyCompose);
  });
  it('rejects blank and duplicate group names case-insensitively', () => {
    expect(validateGroupName('  ', groups)).toMatch(/required/);
    expect(validateGroupName(' noc ', groups)).toMatch(/already exists/);
    expect(validateGroupName('NOC', groups, 'g1')).toBeNull();
    expect(validateGroupName('Network', groups)).toBeNull();
  });
});

describe('sortRecipients', () => {
  const people = new Map([
    ['a@x.com', { name: 'Zed', title: 'DBA', phone: '2' }],
    ['b@x.com', { name: 'Amy', title: '', phone: '1' }],
  ]);
  const list = [
    { email: 'a@x.com', groups: [], manual: true },
    { email: 'b@x.com', groups: [], manual: true },
    { email: 'carl@x.com', groups: [], manual: true },
  ];
  it('sorts by looked-up name (email local part when unknown), both directions', () => {
    expect(sortRecipients(list, (e) => people.get(e), 'name').map((r) => r.email)).toEqual(['b@x.com', 'carl@x.com', 'a@x.com']);
    expect(sortRecipients(list, (e) => people.get(e), 'name', 'desc').map((r) => r.email)).toEqual(['a@x.com', 'carl@x.com', 'b@x.com']);
    expect(sortRecipients(list, (e) => people.get(e), 'phone').map((r) => r.email)).toEqual(['carl@x.com', 'b@x.com', 'a@x.com']);
    expect(sortRecipients(list, () => undefined, null)).toEqual(list);
  });
});

describe('stored Compose draft', () => {
  it('restores a stored draft and refuses anything else', () => {
    const state = { groups: ['g1'], adds: ['ada@example.com'], removes: ['bob@example.com'], undo: ['bob@example.com', 'gone@example.com'] };
    expect(restoreCompose(state)).toEqual({ ...state, undo: ['bob@example.com'] });
    expect(restoreCompose({ ...state, adds: 'ada@example.com' })).toBeNull();
    expect(restoreCompose({ ...state, groups: [1] })).toBeNull();
    expect(restoreCompose({ groups: [], adds: [] })).toBeNull();
    expect(restoreCompose({ ...state, adds: Array(COMPOSE_DRAFT_MAX + 1).fill('a@b.c') })).toBeNull();
    expect(restoreCompose({ ...state, adds: ['x'.repeat(321)] })).toBeNull();
    expect(restoreCompose(null)).toBeNull();
  });

  it('is empty with no groups, adds or removes', () => {
    expect(isEmptyCompose(emptyCompose)).toBe(true);
    expect(isEmptyCompose({ ...emptyCompose, adds: ['a@b.c'] })).toBe(false);
    expect(isEmptyCompose({ ...emptyCompose, groups: ['g'] })).toBe(false);
  });
});
