import { describe, expect, it } from 'vitest';
import { duplicateWarning, findDuplicates, importDuplicates } from './duplicates';

const contacts = [
  { id: 'a', name: 'Ada Lovelace', email: 'ada@example.com' },
  { id: 'b', name: 'Bob Ops', email: 'bob@example.com' },
  { id: 'c', name: 'Bob Twin', email: 'BOB@example.com ' },
];
const servers = [
  { id: 's1', name: 'db-prod-01' },
  { id: 's2', name: 'web-01' },
];

describe('create/edit duplicate warning', () => {
  it('names the existing contact that has the email (case and spaces ignored)', () => {
    expect(duplicateWarning('contacts', contacts, ' ADA@example.com')).toMatch(/^Ada Lovelace <ada@example.com> already uses this email/);
    expect(findDuplicates('contacts', contacts, 'bob@example.com').map((c) => c.id)).toEqual(['b', 'c']);
    expect(duplicateWarning('contacts', contacts, 'bob@example.com')).toMatch(/and 1 more/);
  });
  it('does not warn about the record being edited, a new key or a blank one', () => {
    expect(duplicateWarning('contacts', contacts, 'ada@example.com', 'a')).toBeNull();
    expect(duplicateWarning('contacts', contacts, 'new@example.com')).toBeNull();
    expect(duplicateWarning('contacts', contacts, '  ')).toBeNull();
  });
  it('warns about a server name already in use', () => {
    expect(duplicateWarning('servers', servers, 'DB-PROD-01')).toMatch(/“db-prod-01” already exists/);
    expect(duplicateWarning('servers', servers, 'db-prod-02')).toBeNull();
  });
});

describe('import duplicates', () => {
  it('counts rows repeating an earlier row and rows whose key is already ambiguous', () => {
    const rows = [
      { name: 'A', email: 'x@example.com' },
      { name: 'A again', email: 'X@example.com' },
      { name: 'Bob', email: 'bob@example.com' },
      { name: 'Ada', email: 'ada@example.com' },
      { name: 'No email' },
      { name: 'No email 2', email: '' },
    ];
    expect(importDuplicates('contacts', rows, contacts)).toEqual({ inFile: 1, ambiguous: 1, keys: ['x@example.com', 'bob@example.com'] });
    expect(importDuplicates('servers', [{ name: 'web-01' }, { name: 'WEB-01' }], servers)).toEqual({ inFile: 1, ambiguous: 0, keys: ['web-01'] });
    expect(importDuplicates('contacts', [{ email: 'new@example.com' }], contacts)).toEqual({ inFile: 0, ambiguous: 0, keys: [] });
  });
});
