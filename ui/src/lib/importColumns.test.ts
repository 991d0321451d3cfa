// Import column matching: case/space-insensitive field names, CMDB aliases, metadata passed
// through, unknown and repeated columns reported.
import { describe, expect, it } from 'vitest';
import { mapImportColumns, normalizeHeader, unknownColumnsMessage } from './importColumns';

describe('mapImportColumns', () => {
  it('maps contact aliases ignoring case and spaces', () => {
    const rows = [{ 'FULL NAME': 'Ann', 'E-mail': 'a@x.com', 'Phone Number': '1', 'job title': 'Ops', id: 'abc' }];
    const m = mapImportColumns('contacts', rows);
    expect(m.unknown).toEqual([]);
    expect(m.records).toEqual([{ name: 'Ann', email: 'a@x.com', phone: '1', title: 'Ops', id: 'abc' }]);
    expect(m.renamed.map((r) => r.from)).toEqual(['FULL NAME', 'E-mail', 'Phone Number', 'job title']);
    expect(mapImportColumns('contacts', [{ 'Email Address': 'a@x.com' }]).records).toEqual([{ email: 'a@x.com' }]);
  });
  it('maps server aliases to the real fields', () => {
    const m = mapImportColumns('servers', [], ['Server Name', 'Operating System', 'IT Contact', 'Owner', 'LOB']);
    expect(m.renamed).toEqual([
      { from: 'Server Name', to: 'name' },
      { from: 'Operating System', to: 'os' },
      { from: 'IT Contact', to: 'contact' },
      { from: 'Owner', to: 'owner' },
      { from: 'LOB', to: 'lob' },
    ]);
  });
  it('reports unknown columns and a second column for the same field, leaving rows as they were', () => {
    const rows = [{ name: 'a', 'Server Name': 'b', Rack: '1' }];
    const m = mapImportColumns('servers', rows, ['name', 'Server Name', 'Rack']);
    expect(m.unknown).toEqual(['Server Name', 'Rack']);
    expect(m.records).toEqual(rows);
  });
  it('keeps exact files untouched', () => {
    const rows = [{ name: 'g', contacts: '["a@x.com"]' }];
    const m = mapImportColumns('bridge_groups', rows);
    expect(m).toEqual({ records: rows, renamed: [], unknown: [], expected: ['name', 'contacts'] });
  });
});

describe('helpers', () => {
  it('normalizeHeader and the message', () => {
    expect(normalizeHeader(' Business_Area ')).toBe('businessarea');
    expect(unknownColumnsMessage(['Rack'], ['name', 'os'])).toBe('Unknown column: Rack. Expected: name, os.');
    expect(unknownColumnsMessage(['A', 'B'], ['name'])).toBe('Unknown columns: A, B. Expected: name.');
  });
});
