// Servers sync preview: file reading (type by extension, empty/oversized/repeated-column files;
// an .xlsx read through the server's rows, or refused with its message), column rules, name
// matching and casing, minimal patches, removals and ambiguity refusals.
import { describe, expect, it, vi } from 'vitest';
import { TransportError, type SpreadsheetRows } from '../../transport/types';
import {
  AMBIGUOUS_NAMES,
  EMPTY_FILE,
  WRONG_FILE_TYPE,
  parseServersText,
  planServersSync,
  readServersFile,
  type ServerRecord,
  type SyncPlan,
} from './serverSyncPlan';

const rec = (id: string, name: string, extra: Record<string, unknown> = {}): ServerRecord => ({
  id,
  created: '2026-12-01 10:00:00.000Z',
  updated: '2026-12-01 10:00:00.000Z',
  revision: 1,
  collectionId: 'srv',
  collectionName: 'servers',
  name,
  businessArea: '',
  lob: '',
  comment: '',
  owner: '',
  contact: '',
  os: '',
  ...extra,
});

const file = (name: string, text: string) => ({ name, text: vi.fn(async () => text) });
type TestFile = ReturnType<typeof file>;
/** A readXlsx that must not be called (CSV and JSON files never reach the server). */
const noXlsx = vi.fn(async (): Promise<SpreadsheetRows> => {
  throw new Error('readXlsx called for a non-xlsx file');
});
/** A readXlsx answering `rows` as the server would (every cell text, "" when blank). */
const sheetOf = (columns: string[], rows: Record<string, string>[]) =>
  vi.fn(async (_file: TestFile, sheet: string): Promise<SpreadsheetRows> => ({ sheet, columns, rows }));

function plan(rows: Record<string, unknown>[], current: unknown[]): SyncPlan {
  const out = planServersSync({ fileName: 'servers.csv', rows, current, identity: 'u1#1' });
  if (!out.ok) throw new Error(out.errors.join('\n'));
  return out.value;
}

function refusal(rows: Record<string, unknown>[], current: unknown[]): string[] {
  const out = planServersSync({ fileName: 'servers.csv', rows, current, identity: 'u1#1' });
  if (out.ok) throw new Error('expected a refusal');
  return out.errors;
}

describe('readServersFile', () => {
  it('picks the parser by extension and refuses other types with their text', async () => {
    expect(await readServersFile(file('S.CSV', 'name,os\nweb-01,Linux\n'), noXlsx)).toEqual({ ok: true, value: [{ name: 'web-01', os: 'Linux' }] });
    expect(await readServersFile(file('s.json', '{"servers":[{"name":"web-01"}]}'), noXlsx)).toEqual({ ok: true, value: [{ name: 'web-01' }] });
    expect(await readServersFile(file('s.txt', 'name\nx\n'), noXlsx)).toEqual({ ok: false, errors: [WRONG_FILE_TYPE] });
    expect(noXlsx).not.toHaveBeenCalled();
  });

  it('reads an .xlsx through the server ("servers" sheet) and accepts its rows as a CSV\'s', async () => {
    const f = file('Servers.XLSX', 'PK\u0003\u0004');
    const read = sheetOf(['name', 'os', 'owner'], [{ name: 'web-01', os: 'Linux', owner: '' }, { name: '4711', os: '', owner: 'NOC' }]);
    const out = await readServersFile(f, read);
    expect(out).toEqual({ ok: true, value: [{ name: 'web-01', os: 'Linux', owner: '' }, { name: '4711', os: '', owner: 'NOC' }] });
    expect(read).toHaveBeenCalledExactlyOnceWith(f, 'servers');
    expect(f.text).not.toHaveBeenCalled();
    // The rows then plan exactly like CSV rows.
    const planned = plan(out.ok ? out.value : [], [rec('a'.repeat(15), 'WEB-01'), rec('b'.repeat(15), 'old-01')]);
    expect([planned.added.length, planned.updated.length, planned.removed.length, planned.unchanged]).toEqual([1, 1, 1, 0]);
    expect(planned.updated[0].patch).toEqual({ os: 'Linux' });
  });

  it('shows the server\'s refusal of a workbook as the error, as written, with no rows to plan', async () => {
    const message = 'The file is not an Excel .xlsx workbook.';
    const refuse = vi.fn(async (): Promise<SpreadsheetRows> => {
      throw new TransportError({ kind: 'server', status: 415, message });
    });
    expect(await readServersFile(file('renamed.xlsx', 'name,os\nweb-01,Linux\n'), refuse)).toEqual({ ok: false, errors: [message] });
    const which = 'The workbook has no sheet named "servers" and more than one sheet ("A", "B"). Rename the sheet to import or keep only that one.';
    const refuseSheet = async (): Promise<SpreadsheetRows> => {
      throw new TransportError({ kind: 'server', status: 422, message: which });
    };
    expect(await readServersFile(file('two.xlsx', ''), refuseSheet)).toEqual({ ok: false, errors: [which] });
    const offline = async (): Promise<SpreadsheetRows> => {
      throw new TransportError({ kind: 'network', status: 0, message: 'Cannot reach the Relay server.' });
    };
    expect(await readServersFile(file('s.xlsx', ''), offline)).toEqual({ ok: false, errors: ['Cannot reach the Relay server.'] });
  });

  it('applies the CSV checks to workbook rows: empty sheet, repeated columns, unknown columns, 10,000 rows', async () => {
    expect(await readServersFile(file('s.xlsx', ''), sheetOf(['name', 'os'], []))).toEqual({ ok: false, errors: [EMPTY_FILE] });
    expect(await readServersFile(file('s.xlsx', ''), sheetOf(['name', 'os', 'name'], [{ name: 'a', os: '' }]))).toEqual({
      ok: false,
      errors: ['The column "name" appears more than once.'],
    });
    const many = Array.from({ length: 10_001 }, (_, i) => ({ name: `s${i}` }));
    expect(await readServersFile(file('s.xlsx', ''), sheetOf(['name'], many))).toMatchObject({ ok: false, errors: [expect.stringMatching(/Too many records: 10001/)] });
    expect(await readServersFile(file('s.xlsx', ''), sheetOf(['name'], many.slice(1)))).toMatchObject({ ok: true });
    const odd = await readServersFile(file('s.xlsx', ''), sheetOf(['name', 'Rack'], [{ name: 'a', Rack: '1' }]));
    expect(refusal(odd.ok ? odd.value : [], [])).toEqual(['Unrecognized server column "Rack"']);
  });

  it('refuses empty files, header-only files and empty arrays', () => {
    for (const [kind, text] of [['csv', ''], ['csv', ' \r\n'], ['csv', 'name,os\n'], ['json', '[]'], ['json', '\uFEFF  ']] as const) {
      expect(parseServersText(kind, text)).toEqual({ ok: false, errors: [EMPTY_FILE] });
    }
  });

  it('aborts on parse errors, repeated columns and more than 10,000 rows', () => {
    expect(parseServersText('csv', 'name,os\n"web-01,Linux\n')).toMatchObject({ ok: false, errors: [expect.stringMatching(/Unterminated/)] });
    expect(parseServersText('json', '{"name": ')).toMatchObject({ ok: false, errors: [expect.stringMatching(/^Not valid JSON/)] });
    expect(parseServersText('json', '[1]')).toEqual({ ok: false, errors: ['Row 1 is not an object.'] });
    expect(parseServersText('csv', 'name,os,name\nweb-01,Linux,web-02\n')).toEqual({ ok: false, errors: ['The column "name" appears more than once.'] });
    const many = 'name\n' + Array.from({ length: 10_001 }, (_, i) => `s${i}`).join('\n');
    expect(parseServersText('csv', many)).toMatchObject({ ok: false, errors: [expect.stringMatching(/Too many records: 10001/)] });
    const max = 'name\n' + Array.from({ length: 10_000 }, (_, i) => `s${i}`).join('\n');
    expect(parseServersText('csv', max)).toMatchObject({ ok: true });
  });
});

describe('planServersSync', () => {
  const current = [rec('a'.repeat(15), 'Web-01', { os: 'Linux' }), rec('b'.repeat(15), 'db-01', { owner: 'ada@example.com' }), rec('c'.repeat(15), 'old-01')];

  it('adds new names, updates matches with minimal patches, counts the unchanged and removes the rest', () => {
    const p = plan(
      [
        { name: '  WEB-01 ', os: 'Linux', comment: 'edge' },
        { name: 'db-01', owner: 'ada@example.com', os: '' },
        { name: ' new-01 ', os: 'Windows' },
      ],
      current,
    );
    expect(p.added).toEqual([{ name: 'new-01', data: { name: 'new-01', os: 'Windows' } }]);
    expect(p.updated).toEqual([{ id: 'a'.repeat(15), name: 'Web-01', patch: { comment: 'edge' } }]);
    expect(p.unchanged).toBe(1);
    expect(p.removed).toEqual([{ id: 'c'.repeat(15), name: 'old-01' }]);
    expect([p.incomingCount, p.currentCount, p.fileName, p.identity]).toEqual([3, 3, 'servers.csv', 'u1#1']);
    expect(JSON.parse(p.backupJson)).toEqual(current);
    expect(p.snapshot).toEqual(current);
  });

  it('keeps the stored name casing and never patches the name', () => {
    const p = plan([{ name: 'web-01', os: 'Linux' }, { name: 'DB-01' }, { name: 'old-01' }], current);
    expect(p.updated).toEqual([]);
    expect(p.unchanged).toBe(3);
  });

  it('leaves a column the file lacks as stored, and treats null as empty text', () => {
    const p = plan([{ name: 'web-01' }, { name: 'db-01', owner: null }, { name: 'old-01', os: null }], current);
    expect(p.updated).toEqual([{ id: 'b'.repeat(15), name: 'db-01', patch: { owner: '' } }]);
    expect(p.unchanged).toBe(2);
  });

  it('ignores record metadata in the file (a re-imported backup is a no-op)', () => {
    const p = plan(current.map((r) => ({ ...r, id: 'zzzzzzzzzzzzzzz', created: 'x', updatedAt: 'y', createdAt: 'z', expand: {} })), current);
    expect([p.added.length, p.updated.length, p.removed.length, p.unchanged]).toEqual([0, 0, 0, 3]);
  });

  it('allows keys seen on current records and refuses any other column, once per column', () => {
    const withExtra = [rec('a'.repeat(15), 'web-01', { rack: 'R1' })];
    expect(plan([{ name: 'web-01', rack: 'R2' }], withExtra).updated).toEqual([{ id: 'a'.repeat(15), name: 'web-01', patch: { rack: 'R2' } }]);
    expect(refusal([{ name: 'a', Rack: '1' }, { name: 'b', Rack: '2', site: 'x' }], withExtra)).toEqual([
      'Unrecognized server column "Rack"',
      'Unrecognized server column "site"',
    ]);
  });

  it('requires text values and a non-blank name on every row', () => {
    expect(refusal([{ name: 'a', os: 7 }, { name: '   ' }, { os: 'Linux' }, { name: ['x'] }], [])).toEqual([
      'Row 1: "os" must be text.',
      'Row 2: a server name is required.',
      'Row 3: a server name is required.',
      'Row 4: "name" must be text.',
      'Row 4: a server name is required.',
    ]);
  });

  it('refuses names repeated in the file or among current servers', () => {
    expect(refusal([{ name: 'web-01' }, { name: ' WEB-01' }], [])).toEqual([`${AMBIGUOUS_NAMES}: "web-01" appears 2 times in the file.`]);
    const twins = [rec('a'.repeat(15), 'Web-01'), rec('b'.repeat(15), 'web-01 ')];
    expect(refusal([{ name: 'db-01' }], twins)).toEqual([`${AMBIGUOUS_NAMES}: 2 current servers are named "web-01".`]);
  });

  it('removes current servers without a name (they can never match)', () => {
    const p = plan([{ name: 'web-01' }], [rec('a'.repeat(15), 'web-01'), rec('b'.repeat(15), ''), rec('c'.repeat(15), ' ')]);
    expect(p.removed.map((r) => r.id)).toEqual(['b'.repeat(15), 'c'.repeat(15)]);
  });

  it('refuses a current list that is too long or holds a record without an id', () => {
    expect(refusal([{ name: 'a' }], [rec('', 'x')])[0]).toMatch(/without an id/);
    expect(refusal([{ name: 'a' }], [{ name: 'x' }])[0]).toMatch(/without an id/);
    const huge = Array.from({ length: 10_001 }, (_, i) => rec(`id${i}`, `s${i}`));
    expect(refusal([{ name: 'a' }], huge)[0]).toMatch(/more than 10000 servers/);
  });
});
