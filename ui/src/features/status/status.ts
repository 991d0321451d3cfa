// Status tab logic (pure, no React, no clock of its own): the 14 display rows over the server's
// 17 providers (the four `mist_*` regions make one Juniper Mist row with a region filter), the
// worst-of roll-up (outage > unknown > degraded > operational; missing or never-checked data is
// Unknown, never an alert and never a false all-clear), the posture cards, the impacted-first
// card order, the incident feed sections, the toast text and its ~2 s batching of
// `cloud_status_notices` creates, the "ago" wording, and which URLs may become links (https
// only). Defensive about the payload: anything malformed is dropped or read as Unknown.
import type { ProviderState, ProviderStatus, ServiceStatus, StatusItem, StatusSeverity } from '../../transport/types';

/** One record per provider (server-owned); any realtime event means "re-fetch the snapshot". */
export const CLOUD_STATUS = 'cloud_status';
/** One record per toasted incident episode; a `create` is a toast the server decided. */
export const CLOUD_STATUS_NOTICES = 'cloud_status_notices';

/** Realtime bursts (17 providers per poll) collapse into one re-fetch. */
export const REFETCH_DEBOUNCE_MS = 250;
/** Notices arriving within this window become one toast ("(+N more)"). */
export const TOAST_BATCH_MS = 2_000;
/** App-level safety poll, in case a realtime event was missed. */
export const STATUS_POLL_MS = 60_000;
/** While the server says a poll is running, look again this soon. */
export const REFRESHING_RECHECK_MS = 3_000;
/** The manual refresh spinner is held at least this long. */
export const MIN_SPIN_MS = 500;
/** When a 429 gives no Retry-After, the server's manual-refresh spacing. */
export const DEFAULT_RETRY_SECS = 30;
/** Longest title shown in a toast (characters). */
export const TOAST_TITLE_MAX = 160;

/** The server's provider ids, in canonical order. */
export const PROVIDER_IDS = [
  'aws', 'azure', 'm365', 'jira', 'github', 'cloudflare', 'google', 'anthropic', 'openai', 'salesforce',
  'mist_global', 'mist_emea', 'mist_apac', 'mist_federal', 'dynatrace', 'proofpoint', 'crowdstrike',
] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export type MistRegion = 'all' | 'global' | 'emea' | 'apac' | 'federal';
export const MIST_REGIONS: readonly { id: Exclude<MistRegion, 'all'>; provider: ProviderId; label: string }[] = [
  { id: 'global', provider: 'mist_global', label: 'Global' },
  { id: 'emea', provider: 'mist_emea', label: 'EMEA' },
  { id: 'apac', provider: 'mist_apac', label: 'APAC' },
  { id: 'federal', provider: 'mist_federal', label: 'Federal' },
];
export const MIST_FILTERS: readonly { id: MistRegion; label: string }[] = [{ id: 'all', label: 'All' }, ...MIST_REGIONS];

export interface RowDef {
  id: string;
  label: string;
  short: string;
  /** Fallback status page when the server sent nothing for this row. */
  statusPage: string;
  providers: readonly ProviderId[];
}

/** The 14 display rows, in canonical order (labels as the server's catalogue names them). */
export const ROWS: readonly RowDef[] = [
  { id: 'aws', label: 'AWS', short: 'AWS', statusPage: 'https://health.aws.amazon.com/health/status', providers: ['aws'] },
  { id: 'azure', label: 'Azure', short: 'Azure', statusPage: 'https://azure.status.microsoft/en-us/status', providers: ['azure'] },
  { id: 'm365', label: 'Microsoft 365', short: 'M365', statusPage: 'https://status.cloud.microsoft/', providers: ['m365'] },
  { id: 'jira', label: 'Jira', short: 'Jira', statusPage: 'https://jira-software.status.atlassian.com/', providers: ['jira'] },
  { id: 'github', label: 'GitHub', short: 'GitHub', statusPage: 'https://www.githubstatus.com/', providers: ['github'] },
  { id: 'cloudflare', label: 'Cloudflare', short: 'Cloudflare', statusPage: 'https://www.cloudflarestatus.com/', providers: ['cloudflare'] },
  { id: 'google', label: 'Google Cloud', short: 'Google', statusPage: 'https://status.cloud.google.com/', providers: ['google'] },
  { id: 'anthropic', label: 'Claude', short: 'Claude', statusPage: 'https://status.claude.com/', providers: ['anthropic'] },
  { id: 'openai', label: 'ChatGPT', short: 'ChatGPT', statusPage: 'https://status.openai.com/', providers: ['openai'] },
  { id: 'salesforce', label: 'Salesforce', short: 'SFDC', statusPage: 'https://status.salesforce.com/', providers: ['salesforce'] },
  { id: 'mist', label: 'Juniper Mist', short: 'Mist', statusPage: 'https://status.mist.com/', providers: ['mist_global', 'mist_emea', 'mist_apac', 'mist_federal'] },
  { id: 'dynatrace', label: 'Dynatrace', short: 'Dynatrace', statusPage: 'https://dynatrace.status.io/', providers: ['dynatrace'] },
  { id: 'proofpoint', label: 'Proofpoint', short: 'Proofpoint', statusPage: 'https://proofpoint.my.site.com/community/s/proofpoint-current-incidents', providers: ['proofpoint'] },
  { id: 'crowdstrike', label: 'CrowdStrike', short: 'CrowdStrike', statusPage: 'https://statusgator.com/services/crowdstrike', providers: ['crowdstrike'] },
];
export const MIST_ROW = 'mist';
export const ROW_COUNT = ROWS.length;

/** The display row a provider id belongs to (the Mist regions → 'mist'), or null. */
export function rowOf(provider: string): RowDef | null {
  return ROWS.find((r) => (r.providers as readonly string[]).includes(provider)) ?? null;
}

// ---------------------------------------------------------------- payload

const STATES: readonly ProviderState[] = ['operational', 'degraded', 'unknown', 'outage'];
const SEVERITIES: readonly StatusSeverity[] = ['info', 'warning', 'error', 'resolved'];
const RANK: Record<ProviderState, number> = { operational: 0, degraded: 1, unknown: 2, outage: 3 };

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strOrNull = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function normalizeItem(raw: unknown, provider: string): StatusItem | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  const severity = SEVERITIES.find((s) => s === r.severity);
  const id = str(r.id);
  if (!severity || !id) return null;
  const scopes = Array.isArray(r.affectedScopes) ? r.affectedScopes.filter((s): s is string => typeof s === 'string' && s !== '') : [];
  return {
    id,
    provider,
    title: str(r.title) || '(untitled)',
    description: str(r.description),
    pubDate: typeof r.pubDate === 'number' && Number.isFinite(r.pubDate) ? r.pubDate : null,
    link: str(r.link),
    severity,
    ...(scopes.length ? { affectedScopes: scopes } : {}),
  };
}

function normalizeProvider(raw: unknown): ProviderStatus | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  const id = str(r.id);
  if (!(PROVIDER_IDS as readonly string[]).includes(id)) return null;
  const state = STATES.find((s) => s === r.state) ?? 'unknown';
  const items = Array.isArray(r.items) ? r.items.map((i) => normalizeItem(i, id)).filter((i): i is StatusItem => i !== null) : [];
  return {
    id,
    label: str(r.label) || id,
    short: str(r.short) || str(r.label) || id,
    statusPage: str(r.statusPage),
    xUrl: strOrNull(r.xUrl),
    downdetectorUrl: strOrNull(r.downdetectorUrl),
    state,
    items,
    error: strOrNull(r.error),
    checkedAt: strOrNull(r.checkedAt),
    lastSuccessAt: strOrNull(r.lastSuccessAt),
  };
}

/** The snapshot with malformed providers/items dropped and unknown states read as 'unknown'. */
export function normalizeStatus(raw: unknown): ServiceStatus {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const providers = Array.isArray(r.providers)
    ? r.providers.map(normalizeProvider).filter((p): p is ProviderStatus => p !== null)
    : [];
  return { providers, lastUpdated: strOrNull(r.lastUpdated), nextPollAt: strOrNull(r.nextPollAt), refreshing: r.refreshing === true };
}

// ---------------------------------------------------------------- roll-up

export function worstOf(states: Iterable<ProviderState>): ProviderState {
  let w: ProviderState = 'operational';
  for (const s of states) if (RANK[s] > RANK[w]) w = s;
  return w;
}

export function itemState(severity: StatusSeverity): ProviderState {
  return severity === 'error' ? 'outage' : severity === 'warning' ? 'degraded' : 'operational';
}

export const isActive = (i: StatusItem) => i.severity === 'error' || i.severity === 'warning';

/** Never polled: no check time, no success, no items (the server may say "Not checked yet"). */
export function neverChecked(p: ProviderStatus): boolean {
  return !p.checkedAt && !p.lastSuccessAt && p.items.length === 0;
}

/**
 * One provider's state: worst of the server's state, its items, a failed feed (unknown) and
 * "never checked" (unknown). A provider absent from the payload is unknown.
 */
export function providerState(p: ProviderStatus | undefined): ProviderState {
  if (!p) return 'unknown';
  const states: ProviderState[] = [p.state, ...p.items.map((i) => itemState(i.severity))];
  if (p.error || neverChecked(p)) states.push('unknown');
  return worstOf(states);
}

export type RowSummary = 'issues' | 'feed-unavailable' | 'unknown' | 'awaiting' | 'normal';

export interface FeedEntry {
  /** `<row>:<item id>`: unique across the feed. */
  key: string;
  rowId: string;
  rowShort: string;
  item: StatusItem;
}

export interface StatusRow {
  def: RowDef;
  state: ProviderState;
  /** Items of the selected members, de-duplicated by id (Mist: region names added as scopes). */
  items: StatusItem[];
  outages: number;
  degraded: number;
  active: number;
  impacted: boolean;
  /** "Last check failed: …" text (with the region for Mist), or null. */
  lastError: string | null;
  summary: RowSummary;
  /** https-only links; null when absent or not https. */
  statusPage: string | null;
  xUrl: string | null;
  downdetectorUrl: string | null;
}

/** Only an https URL without credentials becomes a link; returns it normalized, else null. */
export function httpsUrl(raw: string | null | undefined): string | null {
  if (!raw) return null;
  try {
    const u = new URL(raw);
    if (u.protocol !== 'https:' || u.username || u.password) return null;
    return u.href;
  } catch {
    return null;
  }
}

function regionLabel(provider: string): string | null {
  return MIST_REGIONS.find((r) => r.provider === provider)?.label ?? null;
}

/** The members a row shows: every member, or (Mist) only the selected region. */
export function rowMembers(def: RowDef, region: MistRegion): readonly ProviderId[] {
  if (def.id !== MIST_ROW || region === 'all') return def.providers;
  return MIST_REGIONS.filter((r) => r.id === region).map((r) => r.provider);
}

export function buildRow(def: RowDef, byId: ReadonlyMap<string, ProviderStatus>, region: MistRegion = 'all'): StatusRow {
  const ids = rowMembers(def, region);
  const members = ids.map((id) => byId.get(id));
  const present = members.filter((p): p is ProviderStatus => p !== undefined);
  const mist = def.id === MIST_ROW;

  const merged = new Map<string, StatusItem>();
  for (const p of present) {
    for (const item of p.items) {
      const region = mist ? regionLabel(p.id) : null;
      const prev = merged.get(item.id);
      const scopes = new Set([...(prev?.affectedScopes ?? []), ...(item.affectedScopes ?? []), ...(region ? [region] : [])]);
      const base = prev && (prev.pubDate ?? -Infinity) >= (item.pubDate ?? -Infinity) ? prev : item;
      merged.set(item.id, { ...base, ...(scopes.size ? { affectedScopes: [...scopes] } : {}) });
    }
  }
  const items = sortNewest([...merged.values()]);
  const outages = items.filter((i) => i.severity === 'error').length;
  const degraded = items.filter((i) => i.severity === 'warning').length;
  const active = outages + degraded;
  const state = worstOf(members.map(providerState));

  // A provider the server has not polled yet (it says "Not checked yet") has no failed check.
  const failures = present.filter((p) => p.error && !neverChecked(p));
  const failed = failures[0];
  // Mist: name the regions that failed with that message, unless every region shown did.
  const sameFailure = failures.filter((p) => p.error === failed?.error);
  const regions = mist && sameFailure.length < present.length ? sameFailure.map((p) => regionLabel(p.id)).filter(Boolean).join(', ') : '';
  const lastError = failed ? `${regions ? `${regions}: ` : ''}${failed.error}` : null;
  const missing = present.length === 0;
  const allNeverChecked = present.every(neverChecked);
  const summary: RowSummary =
    active > 0
      ? 'issues'
      : failed && items.length === 0
        ? 'feed-unavailable'
        : failed
          ? 'unknown'
          : missing || allNeverChecked || state === 'unknown'
            ? 'awaiting'
            : 'normal';

  const first = present[0];
  return {
    def,
    state,
    items,
    outages,
    degraded,
    active,
    impacted: active > 0 || state === 'outage' || state === 'degraded',
    lastError,
    summary,
    statusPage: httpsUrl(first?.statusPage) ?? httpsUrl(def.statusPage),
    xUrl: httpsUrl(first?.xUrl),
    downdetectorUrl: httpsUrl(first?.downdetectorUrl),
  };
}

/** All 14 rows in canonical order (absent providers read as Unknown). */
export function buildRows(status: ServiceStatus | null, region: MistRegion = 'all'): StatusRow[] {
  const byId = new Map((status?.providers ?? []).map((p) => [p.id, p]));
  return ROWS.map((def) => buildRow(def, byId, region));
}

/** Impacted first, then more outages, then more degradations, then canonical order. */
export function sortRows(rows: readonly StatusRow[]): StatusRow[] {
  const index = (r: StatusRow) => ROWS.findIndex((d) => d.id === r.def.id);
  return [...rows].sort(
    (a, b) => Number(b.impacted) - Number(a.impacted) || b.outages - a.outages || b.degraded - a.degraded || index(a) - index(b),
  );
}

export function summaryText(row: StatusRow): string {
  switch (row.summary) {
    case 'issues':
      return `${row.active} active ${row.active === 1 ? 'issue' : 'issues'}`;
    case 'feed-unavailable':
      return 'Feed unavailable';
    case 'unknown':
      return 'Status unknown';
    case 'awaiting':
      return 'No data yet';
    case 'normal':
      return 'All services normal';
  }
}

export const STATE_LABELS: Record<ProviderState, string> = {
  operational: 'Operational',
  degraded: 'Degraded',
  unknown: 'Unknown',
  outage: 'Outage',
};

// ---------------------------------------------------------------- posture

export interface Posture {
  activeIssues: number;
  /** Up to three impacted rows' short names, most impacted first. */
  topImpacted: string[];
  impacted: number;
  total: number;
  worst: ProviderState;
  /** "Outage" / "Unknown" / "Degraded" / "Normal". */
  worstLabel: string;
  /** Rows whose feed failed or has no data (said beside a worst that hides them). */
  unknownRows: number;
  quiet: number;
}

export function posture(rows: readonly StatusRow[]): Posture {
  const impactedRows = sortRows(rows).filter((r) => r.impacted);
  const worst = worstOf(rows.map((r) => r.state));
  return {
    activeIssues: rows.reduce((n, r) => n + r.active, 0),
    topImpacted: impactedRows.slice(0, 3).map((r) => r.def.short),
    impacted: impactedRows.length,
    total: rows.length,
    worst,
    worstLabel: worst === 'operational' ? 'Normal' : STATE_LABELS[worst],
    unknownRows: rows.filter((r) => r.state === 'unknown').length,
    quiet: rows.filter((r) => r.state === 'operational').length,
  };
}

// ---------------------------------------------------------------- feed

export type SectionId = 'active' | 'recent' | 'resolved';
export const SECTIONS: readonly { id: SectionId; title: string; empty: string }[] = [
  { id: 'active', title: 'Active', empty: 'No active incidents.' },
  { id: 'recent', title: 'Recent', empty: 'No recent notices.' },
  { id: 'resolved', title: 'Resolved', empty: 'Nothing resolved recently.' },
];

/** Newest first; items without a date last; ties by id for a stable order. */
export function compareNewest(a: StatusItem, b: StatusItem): number {
  return (b.pubDate ?? -Infinity) - (a.pubDate ?? -Infinity) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function sortNewest(items: readonly StatusItem[]): StatusItem[] {
  return [...items].sort(compareNewest);
}

export function sectionOf(i: StatusItem): SectionId {
  return isActive(i) ? 'active' : i.severity === 'resolved' ? 'resolved' : 'recent';
}

/** The feed of the given rows in its three sections, each newest first. */
export function feedSections(rows: readonly StatusRow[]): Record<SectionId, FeedEntry[]> {
  const out: Record<SectionId, FeedEntry[]> = { active: [], recent: [], resolved: [] };
  for (const r of rows) {
    for (const item of r.items) out[sectionOf(item)].push({ key: `${r.def.id}:${item.id}`, rowId: r.def.id, rowShort: r.def.short, item });
  }
  for (const list of Object.values(out)) list.sort((a, b) => compareNewest(a.item, b.item) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return out;
}

// ---------------------------------------------------------------- time

/** "just now", "42 s ago", "5 min ago", "3 h ago", "2 d ago" (a future time reads "just now"). */
export function formatAgo(thenMs: number, nowMs: number): string {
  const s = Math.floor((nowMs - thenMs) / 1000);
  if (s < 10) return 'just now';
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h ago`;
  return `${Math.floor(h / 24)} d ago`;
}

/** Epoch ms of a Relay timestamp ("2026-12-03 18:00:00.000Z") or ISO string; null if absent/bad. */
export function parseStamp(s: string | null | undefined): number | null {
  if (!s) return null;
  const t = Date.parse(s.includes('T') ? s : s.replace(' ', 'T'));
  return Number.isNaN(t) ? null : t;
}

export function updatedText(lastUpdated: string | null | undefined, nowMs: number): string {
  const t = parseStamp(lastUpdated);
  return t === null ? 'Not updated yet' : `Updated ${formatAgo(t, nowMs)}`;
}

export function refreshLimitedText(retryAfterSeconds: number | undefined): string {
  const n = retryAfterSeconds !== undefined && retryAfterSeconds > 0 ? Math.ceil(retryAfterSeconds) : DEFAULT_RETRY_SECS;
  return `Refreshed recently — try again in ${n} s`;
}

// ---------------------------------------------------------------- toasts

/** A `cloud_status_notices` record: a toast the server decided. */
export interface StatusNotice {
  provider: string;
  itemId: string;
  severity: 'error' | 'warning';
  title: string;
  episode: string;
}

/** The notice in a realtime record, or null when it is not a well-formed toast. */
export function parseNotice(record: unknown): StatusNotice | null {
  if (!record || typeof record !== 'object') return null;
  const r = record as Record<string, unknown>;
  if (r.severity !== 'error' && r.severity !== 'warning') return null;
  const provider = str(r.provider);
  const title = str(r.title).trim();
  if (!provider || !title) return null;
  return { provider, itemId: str(r.itemId), severity: r.severity, title, episode: str(r.episode) || `${provider}:${str(r.itemId)}` };
}

function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** `<Short> Outage: <title>` or `<Short> Degraded: <title>`. */
export function noticeText(n: StatusNotice): string {
  const short = rowOf(n.provider)?.short ?? n.provider;
  return `${short} ${n.severity === 'error' ? 'Outage' : 'Degraded'}: ${clip(n.title, TOAST_TITLE_MAX)}`;
}

/** One toast for a batch: the first outage (else the first notice) and "(+N more)". */
export function batchToast(batch: readonly StatusNotice[]): { kind: 'error' | 'warning'; message: string } | null {
  if (batch.length === 0) return null;
  const head = batch.find((n) => n.severity === 'error') ?? batch[0];
  const more = batch.length - 1;
  return { kind: head.severity, message: `${noticeText(head)}${more > 0 ? ` (+${more} more)` : ''}` };
}

type Timer = ReturnType<typeof setTimeout>;

/**
 * Collects notices from realtime `create` events only (never update/delete/reload, never a
 * snapshot on load or reconnect) for TOAST_BATCH_MS from the first one, then emits one toast.
 * An episode toasts at most once per session. Timers are injected (tests).
 */
export class NoticeBatcher {
  private pending: StatusNotice[] = [];
  private timer: Timer | null = null;
  private readonly seen = new Set<string>();

  constructor(
    private readonly emit: (toast: { kind: 'error' | 'warning'; message: string }) => void,
    private readonly windowMs = TOAST_BATCH_MS,
    private readonly schedule: (fn: () => void, ms: number) => Timer = (fn, ms) => setTimeout(fn, ms),
    private readonly cancel: (t: Timer) => void = (t) => clearTimeout(t),
  ) {}

  /** Feeds one realtime event; returns whether it was queued for a toast. */
  offer(action: string, record: unknown): boolean {
    if (action !== 'create') return false;
    const n = parseNotice(record);
    if (!n || this.seen.has(n.episode)) return false;
    this.seen.add(n.episode);
    this.pending.push(n);
    this.timer ??= this.schedule(() => this.flush(), this.windowMs);
    return true;
  }

  flush(): void {
    if (this.timer !== null) this.cancel(this.timer);
    this.timer = null;
    const toast = batchToast(this.pending);
    this.pending = [];
    if (toast) this.emit(toast);
  }

  /** Drops anything pending (sign-out, unmount). */
  dispose(): void {
    if (this.timer !== null) this.cancel(this.timer);
    this.timer = null;
    this.pending = [];
  }
}
