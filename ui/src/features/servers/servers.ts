// Server records and their owner/contact resolution against the people directory.
import type { BaseRecord } from '../../transport/types';
import type { Contact } from '../people/contacts';

export interface Server extends BaseRecord {
  name: string;
  businessArea?: string;
  lob?: string;
  comment?: string;
  owner?: string;
  contact?: string;
  os?: string;
}

/** `-` and `0` count as empty. */
export function isBlankRef(v: string | undefined): boolean {
  const t = (v ?? '').trim();
  return t === '' || t === '-' || t === '0';
}

export function resolvePerson(v: string | undefined, byKey: Map<string, Contact>): Contact | null {
  if (isBlankRef(v)) return null;
  return byKey.get(v!.trim().toLowerCase()) ?? null;
}

/**
 * Lookup by lowercased email, then lowercased name. Emails and names are not unique: an email
 * match always wins over a name match, and among records sharing a key the earliest-created one
 * wins (the same record legacy notes resolve to), so resolution never flips with list order.
 */
export function contactIndex(contacts: readonly Contact[]): Map<string, Contact> {
  const m = new Map<string, Contact>();
  const oldestFirst = [...contacts].sort((a, b) => (a.created ?? '').localeCompare(b.created ?? '') || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const c of oldestFirst) {
    const k = c.email?.trim().toLowerCase();
    if (k && !m.has(k)) m.set(k, c);
  }
  for (const c of oldestFirst) {
    const k = c.name?.trim().toLowerCase();
    if (k && !m.has(k)) m.set(k, c);
  }
  return m;
}

export function osFamily(os: string | undefined): 'linux' | 'windows' | 'other' {
  const o = (os ?? '').toLowerCase();
  if (/windows|win\d|w2k/.test(o)) return 'windows';
  if (/linux|rhel|ubuntu|debian|centos|suse|oracle linux|unix|aix/.test(o)) return 'linux';
  return 'other';
}

export function matchesQuery(fields: (string | undefined)[], q: string): boolean {
  if (!q) return true;
  return fields.some((f) => f && f.toLowerCase().includes(q));
}
