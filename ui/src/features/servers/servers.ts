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

/** Lookup by lowercased email and lowercased name. */
export function contactIndex(contacts: readonly Contact[]): Map<string, Contact> {
  const m = new Map<string, Contact>();
  for (const c of contacts) {
    if (c.name) m.set(c.name.trim().toLowerCase(), c);
    if (c.email) m.set(c.email.trim().toLowerCase(), c);
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
