// Data Manager import: matches a file's columns to the collection's fields before any row is
// sent. A header matches a field ignoring case, spaces, "-", "_" and "." ("Business Area" is
// businessArea), or through the aliases a CMDB or directory export uses ("Server Name" → name,
// "E-mail Address" → email). Metadata columns of a Relay export (id, created, …) pass as the
// server strips them. Columns that match nothing are reported once, by name, with the expected
// columns — never sent, so the server's per-cell "unknown field" errors are never shown.
import { COLLECTION_FIELDS } from './collectionFields';

/** Keys the server strips from imported rows (domain/src/import.rs STRIPPED_KEYS). */
const IMPORT_METADATA = ['id', 'created', 'updated', 'createdAt', 'updatedAt', 'collectionId', 'collectionName', 'expand', 'revision'];

/** Per collection, header aliases (written as an operator would; compared normalized) → field. */
export const HEADER_ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  contacts: {
    'Full Name': 'name', 'Display Name': 'name', 'Contact Name': 'name',
    'Email Address': 'email', 'E-mail Address': 'email', Mail: 'email',
    'Phone Number': 'phone', Telephone: 'phone', 'Telephone Number': 'phone', Mobile: 'phone',
    'Job Title': 'title', Position: 'title',
  },
  servers: {
    'Server Name': 'name', Server: 'name', Hostname: 'name', 'Host Name': 'name',
    'OS Type': 'os', 'Operating System': 'os',
    'IT Contact': 'contact', 'Technical Contact': 'contact',
    'LOB Owner': 'owner', 'Business Owner': 'owner',
    'Line of Business': 'lob',
    Comments: 'comment', Notes: 'comment',
  },
  oncall: { 'Team Name': 'team' },
  bridge_groups: { 'Group Name': 'name' },
};

/** A header's comparable form: lowercase, without spaces, "-", "_" or ".". */
export function normalizeHeader(header: string): string {
  return header.toLowerCase().replace(/[\s\-_.]+/g, '');
}

export interface ColumnRename {
  from: string;
  to: string;
}

export interface ImportColumns {
  /** The rows with matched columns renamed to their fields (unchanged when some are unknown). */
  records: Record<string, unknown>[];
  /** Columns written differently from their field, in file order. */
  renamed: ColumnRename[];
  /** Columns matching no field (or a field an earlier column already took), in file order. */
  unknown: string[];
  /** The collection's fields in declared order. */
  expected: readonly string[];
}

/** Matches `columns` (the header, or else every row's keys in first-seen order) to `collection`'s fields. */
export function mapImportColumns(collection: string, records: readonly Record<string, unknown>[], columns?: readonly string[]): ImportColumns {
  const expected = COLLECTION_FIELDS[collection] ?? [];
  const targets = new Map<string, string>();
  for (const f of [...expected, ...IMPORT_METADATA]) targets.set(normalizeHeader(f), f);
  for (const [alias, field] of Object.entries(HEADER_ALIASES[collection] ?? {})) targets.set(normalizeHeader(alias), field);
  const source = columns ? [...columns] : [...new Set(records.flatMap((r) => Object.keys(r)))];
  const taken = new Set<string>();
  const rename = new Map<string, string>();
  const renamed: ColumnRename[] = [];
  const unknown: string[] = [];
  for (const col of source) {
    const field = targets.get(normalizeHeader(col));
    if (!field || taken.has(field)) {
      unknown.push(col);
      continue;
    }
    taken.add(field);
    rename.set(col, field);
    if (col !== field) renamed.push({ from: col, to: field });
  }
  if (unknown.length > 0 || renamed.length === 0) return { records: [...records], renamed, unknown, expected };
  const out = records.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [rename.get(k) ?? k, v])));
  return { records: out, renamed, unknown, expected };
}

/** The one line an import with unknown columns shows. */
export function unknownColumnsMessage(unknown: readonly string[], expected: readonly string[]): string {
  const label = unknown.length === 1 ? 'Unknown column' : 'Unknown columns';
  return `${label}: ${unknown.join(', ')}. Expected: ${expected.join(', ')}.`;
}
