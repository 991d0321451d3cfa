// Data Manager helpers: categories, import parsing (JSON / CSV in the browser; an Excel .xlsx
// workbook read into text rows by the server, `readImportFile`) and export files.
import { parseCsv, toCsv } from './csv';
import type { ImportReport, SpreadsheetRows } from '../transport/types';
import { localDateKey } from './dates';
import { exportColumns } from './collectionFields';

export const CATEGORIES = [
  { key: 'contacts', collection: 'contacts', label: 'Contacts' },
  { key: 'servers', collection: 'servers', label: 'Servers' },
  { key: 'oncall', collection: 'oncall', label: 'On-call' },
  { key: 'groups', collection: 'bridge_groups', label: 'Groups' },
  { key: 'bridge_history', collection: 'bridge_history', label: 'Bridge history' },
  { key: 'alert_history', collection: 'alert_history', label: 'Alert history' },
  { key: 'notes', collection: 'notes', label: 'Entity notes' },
  { key: 'standalone_notes', collection: 'standalone_notes', label: 'Notes' },
] as const;

export type CategoryKey = (typeof CATEGORIES)[number]['key'];

export const MAX_IMPORT_BYTES = 25 * 1024 * 1024;
export const MAX_IMPORT_RECORDS = 10_000;

export interface ParsedImport {
  records: Record<string, unknown>[];
  errors: string[];
  /** CSV and XLSX: the header row's column names as written (see CsvParseResult.headers). */
  columns?: string[];
}

/** What an import reads a file through: its name and, for CSV and JSON, its text. */
export interface ImportFile {
  name: string;
  text(): Promise<string>;
}

/**
 * Reads one sheet of an .xlsx workbook into text rows (the transport's readSpreadsheet: the
 * server parses it). `sheet` is the collection name; rejects with the server's refusal.
 */
export type XlsxReader<F> = (file: F, sheet: string) => Promise<SpreadsheetRows>;

export type ImportFileRead = { ok: true; parsed: ParsedImport } | { ok: false; error: string };

export const isXlsx = (fileName: string) => fileName.toLowerCase().endsWith('.xlsx');

export function collectionOf(key: CategoryKey): string {
  return CATEGORIES.find((c) => c.key === key)!.collection;
}

/** The extension picks the parser; JSON by default. */
export function parseImport(fileName: string, text: string, key: CategoryKey): ParsedImport {
  const lower = fileName.toLowerCase();
  let out: ParsedImport;
  if (lower.endsWith('.csv')) {
    const r = parseCsv(text);
    out = { records: r.rows, errors: r.errors, columns: r.headers };
  } else {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      return { records: [], errors: [`Not valid JSON: ${(e as Error).message}`] };
    }
    if (Array.isArray(data)) out = { records: data as Record<string, unknown>[], errors: [] };
    else if (data && typeof data === 'object') {
      const obj = data as Record<string, unknown>;
      const v = obj[key] ?? obj[collectionOf(key)];
      if (Array.isArray(v)) out = { records: v as Record<string, unknown>[], errors: [] };
      else return { records: [], errors: [`The file has no "${key}" array.`] };
    } else return { records: [], errors: ['Expected an array of records.'] };
  }
  return checkParsedImport(out);
}

/** The checks every parsed file goes through, whatever its format: rows are objects, at most MAX_IMPORT_RECORDS. */
function checkParsedImport(out: ParsedImport): ParsedImport {
  const bad = out.records.findIndex((r) => !r || typeof r !== 'object' || Array.isArray(r));
  if (bad >= 0) return { records: [], errors: [...out.errors, `Row ${bad + 1} is not an object.`] };
  if (out.records.length > MAX_IMPORT_RECORDS) {
    return { records: [], errors: [...out.errors, `Too many records: ${out.records.length} (max ${MAX_IMPORT_RECORDS}).`] };
  }
  return out;
}

/**
 * Reads an import file: CSV or JSON parsed here (parseImport), an Excel .xlsx workbook read by the
 * server (`readXlsx`: the sheet named after the collection, or the only sheet; first row =
 * headers; every cell text, as a CSV's would be) and then checked like a parsed CSV. A workbook
 * the server refuses answers its message as written for operators.
 */
export async function readImportFile<F extends ImportFile>(file: F, key: CategoryKey, readXlsx: XlsxReader<F>): Promise<ImportFileRead> {
  if (!isXlsx(file.name)) return { ok: true, parsed: parseImport(file.name, await file.text(), key) };
  let sheet: SpreadsheetRows;
  try {
    sheet = await readXlsx(file, collectionOf(key));
  } catch (e) {
    return { ok: false, error: e instanceof Error && e.message ? e.message : 'The workbook could not be read.' };
  }
  if (!Array.isArray(sheet?.rows)) return { ok: false, error: 'The server answered no rows for the workbook.' };
  // Each row's keys in the sheet's column order (as a CSV row's are): the JSON objects the server
  // sends do not keep it, `columns` does.
  const columns = Array.isArray(sheet.columns) ? sheet.columns : undefined;
  const records = columns
    ? sheet.rows.map((row) => Object.fromEntries(columns.map((c) => [c, row?.[c] ?? ''])))
    : sheet.rows;
  return { ok: true, parsed: checkParsedImport({ records, errors: [], columns }) };
}

export function exportFileName(category: string, ext: 'json' | 'csv', now: Date): string {
  return `relay-${category}-${localDateKey(now)}.${ext}`;
}

/** JSON as stored; CSV in the collection's declared column order, metadata last (exportColumns). */
export function exportText(records: readonly Record<string, unknown>[], ext: 'json' | 'csv', collection: string): string {
  return ext === 'json' ? JSON.stringify(records, null, 2) : toCsv(records, exportColumns(collection, records));
}

export interface ImportGate {
  /** Parse problems plus the server's row errors: what the preview reports as "errors". */
  errorCount: number;
  canApply: boolean;
  /** Why Apply is disabled, for the line beside the button. */
  reason: string | null;
}

/**
 * Whether a previewed import may be applied. A file that did not parse cleanly (e.g. an
 * unterminated quote swallowing the rest of the file into one cell) is never applied, even when
 * the server finds the garbled rows valid: the parse error counts as an error of the preview.
 */
export function importGate(parseErrors: readonly string[], report: Pick<ImportReport, 'errors' | 'applied'> | null, hasRecords: boolean): ImportGate {
  const errorCount = parseErrors.length + (report?.errors.length ?? 0);
  let reason: string | null = null;
  if (parseErrors.length > 0) reason = 'The file could not be read cleanly; fix it and choose it again. Nothing will be written.';
  else if (report && report.errors.length > 0) reason = 'Fix the rows above; nothing will be written while any row has an error.';
  const canApply = hasRecords && report !== null && !report.applied && errorCount === 0;
  return { errorCount, canApply, reason };
}
