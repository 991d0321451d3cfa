import { describe, expect, it } from 'vitest';
import type { Contact } from '../features/people/contacts';
import type { Server } from '../features/servers/servers';
import { ariaSort, groupsOf, hasTag, listKeyTarget, nextSort, scrollToRow, serverRelations, sortRows, tagChoices } from './directory';

const c = (id: string, name: string, email?: string, extra: Partial<Contact> = {}): Contact => ({ id, name, email, created: `2026-01-0${id} 00:00:00.000Z`, ...extra } as Contact);
const s = (id: string, name: string, owner?: string, contact?: string): Server => ({ id, name, owner, contact } as Server);

describe('column sort', () => {
  it('cycles asc/desc on the same column and starts asc on a new one', () => {
    const a = nextSort(null, 'name');
    expect(a).toEqual({ key: 'name', dir: 'asc' });
    expect(nextSort(a, 'name')).toEqual({ key: 'name', dir: 'desc' });
    expect(nextSort(nextSort(a, 'name'), 'name')).toEqual({ key: 'name', dir: 'asc' });
    expect(nextSort({ key: 'name', dir: 'desc' }, 'email')).toEqual({ key: 'email', dir: 'asc' });
  });
  it('reports aria-sort per column', () => {
    expect(ariaSort({ key: 'name', dir: 'asc' }, 'name')).toBe('ascending');
    expect(ariaSort({ key: 'name', dir: 'desc' }, 'name')).toBe('descending');
    expect(ariaSort({ key: 'name', dir: 'desc' }, 'email')).toBe('none');
    expect(ariaSort(null, 'email')).toBe('none');
  });
  it('sorts case- and accent-insensitively, numerically, blanks last, stable', () => {
    const rows = [c('1', 'bob', 'b'), c('2', 'Ámy', ''), c('3', 'amy', 'a'), c('4', 'srv10'), c('5', 'srv9'), c('6', '')];
    const by = (k: 'name' | 'email', dir: 'asc' | 'desc') => sortRows(rows, { key: k, dir }, (x, key) => x[key]).map((x) => x.id);
    expect(by('name', 'asc')).toEqual(['2', '3', '1', '5', '4', '6']);
    expect(by('name', 'desc')).toEqual(['4', '5', '1', '2', '3', '6']);
    expect(by('email', 'asc')).toEqual(['3', '1', '2', '4', '5', '6']);
    expect(sortRows(rows, null, () => '')).toEqual(rows);
  });
});

describe('list keys', () => {
  it('moves within bounds', () => {
    expect(listKeyTarget('ArrowDown', 0, 3)).toBe(1);
    expect(listKeyTarget('ArrowDown', 2, 3)).toBe(2);
    expect(listKeyTarget('ArrowUp', 0, 3)).toBe(0);
    expect(listKeyTarget('Home', 2, 3)).toBe(0);
    expect(listKeyTarget('End', 0, 3)).toBe(2);
    expect(listKeyTarget('PageDown', 0, 30, 10)).toBe(10);
    expect(listKeyTarget('PageUp', 5, 30, 10)).toBe(0);
    expect(listKeyTarget('Enter', 0, 3)).toBeNull();
    expect(listKeyTarget('ArrowDown', 0, 0)).toBeNull();
  });
  it('scrolls just enough to show a row', () => {
    expect(scrollToRow(0, 300, 72, 2)).toBe(0);
    expect(scrollToRow(0, 300, 72, 5)).toBe(6 * 72 - 300);
    expect(scrollToRow(500, 300, 72, 3)).toBe(216);
  });
});

describe('tags, groups and server relations', () => {
  it('collects distinct lowercased tags', () => {
    expect(tagChoices([{ tags: ['VIP', 'db'] }, undefined, { tags: ['vip', ' ', 'Apps'] }, { tags: null }])).toEqual(['apps', 'db', 'vip']);
    expect(hasTag({ tags: ['VIP'] }, 'vip')).toBe(true);
    expect(hasTag(undefined, 'vip')).toBe(false);
  });
  it('finds a contact’s groups by email without case', () => {
    const groups = [{ name: 'Zeta', contacts: ['A@x.com'] }, { name: 'alpha', contacts: ['a@x.com', 'b@x.com'] }, { name: 'none', contacts: null }];
    expect(groupsOf('a@X.com', groups)).toEqual(['alpha', 'Zeta']);
    expect(groupsOf('', groups)).toEqual([]);
  });
  it('resolves owners and IT contacts by email, then name', () => {
    const people = [c('1', 'Ann', 'ann@x.com'), c('2', 'Bob', 'bob@x.com')];
    const rel = serverRelations(people, [s('s2', 'web2', 'ANN@x.com', 'Bob'), s('s1', 'web1', 'ann', '-'), s('s3', 'db', 'nobody@x.com', 'bob@x.com')]);
    expect(rel.get('1')!.owns.map((x) => x.name)).toEqual(['web1', 'web2']);
    expect(rel.get('1')!.supports).toEqual([]);
    expect(rel.get('2')!.supports.map((x) => x.name)).toEqual(['db', 'web2']);
    expect(rel.get('2')!.owns).toEqual([]);
  });
});
