import { describe, expect, it } from 'vitest';
import { exportFileName, exportText, importGate, parseImport } from './importExport';

describe('import parsing', () => {
  it('reads a JSON array, a multi-collection object, and CSV', () => {
    expect(parseImport('a.json', '[{"name":"A"}]', 'contacts').records).toEqual([{ name: 'A' }]);
    expect(parseImport('all.json', '{"groups":[{"name":"G"}],"contacts":[]}', 'groups').records).toEqual([{ name: 'G' }]);
    expect(parseImport('all.json', '{"bridge_groups":[{"name":"G"}]}', 'groups').records).toEqual([{ name: 'G' }]);
    expect(parseImport('x.CSV', 'name,email\nA,a@x\n', 'contacts').records).toEqual([{ name: 'A', email: 'a@x' }]);
  });
  it('reports broken input instead of throwing', () => {
    expect(parseImport('a.json', '{nope', 'contacts').errors[0]).toMatch(/Not valid JSON/);
    expect(parseImport('a.json', '{"servers":[]}', 'contacts').errors[0]).toMatch(/no "contacts"/);
    expect(parseImport('a.json', '[1]', 'contacts').errors[0]).toMatch(/Row 1/);
    const many = JSON.stringify(Array.from({ length: 10_001 }, () => ({})));
    expect(parseImport('a.json', many, 'contacts').errors[0]).toMatch(/Too many/);
  });
});

describe('export', () => {
  it('names files relay-<category>-YYYY-MM-DD.<ext>', () => {
    expect(exportFileName('contacts', 'csv', new Date(2026, 0, 5, 23, 59))).toBe('relay-contacts-2026-01-05.csv');
  });
  it('writes 2-space JSON and guarded CSV', () => {
    expect(exportText([{ a: 1 }], 'json')).toBe('[\n  {\n    "a": 1\n  }\n]');
    expect(exportText([{ a: '=1' }], 'csv')).toBe("a\r\n'=1\r\n");
  });
});

describe('import gate', () => {
  const clean = { errors: [], applied: false };
  it('blocks apply when the CSV has a parse error, even if the server preview is clean', () => {
    const parsed = parseImport('bad.csv', 'name,email\n"Unclosed quote,x@example.com\nAda,ada@example.com\n', 'contacts');
    expect(parsed.errors[0]).toMatch(/Unterminated quoted field/);
    expect(parsed.records.length).toBe(1); // the whole rest of the file in one garbage row
    const gate = importGate(parsed.errors, clean, parsed.records.length > 0);
    expect(gate).toMatchObject({ canApply: false, errorCount: 1 });
    expect(gate.reason).toMatch(/could not be read/);
  });
  it('blocks apply on server row errors, and allows a clean unapplied preview', () => {
    const rowError = { row: 2, field: 'name', code: 'validation_required', message: 'Cannot be blank.' };
    expect(importGate([], { errors: [rowError], applied: false }, true)).toMatchObject({ canApply: false, errorCount: 1 });
    expect(importGate([], clean, true)).toEqual({ canApply: true, errorCount: 0, reason: null });
    expect(importGate([], { errors: [], applied: true }, true).canApply).toBe(false);
    expect(importGate([], null, true).canApply).toBe(false);
  });
});
