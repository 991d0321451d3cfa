// Dynatrace dashboards: a per-device list of links (never in PocketBase), kept in localStorage
// under `relay:dynatrace-dashboards` as `{schemaVersion: 1, dashboards: [{id, name, url}]}`.
// Everything here is pure except load/save/subscribe, which take the storage and event target
// they use. Validation (relay-features §9): the URL must parse, be https, carry no user name,
// password or explicit port, and name `dynatrace.com` or a host under it (label-boundary safe:
// never `evildynatrace.com` or `dynatrace.com.evil.net`); the name is trimmed, empty becomes
// "Dynatrace Dashboard", at most 100 characters; at most 50 dashboards. A stored record that
// fails validation is dropped on load (silently: no console output), a bad envelope reads as [].
import { uuidV4 } from '../../lib/ids';

export const DASHBOARDS_KEY = 'relay:dynatrace-dashboards';
export const SCHEMA_VERSION = 1;
export const MAX_DASHBOARDS = 50;
export const MAX_NAME_LENGTH = 100;
export const MAX_URL_LENGTH = 2048;
export const DEFAULT_NAME = 'Dynatrace Dashboard';
const DYNATRACE_DOMAIN = 'dynatrace.com';

export interface DynatraceDashboard {
  /** `dt_<uuid>` */
  id: string;
  name: string;
  /** A validated, normalized https URL under dynatrace.com. */
  url: string;
}

/** What the add/edit form submits (raw text). */
export interface DashboardInput {
  name: string;
  url: string;
}

export type DashboardErrorCode =
  | 'invalid-url'
  | 'not-https'
  | 'not-dynatrace'
  | 'credentials'
  | 'port'
  | 'url-too-long'
  | 'name-too-long'
  | 'too-many'
  | 'not-found';

export interface DashboardError {
  code: DashboardErrorCode;
  /** The form field the message belongs beside, or null for the list as a whole. */
  field: 'name' | 'url' | null;
  message: string;
}

export const MESSAGES: Record<DashboardErrorCode, string> = {
  'invalid-url': 'Enter a valid URL.',
  'not-https': 'The Dynatrace URL must use HTTPS.',
  'not-dynatrace': 'Enter a Dynatrace URL under dynatrace.com.',
  credentials: 'The Dynatrace URL must not contain a user name or password.',
  port: 'The Dynatrace URL must not name a port.',
  'url-too-long': `The URL can be at most ${MAX_URL_LENGTH} characters.`,
  'name-too-long': `The name can be at most ${MAX_NAME_LENGTH} characters.`,
  'too-many': `At most ${MAX_DASHBOARDS} dashboards can be saved.`,
  'not-found': 'That dashboard is no longer in the list.',
};

const FIELDS: Record<DashboardErrorCode, DashboardError['field']> = {
  'invalid-url': 'url',
  'not-https': 'url',
  'not-dynatrace': 'url',
  credentials: 'url',
  port: 'url',
  'url-too-long': 'url',
  'name-too-long': 'name',
  'too-many': null,
  'not-found': null,
};

export function dashboardError(code: DashboardErrorCode): DashboardError {
  return { code, field: FIELDS[code], message: MESSAGES[code] };
}

export type Checked<T> = { ok: true; value: T } | { ok: false; error: DashboardError };

const fail = <T>(code: DashboardErrorCode): Checked<T> => ({ ok: false, error: dashboardError(code) });

/** True for `dynatrace.com` and any host under it (`*.dynatrace.com`), comparing whole labels. */
export function isDynatraceHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === DYNATRACE_DOMAIN) return true;
  if (!host.endsWith(`.${DYNATRACE_DOMAIN}`)) return false;
  const sub = host.slice(0, -(DYNATRACE_DOMAIN.length + 1));
  return sub.split('.').every((label) => /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/.test(label) || /^xn--[a-z0-9-]+$/.test(label));
}

/** The URL, normalized (`URL.href`), when it may be saved; otherwise the first rule it breaks. */
export function checkUrl(raw: unknown): Checked<string> {
  if (typeof raw !== 'string') return fail('invalid-url');
  const text = raw.trim();
  if (text === '') return fail('invalid-url');
  if (text.length > MAX_URL_LENGTH) return fail('url-too-long');
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return fail('invalid-url');
  }
  if (u.protocol !== 'https:') return fail('not-https');
  if (u.username !== '' || u.password !== '') return fail('credentials');
  if (u.port !== '') return fail('port'); // URL drops the default (443) itself
  if (!isDynatraceHost(u.hostname)) return fail('not-dynatrace');
  if (u.href.length > MAX_URL_LENGTH) return fail('url-too-long');
  return { ok: true, value: u.href };
}

/** The name to save: trimmed, "Dynatrace Dashboard" when empty, at most 100 characters. */
export function checkName(raw: unknown): Checked<string> {
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (name === '') return { ok: true, value: DEFAULT_NAME };
  if ([...name].length > MAX_NAME_LENGTH) return fail('name-too-long');
  return { ok: true, value: name };
}

/** Every error in the input, at most one per field (the form shows each beside its field). */
export function validateInput(input: DashboardInput): { name: string; url: string } | { errors: DashboardError[] } {
  const name = checkName(input.name);
  const url = checkUrl(input.url);
  const errors = [name, url].flatMap((c) => (c.ok ? [] : [c.error]));
  if (errors.length > 0 || !name.ok || !url.ok) return { errors };
  return { name: name.value, url: url.value };
}

const ID_RE = /^dt_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isDashboardId(id: unknown): id is string {
  return typeof id === 'string' && ID_RE.test(id);
}

/** `dt_<uuid>` (lib/ids: getRandomValues, so a plain-http Relay Web page can add dashboards). */
export function newDashboardId(uuid: () => string = uuidV4): string {
  return `dt_${uuid().toLowerCase()}`;
}

/** A change to the list: the new list and the dashboard added or updated, or the error. */
export type ListResult =
  | { ok: true; dashboards: DynatraceDashboard[]; dashboard: DynatraceDashboard }
  | { ok: false; errors: DashboardError[] };

export function addDashboard(
  list: readonly DynatraceDashboard[],
  input: DashboardInput,
  newId: () => string = newDashboardId,
): ListResult {
  if (list.length >= MAX_DASHBOARDS) return { ok: false, errors: [dashboardError('too-many')] };
  const v = validateInput(input);
  if ('errors' in v) return { ok: false, errors: v.errors };
  const dashboard = { id: newId(), name: v.name, url: v.url };
  return { ok: true, dashboards: [...list, dashboard], dashboard };
}

export function updateDashboard(list: readonly DynatraceDashboard[], id: string, input: DashboardInput): ListResult {
  const at = list.findIndex((d) => d.id === id);
  if (at < 0) return { ok: false, errors: [dashboardError('not-found')] };
  const v = validateInput(input);
  if ('errors' in v) return { ok: false, errors: v.errors };
  const dashboard = { id, name: v.name, url: v.url };
  return { ok: true, dashboards: list.map((d, i) => (i === at ? dashboard : d)), dashboard };
}

export function removeDashboard(
  list: readonly DynatraceDashboard[],
  id: string,
): { ok: true; dashboards: DynatraceDashboard[] } | { ok: false; errors: DashboardError[] } {
  if (!list.some((d) => d.id === id)) return { ok: false, errors: [dashboardError('not-found')] };
  return { ok: true, dashboards: list.filter((d) => d.id !== id) };
}

/** One stored record as a dashboard, or null when any part of it is invalid. */
export function parseRecord(raw: unknown): DynatraceDashboard | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const r = raw as Record<string, unknown>;
  if (!isDashboardId(r.id) || typeof r.name !== 'string' || typeof r.url !== 'string') return null;
  const name = checkName(r.name);
  const url = checkUrl(r.url);
  if (!name.ok || !url.ok) return null;
  return { id: r.id, name: name.value, url: url.value };
}

/** The stored text as a list: [] for a bad envelope; invalid and duplicate-id records dropped; at most 50. */
export function parseEnvelope(text: string | null): DynatraceDashboard[] {
  if (text === null) return [];
  let env: unknown;
  try {
    env = JSON.parse(text);
  } catch {
    return [];
  }
  if (!env || typeof env !== 'object' || Array.isArray(env)) return [];
  const { schemaVersion, dashboards } = env as { schemaVersion?: unknown; dashboards?: unknown };
  if (schemaVersion !== SCHEMA_VERSION || !Array.isArray(dashboards)) return [];
  const seen = new Set<string>();
  const out: DynatraceDashboard[] = [];
  for (const raw of dashboards) {
    const d = parseRecord(raw);
    if (!d || seen.has(d.id)) continue;
    seen.add(d.id);
    out.push(d);
    if (out.length === MAX_DASHBOARDS) break;
  }
  return out;
}

export function serializeEnvelope(list: readonly DynatraceDashboard[]): string {
  return JSON.stringify({
    schemaVersion: SCHEMA_VERSION,
    dashboards: list.map(({ id, name, url }) => ({ id, name, url })),
  });
}

type KeyStorage = Pick<Storage, 'getItem' | 'setItem'>;

function defaultStorage(): KeyStorage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // access throws when storage is disabled
  }
}

/** This device's dashboards ([] when storage is unavailable or holds nothing usable). */
export function loadDashboards(storage: KeyStorage | null = defaultStorage()): DynatraceDashboard[] {
  try {
    return parseEnvelope(storage?.getItem(DASHBOARDS_KEY) ?? null);
  } catch {
    return [];
  }
}

const listeners = new Set<() => void>();

/**
 * Saves the list and tells this window's subscribers. Returns false when the storage refused
 * (disabled or full); nothing is announced then.
 */
export function saveDashboards(list: readonly DynatraceDashboard[], storage: KeyStorage | null = defaultStorage()): boolean {
  if (!storage) return false;
  try {
    storage.setItem(DASHBOARDS_KEY, serializeEnvelope(list));
  } catch {
    return false;
  }
  for (const l of [...listeners]) l();
  return true;
}

/**
 * Calls `cb` after every save in this window and on a `storage` event for the key (another
 * window or tab of this origin saved). Returns the unsubscribe function.
 */
export function subscribeDashboards(
  cb: () => void,
  events: Pick<Window, 'addEventListener' | 'removeEventListener'> | null = typeof window === 'undefined' ? null : window,
): () => void {
  const onStorage = (e: Event) => {
    const key = (e as StorageEvent).key;
    if (key === DASHBOARDS_KEY || key === null) cb();
  };
  listeners.add(cb);
  events?.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(cb);
    events?.removeEventListener('storage', onStorage);
  };
}
