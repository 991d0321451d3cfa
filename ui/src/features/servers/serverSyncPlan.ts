// Servers sync, the preview half (pure): reads a complete Servers export (CSV or JSON here; an
// Excel .xlsx workbook through the `readXlsx` function it is handed, the server's reading of the
// "servers" sheet, then the same checks as a CSV) into rows and plans the sync against the whole
// current Servers list. A row matches a current server by its trimmed, lowercased name (names
// must be unambiguous in the file and in the list); a match keeps its stored name and is updated
// with only the fields whose JSON differs, a new name is added, and every current server the file
// does not name is removed. Columns must be the Servers fields or keys the current records carry;
// record metadata is ignored; a column the file lacks is left as stored. The plan keeps the list
// exactly as read (the apply half checks every batch against it).
import { MAX_IMPORT_RECORDS, isXlsx, parseImport, readImportFile, type ImportFile, type ParsedImport, type XlsxReader } from '../../lib/importExport';

export const SERVER_COLUMNS = ['name', 'businessArea', 'lob', 'comment', 'owner', 'contact', 'os'] as const;
/** Keys the server maintains: ignored in a file, never compared or sent as data. */
export const METADATA_KEYS: ReadonlySet<string> = new Set([
  'id', 'created', 'updated', 'createdAt', 'updatedAt', 'collectionId', 'collectionName', 'expand', 'revision',
]);
export const MAX_SYNC_ROWS = MAX_IMPORT_RECORDS;

export const WRONG_FILE_TYPE = 'Choose a JSON, CSV, or XLSX Servers export.';
export const EMPTY_FILE = 'An empty file cannot replace the Servers list. Include every server you want to keep.';
export const AMBIGUOUS_NAMES = 'Resolve ambiguous names before syncing';

/** A Servers record exactly as the record API returned it. */
export type ServerRecord = Record<string, unknown> & { id: string };

export interface PlannedAdd {
  name: string;
  data: Record<string, string>;
}

export interface PlannedUpdate {
  id: string;
  /** The stored name (a match keeps its casing). */
  name: string;
  /** Only the fields whose JSON differs from the stored record. */
  patch: Record<string, string>;
}

export interface PlannedRemoval {
  id: string;
  name: string;
}

export interface SyncPlan {
  fileName: string;
  added: PlannedAdd[];
  updated: PlannedUpdate[];
  removed: PlannedRemoval[];
  unchanged: number;
  incomingCount: number;
  currentCount: number;
  /** The current list as pretty JSON: the optional "Download current list" before applying. */
  backupJson: string;
  /** The current list exactly as the preview read it. */
  snapshot: ServerRecord[];
  /** The transport's authIdentity() when the preview was made. */
  identity: string | null;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; errors: string[] };

const fail = <T>(...errors: string[]): Outcome<T> => ({ ok: false, errors });

/**
 * Parses the text of a .csv or .json Servers export into rows (objects), or says why not
 * (parseImport refuses more than MAX_SYNC_ROWS rows).
 */
export function parseServersText(kind: 'csv' | 'json', text: string): Outcome<Record<string, unknown>[]> {
  if (text.replace(/^\uFEFF/, '').trim() === '') return fail(EMPTY_FILE);
  return checkParsed(parseImport(`servers.${kind}`, text, 'servers'));
}

/** The checks every parsed Servers file goes through (CSV, JSON or XLSX): no parse errors, no repeated column, a row at least. */
function checkParsed(parsed: ParsedImport): Outcome<Record<string, unknown>[]> {
  if (parsed.errors.length > 0) return fail(...parsed.errors);
  const repeated = [...new Set((parsed.columns ?? []).filter((c, i, all) => all.indexOf(c) !== i))];
  if (repeated.length > 0) return fail(...repeated.map((c) => `The column "${c}" appears more than once.`));
  if (parsed.records.length === 0) return fail(EMPTY_FILE);
  return { ok: true, value: parsed.records };
}

/**
 * Reads a chosen file by its extension: .csv and .json here, .xlsx through `readXlsx` (the
 * server reads the "servers" sheet, or the only one; its refusal's message is the error).
 */
export async function readServersFile<F extends ImportFile>(file: F, readXlsx: XlsxReader<F>): Promise<Outcome<Record<string, unknown>[]>> {
  const lower = file.name.toLowerCase();
  if (isXlsx(lower)) {
    const read = await readImportFile(file, 'servers', readXlsx);
    return read.ok ? checkParsed(read.parsed) : fail(read.error);
  }
  if (lower.endsWith('.csv')) return parseServersText('csv', await file.text());
  if (lower.endsWith('.json')) return parseServersText('json', await file.text());
  return fail(WRONG_FILE_TYPE);
}

/** The match key: trimmed, lowercased name. */
export function nameKey(name: unknown): string {
  return typeof name === 'string' ? name.trim().toLowerCase() : '';
}

function checkCurrent(current: readonly unknown[]): Outcome<ServerRecord[]> {
  if (current.length > MAX_SYNC_ROWS) return fail(`The current Servers list has more than ${MAX_SYNC_ROWS} servers; it cannot be synced from a file.`);
  const bad = current.some((r) => !r || typeof r !== 'object' || typeof (r as { id?: unknown }).id !== 'string' || (r as { id: string }).id === '');
  if (bad) return fail('The current Servers list holds a record without an id. Refresh and preview again.');
  return { ok: true, value: current as ServerRecord[] };
}

/** Keys seen more than once, with how often (blank keys never count: they cannot match). */
function repeats(keys: readonly string[]): Map<string, number> {
  const n = new Map<string, number>();
  for (const k of keys) if (k !== '') n.set(k, (n.get(k) ?? 0) + 1);
  return new Map([...n].filter(([, c]) => c > 1));
}

interface IncomingRow {
  key: string;
  name: string;
  fields: Record<string, string>;
}

/** Validates the rows' columns and values; every problem is reported, each unknown column once. */
function readRows(rows: readonly Record<string, unknown>[], allowed: ReadonlySet<string>): Outcome<IncomingRow[]> {
  const errors: string[] = [];
  const unknown = new Set<string>();
  const out: IncomingRow[] = [];
  rows.forEach((row, i) => {
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(row)) {
      if (METADATA_KEYS.has(k)) continue;
      if (!allowed.has(k)) {
        unknown.add(k);
        continue;
      }
      if (v !== null && typeof v !== 'string') errors.push(`Row ${i + 1}: "${k}" must be text.`);
      else fields[k] = v ?? '';
    }
    const name = (fields.name ?? '').trim();
    if (name === '') errors.push(`Row ${i + 1}: a server name is required.`);
    out.push({ key: name.toLowerCase(), name, fields: { ...fields, name } });
  });
  errors.unshift(...[...unknown].map((k) => `Unrecognized server column "${k}"`));
  return errors.length > 0 ? fail(...errors) : { ok: true, value: out };
}

const json = (v: unknown) => JSON.stringify(v);
const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

/**
 * Plans a complete-file sync of `rows` (from readServersFile) against `current` (the whole
 * Servers collection, as the record API returned it). Refuses ambiguous names.
 */
export function planServersSync(input: {
  fileName: string;
  rows: readonly Record<string, unknown>[];
  current: readonly unknown[];
  identity: string | null;
}): Outcome<SyncPlan> {
  const checked = checkCurrent(input.current);
  if (!checked.ok) return checked;
  const current = checked.value;
  const allowed = new Set<string>(SERVER_COLUMNS);
  for (const r of current) for (const k of Object.keys(r)) if (!METADATA_KEYS.has(k)) allowed.add(k);
  const read = readRows(input.rows, allowed);
  if (!read.ok) return read;
  const incoming = read.value;

  const ambiguous = [
    ...[...repeats(incoming.map((r) => r.key))].map(([k, n]) => `${AMBIGUOUS_NAMES}: "${k}" appears ${n} times in the file.`),
    ...[...repeats(current.map((r) => nameKey(r.name)))].map(([k, n]) => `${AMBIGUOUS_NAMES}: ${n} current servers are named "${k}".`),
  ];
  if (ambiguous.length > 0) return fail(...ambiguous);

  const byKey = new Map(current.map((r) => [nameKey(r.name), r]));
  const added: PlannedAdd[] = [];
  const updated: PlannedUpdate[] = [];
  let unchanged = 0;
  for (const row of incoming) {
    const stored = byKey.get(row.key);
    if (!stored) {
      added.push({ name: row.name, data: row.fields });
      continue;
    }
    const patch: Record<string, string> = {};
    for (const [k, v] of Object.entries(row.fields)) if (k !== 'name' && json(stored[k]) !== json(v)) patch[k] = v;
    if (Object.keys(patch).length > 0) updated.push({ id: stored.id, name: String(stored.name ?? ''), patch });
    else unchanged++;
  }
  const kept = new Set(incoming.map((r) => r.key));
  const removed = current.filter((r) => !kept.has(nameKey(r.name))).map((r) => ({ id: r.id, name: String(r.name ?? '') }));
  return {
    ok: true,
    value: {
      fileName: input.fileName,
      added,
      updated,
      removed: removed.sort(byName),
      unchanged,
      incomingCount: incoming.length,
      currentCount: current.length,
      backupJson: JSON.stringify(current, null, 2),
      snapshot: [...current],
      identity: input.identity,
    },
  };
}
