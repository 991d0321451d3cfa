// CSV parse (RFC 4180-ish: quotes, escaped quotes, CRLF) and export with the
// formula-injection guard (values starting with = + - @ TAB CR get a leading ').
import { plural } from './text';

export interface CsvParseResult {
  rows: Record<string, string>[];
  errors: string[];
  /** The header row's non-blank cells, trimmed, in order (repeats kept, so callers can refuse them). */
  headers: string[];
}

function splitRecords(text: string): { cells: string[][]; errors: string[] } {
  const out: string[][] = [];
  const errors: string[] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  let i = 0;
  const s = text.replace(/^\uFEFF/, '');
  while (i < s.length) {
    const ch = s[i];
    if (quoted) {
      if (ch === '"') {
        if (s[i + 1] === '"') {
          cell += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      cell += ch;
      i++;
      continue;
    }
    if (ch === '"' && cell === '') {
      quoted = true;
      i++;
    } else if (ch === ',') {
      row.push(cell);
      cell = '';
      i++;
    } else if (ch === '\r' || ch === '\n') {
      row.push(cell);
      out.push(row);
      row = [];
      cell = '';
      i += ch === '\r' && s[i + 1] === '\n' ? 2 : 1;
    } else {
      cell += ch;
      i++;
    }
  }
  if (quoted) errors.push('Unterminated quoted field at end of file.');
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    out.push(row);
  }
  return { cells: out, errors };
}

/** Removes the export guard: a leading ' before a formula trigger character. */
export function stripGuard(v: string): string {
  return /^'[=+\-@\t\r]/.test(v) ? v.slice(1) : v;
}

export function parseCsv(text: string): CsvParseResult {
  const { cells, errors } = splitRecords(text);
  const nonBlank = cells.filter((r) => r.some((c) => c.trim() !== ''));
  if (nonBlank.length === 0) return { rows: [], errors: [...errors, 'The file has no header row.'], headers: [] };
  const headers = nonBlank[0].map((h) => h.trim());
  const rows: Record<string, string>[] = [];
  nonBlank.slice(1).forEach((r, idx) => {
    if (r.length > headers.length && r.slice(headers.length).some((c) => c.trim() !== '')) {
      errors.push(`Row ${idx + 1}: ${plural(r.length, 'cell')} but ${plural(headers.length, 'header')}.`);
    }
    const rec: Record<string, string> = {};
    headers.forEach((h, j) => {
      if (h) rec[h] = stripGuard(r[j] ?? '');
    });
    rows.push(rec);
  });
  return { rows, errors, headers: headers.filter((h) => h !== '') };
}

/** Formula-injection guard for one exported cell. */
export function guardCell(v: string): string {
  return /^[=+\-@\t\r]/.test(v) ? "'" + v : v;
}

function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function quote(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/**
 * Header = `columns` when given, else the key order of the first record (plus keys seen later);
 * arrays/objects JSON-stringified.
 */
export function toCsv(records: readonly Record<string, unknown>[], columns?: readonly string[]): string {
  if (records.length === 0) return '';
  const headers = columns ? [...columns] : Object.keys(records[0]);
  if (!columns) for (const r of records) for (const k of Object.keys(r)) if (!headers.includes(k)) headers.push(k);
  const lines = [headers.map(quote).join(',')];
  for (const r of records) lines.push(headers.map((h) => quote(guardCell(cellText(r[h])))).join(','));
  return lines.join('\r\n') + '\r\n';
}
