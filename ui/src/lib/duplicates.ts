// Duplicate detection for records whose natural key is not unique in the database: contact
// email and server name. Relay accepts duplicates (the legacy data has them), so the UI warns
// on create/edit and counts them in the import preview instead of refusing. Pure functions.

export type DupKind = 'contacts' | 'servers';

/** The field that names a record to an operator (and that owner lookups and imports use). */
export const DUP_FIELD: Record<DupKind, 'email' | 'name'> = { contacts: 'email', servers: 'name' };

/** Comparable form of a key: trimmed and lowercased; empty means "no key". */
export function dupKey(v: unknown): string {
  return typeof v === 'string' ? v.trim().toLowerCase() : '';
}

interface Keyed {
  id: string;
  name?: string;
  email?: string;
}

/** The existing records (other than `exceptId`) that share `value`'s key. */
export function findDuplicates<T extends Keyed>(kind: DupKind, list: readonly T[], value: string, exceptId?: string): T[] {
  const k = dupKey(value);
  if (!k) return [];
  const field = DUP_FIELD[kind];
  return list.filter((r) => r.id !== exceptId && dupKey(r[field]) === k);
}

/** The warning shown under the form, naming the record that already has the key. */
export function duplicateWarning<T extends Keyed>(kind: DupKind, list: readonly T[], value: string, exceptId?: string): string | null {
  const hits = findDuplicates(kind, list, value, exceptId);
  if (hits.length === 0) return null;
  const first = hits[0];
  const more = hits.length > 1 ? ` and ${hits.length - 1} more` : '';
  return kind === 'contacts'
    ? `${first.name || 'Another contact'} <${first.email}>${more} already uses this email. Saving keeps both records.`
    : `A server named “${first.name}”${more} already exists. Saving keeps both records.`;
}

export interface ImportDuplicates {
  /** Rows whose key repeats an earlier row of the same file. */
  inFile: number;
  /** Rows whose key is already held by two or more existing records (the update target is ambiguous). */
  ambiguous: number;
  /** Up to five of the duplicated keys, for the warning text. */
  keys: string[];
}

/** Counts the duplicate keys an import would bring in (contacts by email, servers by name). */
export function importDuplicates(kind: DupKind, rows: readonly Record<string, unknown>[], existing: readonly Keyed[]): ImportDuplicates {
  const field = DUP_FIELD[kind];
  const held = new Map<string, number>();
  for (const r of existing) {
    const k = dupKey(r[field]);
    if (k) held.set(k, (held.get(k) ?? 0) + 1);
  }
  const seen = new Set<string>();
  const keys = new Set<string>();
  let inFile = 0;
  let ambiguous = 0;
  for (const r of rows) {
    const k = dupKey(r[field]);
    if (!k) continue;
    if (seen.has(k)) {
      inFile++;
      keys.add(k);
    } else if ((held.get(k) ?? 0) > 1) {
      ambiguous++;
      keys.add(k);
    }
    seen.add(k);
  }
  return { inFile, ambiguous, keys: [...keys].slice(0, 5) };
}
