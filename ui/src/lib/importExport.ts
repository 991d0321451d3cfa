// Data Manager helpers: categories, client-side import parsing (JSON / CSV) and export files.
import { parseCsv, toCsv } from './csv';
import type { ImportReport } from '../transport/types';
import { localDateKey } from './dates';

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
  /** CSV only: the header row's column names as written (see CsvParseResult.headers). */
  columns?: string[];
}

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
  const bad = out.records.findIndex((r) => !r || typeof r !== 'object' || Array.isArray(r));
  if (bad >= 0) return { records: [], errors: [...out.errors, `Row ${bad + 1} is not an object.`] };
  if (out.records.length > MAX_IMPORT_RECORDS) {
    return { records: [], errors: [...out.errors, `Too many records: ${out.records.length} (max ${MAX_IMPORT_RECORDS}).`] };
  }
  return out;
}

export function exportFileName(category: string, ext: 'json' | 'csv', now: Date): string {
  return `relay-${category}-${localDateKey(now)}.${ext}`;
}

export function exportText(records: readonly Record<string, unknown>[], ext: 'json' | 'csv'): string {
  return ext === 'json' ? JSON.stringify(records, null, 2) : toCsv(records);
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
