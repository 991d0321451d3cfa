// Data Manager helpers: JSON/CSV parsing, reading an import file by type (an .xlsx through the
// server's rows for the category's collection sheet, or its refusal's message), export names and
// text, and the import gate.
import { describe, expect, it, vi } from 'vitest';
import { TransportError, type SpreadsheetRows } from '../transport/types';
import { exportFileName, exportText, importGate, parseImport, readImportFile } from './importExport';

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

describe('readImportFile', () => {
  const file = (name: string, text = '') => ({ name, text: vi.fn(async () => text) });
  const sheet = (rows: Record<string, string>[], columns = Object.keys(rows[0] ?? {})) =>
    vi.fn(async (_f: unknown, name: string): Promise<SpreadsheetRows> => ({ sheet: name, columns, rows }));

  it('parses CSV and JSON here without asking the server', async () => {
    const never = sheet([]);
    expect(await readImportFile(file('a.csv', 'name,email\nA,a@x\n'), 'contacts', never)).toEqual({
      ok: true, parsed: { records: [{ name: 'A', email: 'a@x' }], errors: [], columns: ['name', 'email'] },
    });
    expect(await readImportFile(file('a.json', '[{"name":"A"}]'), 'contacts', never)).toMatchObject({ ok: true, parsed: { records: [{ name: 'A' }] } });
    expect(never).not.toHaveBeenCalled();
  });

  it('reads an .xlsx through the server, naming the category\'s collection as the sheet', async () => {
    const f = file('Groups.XLSX');
    const rows = [{ name: 'NOC Core', contacts: '["a@example.com"]' }, { name: 'Bridge', contacts: '' }];
    const read = sheet(rows);
    expect(await readImportFile(f, 'groups', read)).toEqual({ ok: true, parsed: { records: rows, errors: [], columns: ['name', 'contacts'] } });
    expect(read).toHaveBeenCalledExactlyOnceWith(f, 'bridge_groups');
    expect(f.text).not.toHaveBeenCalled();
  });

  it('keeps the sheet\'s column order in every row (the server\'s JSON objects come key-sorted)', async () => {
    const read = sheet([{ email: 'a@x', name: 'A', title: '' }], ['name', 'title', 'email']);
    const out = await readImportFile(file('p.xlsx'), 'contacts', read);
    expect(out.ok && out.parsed.records.map((r) => Object.keys(r))).toEqual([['name', 'title', 'email']]);
    expect(out.ok && out.parsed.records).toEqual([{ name: 'A', title: '', email: 'a@x' }]);
  });

  it('answers the server\'s refusal as written, and bounds workbook rows like parsed ones', async () => {
    const refuse = async (): Promise<SpreadsheetRows> => {
      throw new TransportError({ kind: 'server', status: 422, message: 'Cell B7 holds the spreadsheet error #REF!; fix it or clear the cell.' });
    };
    expect(await readImportFile(file('x.xlsx'), 'contacts', refuse)).toEqual({ ok: false, error: 'Cell B7 holds the spreadsheet error #REF!; fix it or clear the cell.' });
    const many = Array.from({ length: 10_001 }, (_, i) => ({ name: `n${i}` }));
    expect(await readImportFile(file('x.xlsx'), 'contacts', sheet(many))).toMatchObject({ ok: true, parsed: { records: [], errors: [expect.stringMatching(/Too many records: 10001/)] } });
    expect(await readImportFile(file('x.xlsx'), 'contacts', sheet([], ['name']))).toEqual({ ok: true, parsed: { records: [], errors: [], columns: ['name'] } });
  });
});

describe('export', () => {
  it('names files relay-<category>-YYYY-MM-DD.<ext>', () => {
    expect(exportFileName('contacts', 'csv', new Date(2026, 0, 5, 23, 59))).toBe('relay-contacts-2026-01-05.csv');
  });
  it('writes 2-space JSON and guarded CSV', () => {
    expect(exportText([{ a: 1 }], 'json', 'contacts')).toBe('[\n  {\n    "a": 1\n  }\n]');
    expect(exportText([{ a: '=1' }], 'csv', 'unknown')).toBe("a\r\n'=1\r\n");
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
