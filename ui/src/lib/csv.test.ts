import { describe, expect, it } from 'vitest';
import { guardCell, parseCsv, stripGuard, toCsv } from './csv';

describe('parseCsv', () => {
  it('uses trimmed headers, skips blank lines, handles quotes and CRLF', () => {
    const r = parseCsv(' name , email \r\n"Doe, Jane",jane@x\r\n\r\n"Say ""hi""",b@x\n');
    expect(r.errors).toEqual([]);
    expect(r.rows).toEqual([
      { name: 'Doe, Jane', email: 'jane@x' },
      { name: 'Say "hi"', email: 'b@x' },
    ]);
  });
  it('removes the formula guard and keeps other apostrophes', () => {
    const r = parseCsv("name,note\n'=SUM(A1),'-5\nO'Brien,'plain\n");
    expect(r.rows[0]).toEqual({ name: '=SUM(A1)', note: '-5' });
    expect(r.rows[1]).toEqual({ name: "O'Brien", note: "'plain" });
  });
  it('reports but does not fail on structural problems', () => {
    const r = parseCsv('a,b\n1,2,3\n"open');
    expect(r.rows.length).toBe(2);
    expect(r.errors.length).toBe(2);
  });
  it('reports a missing header', () => {
    expect(parseCsv('\n\n').errors).toContain('The file has no header row.');
    expect(parseCsv('\n\n').headers).toEqual([]);
  });
  it('lists the non-blank trimmed headers, repeats kept', () => {
    expect(parseCsv(' name ,os,,name\nA,B,,C\n').headers).toEqual(['name', 'os', 'name']);
  });
});

describe('toCsv', () => {
  it('guards formula starters', () => {
    for (const v of ['=1+1', '+1', '-1', '@x', '\tx', '\rx']) expect(guardCell(v)).toBe("'" + v);
    expect(guardCell('a=1')).toBe('a=1');
  });
  it('writes header from the first record, stringifies arrays, quotes, guards', () => {
    const csv = toCsv([
      { name: 'A, B', tags: ['x', 'y'], n: 2 },
      { name: '=HYPERLINK("evil")', tags: [], n: null },
    ]);
    expect(csv).toBe('name,tags,n\r\n"A, B","[""x"",""y""]",2\r\n"\'=HYPERLINK(""evil"")",[],\r\n');
  });
  it('round-trips through parseCsv', () => {
    const recs = [{ a: '-x', b: 'plain "q"' }];
    const back = parseCsv(toCsv(recs)).rows;
    expect(back).toEqual(recs);
    expect(stripGuard("'@a")).toBe('@a');
  });
});
