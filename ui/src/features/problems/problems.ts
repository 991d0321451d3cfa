// Problems tab logic (no React, no transport): the four Dynatrace collection names, defensive
// readers for the server-owned `dynatrace_problems` and `dynatrace_problem_sync` records, the
// list order (open first, newest start first), the Open/Closed/All filter and text search, the
// severity words and tone, durations and ages, and the sync banner in plain words (naming the way
// to configure Dynatrace that exists where this renderer runs: ../settings/serverPlace). It refuses
// to decide anything about writes: the addressed state and notes live in ./problemActions.
import type { BaseRecord } from '../../transport/types';
import { dynatraceScopePath, dynatraceSetupPath, type ServerPlace } from '../settings/serverPlace';
import { formatAgo, parseStamp } from '../status/status';

/** Server-owned problems (read-only for clients). */
export const PROBLEMS = 'dynatrace_problems';
/** Server-owned sync state: one record, key "problems" (read-only for clients). */
export const PROBLEM_SYNC = 'dynatrace_problem_sync';
/** Operators' addressed flag: create and update, never delete; unique problemId. */
export const PROBLEM_STATES = 'dynatrace_problem_states';
/** Operators' notes: append-only (create; update/delete are refused with 403). */
export const PROBLEM_NOTES = 'dynatrace_problem_notes';
export const SYNC_KEY = 'problems';

/** The server's limits on what an operator writes (domain/src/collections.rs). */
export const MAX_NOTE_CHARS = 4000;
export const MAX_AUTHOR_CHARS = 200;

export interface ProblemEntity {
  id: string;
  name: string;
  type: string;
}

export interface DynatraceProblem extends BaseRecord {
  problemId: string;
  displayId: string;
  title: string;
  status: string;
  severity: string;
  impactLevel: string;
  startTime: string;
  endTime: string;
  rootCauseId: string;
  rootCauseName: string;
  /** JSON array of {id, type, name}; may arrive as a JSON string. Read it with `entitiesOf`. */
  affectedEntities: unknown;
  alertingProfiles: unknown;
  emailSubject: string;
  emailSubjectStatus: string;
  environmentUrl: string;
  syncedAt: string;
}

export interface ProblemState extends BaseRecord {
  problemId: string;
  addressed: boolean;
  addressedAt: string;
  addressedBy: string;
}

export interface ProblemNote extends BaseRecord {
  problemId: string;
  note: string;
  author: string;
}

export type SyncStateName = 'disabled' | 'syncing' | 'ok' | 'error';

export interface ProblemSync extends BaseRecord {
  key: string;
  state: string;
  lastAttemptAt: string;
  lastSuccessAt: string;
  lastReconciledAt: string;
  staleSince: string;
  nextRetryAt: string;
  error: string;
  consecutiveFailures: number;
  resultTruncated: boolean | number;
  scopeSource: string;
  openCount: number;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function jsonArray(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string' && v.trim().startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(v);
      return Array.isArray(parsed) ? parsed : [];
    } catch {
      return [];
    }
  }
  return [];
}

/** The affected entities, each with a name (the id when it has none); anything else dropped. */
export function entitiesOf(p: Pick<DynatraceProblem, 'affectedEntities'>): ProblemEntity[] {
  return jsonArray(p.affectedEntities).flatMap((e): ProblemEntity[] => {
    if (!e || typeof e !== 'object') return [];
    const o = e as Record<string, unknown>;
    const id = str(o.id);
    const name = str(o.name) || id;
    if (!name) return [];
    return [{ id, name, type: str(o.type) }];
  });
}

/** The alerting profile names (strings only). */
export function profilesOf(p: Pick<DynatraceProblem, 'alertingProfiles'>): string[] {
  return jsonArray(p.alertingProfiles).filter((x): x is string => typeof x === 'string' && x !== '');
}

export function isOpen(p: Pick<DynatraceProblem, 'status'>): boolean {
  return p.status === 'OPEN';
}

/** "P-1234", or the problem id when Dynatrace gave no display id. */
export function problemLabel(p: Pick<DynatraceProblem, 'displayId' | 'problemId'>): string {
  return p.displayId || p.problemId;
}

// ---------------------------------------------------------------- order and filter

/** Open first, then the newest start first, then by problem id (stable). */
export function compareProblems(a: DynatraceProblem, b: DynatraceProblem): number {
  const open = Number(isOpen(b)) - Number(isOpen(a));
  if (open) return open;
  const sa = parseStamp(a.startTime) ?? 0;
  const sb = parseStamp(b.startTime) ?? 0;
  if (sa !== sb) return sb - sa;
  return a.problemId < b.problemId ? -1 : a.problemId > b.problemId ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The notification e-mail subject to show: only while the status the notification recorded is
 * the problem's status (a subject sent for the opening is not shown once the problem closed).
 */
export function shownSubject(p: Pick<DynatraceProblem, 'emailSubject' | 'emailSubjectStatus' | 'status'>): string {
  return p.emailSubject && p.emailSubjectStatus === p.status ? p.emailSubject : '';
}

export type StatusFilter = 'open' | 'closed' | 'all';
export const STATUS_FILTERS: readonly { id: StatusFilter; label: string }[] = [
  { id: 'open', label: 'Open' },
  { id: 'closed', label: 'Closed' },
  { id: 'all', label: 'All' },
];

/** The text a search looks in: ids, title, severity, impact, root cause, entities, profiles, subject. */
function haystack(p: DynatraceProblem): string {
  return [
    p.displayId,
    p.problemId,
    p.title,
    p.severity,
    severityLabel(p.severity),
    p.impactLevel,
    p.rootCauseName,
    shownSubject(p),
    ...entitiesOf(p).map((e) => e.name),
    ...profilesOf(p),
  ]
    .join('\n')
    .toLowerCase();
}

/** The problems the filter keeps, in list order; every word of `query` must appear (any case). */
export function filterProblems(list: readonly DynatraceProblem[], status: StatusFilter, query: string): DynatraceProblem[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return list
    .filter((p) => (status === 'all' ? true : status === 'open' ? isOpen(p) : !isOpen(p)))
    .filter((p) => {
      if (!words.length) return true;
      const h = haystack(p);
      return words.every((w) => h.includes(w));
    })
    .sort(compareProblems);
}

/** How many problems each filter shows (for the filter buttons). */
export function statusCounts(list: readonly DynatraceProblem[]): Record<StatusFilter, number> {
  const open = list.filter(isOpen).length;
  return { open, closed: list.length - open, all: list.length };
}

// ---------------------------------------------------------------- severity

const SEVERITY_LABELS: Record<string, string> = {
  AVAILABILITY: 'Availability',
  ERROR: 'Error',
  PERFORMANCE: 'Slowdown',
  RESOURCE_CONTENTION: 'Resource',
  CUSTOM_ALERT: 'Custom alert',
  MONITORING_UNAVAILABLE: 'Monitoring unavailable',
  INFO: 'Info',
};

/** The severity in words ("Availability", "Slowdown"…); an unknown one as written, in title case. */
export function severityLabel(severity: string): string {
  if (SEVERITY_LABELS[severity]) return SEVERITY_LABELS[severity];
  const s = severity.replace(/_/g, ' ').toLowerCase();
  return s ? s[0].toUpperCase() + s.slice(1) : 'Unknown';
}

export type Tone = 'critical' | 'warning' | 'info';

/** The chip's tone: availability and error are critical, slowdown and resource warnings. */
export function severityTone(severity: string): Tone {
  if (severity === 'AVAILABILITY' || severity === 'ERROR') return 'critical';
  if (severity === 'PERFORMANCE' || severity === 'RESOURCE_CONTENTION' || severity === 'MONITORING_UNAVAILABLE') return 'warning';
  return 'info';
}

// ---------------------------------------------------------------- time

/** "under 1 min", "45 min", "2 h 5 min", "3 d 4 h". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 60_000) return 'under 1 min';
  const min = Math.floor(ms / 60_000);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/** "in 3 min", "in 40 s", or "now" once the time has passed. */
export function formatIn(thenMs: number, nowMs: number): string {
  const s = Math.ceil((thenMs - nowMs) / 1000);
  if (s <= 0) return 'now';
  if (s < 60) return `in ${s} s`;
  return `in ${formatDuration(s * 1000)}`;
}

/**
 * The problem's time in words: "Open for 2 h 5 min" (since its start), or "Lasted 45 min,
 * closed 3 h ago"; "Start time unknown" without a start.
 */
export function problemTimeText(p: Pick<DynatraceProblem, 'status' | 'startTime' | 'endTime'>, nowMs: number): string {
  const start = parseStamp(p.startTime);
  if (start === null) return 'Start time unknown';
  if (isOpen(p)) return `Open for ${formatDuration(nowMs - start)}`;
  const end = parseStamp(p.endTime);
  if (end === null) return `Closed, started ${formatAgo(start, nowMs)}`;
  return `Lasted ${formatDuration(end - start)}, closed ${formatAgo(end, nowMs)}`;
}

// ---------------------------------------------------------------- sync banner

export type BannerTone = 'ok' | 'info' | 'warning' | 'error';

export interface SyncBanner {
  tone: BannerTone;
  title: string;
  /** Further sentences, each shown on its own line. */
  details: string[];
  /** Dynatrace is not configured: the list shows the "not configured" empty state. */
  notConfigured: boolean;
}

/** The singleton sync record among the loaded ones (key "problems"), or null. */
export function syncRecord(list: readonly ProblemSync[]): ProblemSync | null {
  return list.find((r) => r.key === SYNC_KEY) ?? list[0] ?? null;
}

const TRUNCATED_TEXT = "The last full check hit Dynatrace's 10,000-result limit, so some problems may be missing and none were removed.";

/** The banner for the sync record in plain words (times relative to `nowMs`; paths from `place`). */
export function syncBanner(sync: ProblemSync | null, nowMs: number, place: ServerPlace): SyncBanner {
  if (!sync) {
    return { tone: 'info', title: 'Waiting for the first Dynatrace check', details: ['The Relay server has not checked Dynatrace yet.'], notConfigured: false };
  }
  const details: string[] = [];
  const stale = parseStamp(sync.staleSince);
  const retry = parseStamp(sync.nextRetryAt);
  const success = parseStamp(sync.lastSuccessAt);
  const truncated = sync.resultTruncated === true || sync.resultTruncated === 1;
  switch (sync.state) {
    case 'disabled':
      return {
        tone: 'info',
        title: 'Dynatrace is not configured',
        details: [dynatraceSetupPath(place)],
        notConfigured: true,
      };
    case 'error': {
      details.push(sync.error ? `Last error: ${sync.error}` : 'The last check failed.');
      if (stale !== null) details.push(`The list is stale since ${formatAgo(stale, nowMs)}.`);
      else if (success !== null) details.push(`Last successful check ${formatAgo(success, nowMs)}.`);
      if (retry !== null) details.push(`Next retry ${formatIn(retry, nowMs)}.`);
      const n = Math.floor(Number(sync.consecutiveFailures) || 0);
      if (n > 1) details.push(`${n} checks in a row have failed.`);
      return { tone: 'error', title: 'Dynatrace problems are not up to date', details, notConfigured: false };
    }
    case 'syncing':
      return { tone: 'info', title: 'Checking Dynatrace…', details: success !== null ? [`Last successful check ${formatAgo(success, nowMs)}.`] : [], notConfigured: false };
    default: {
      if (truncated) {
        if (success !== null) details.push(`Last check ${formatAgo(success, nowMs)}.`);
        return { tone: 'warning', title: 'Some problems may be missing', details: [`${TRUNCATED_TEXT} ${dynatraceScopePath(place)}`, ...details], notConfigured: false };
      }
      return { tone: 'ok', title: success !== null ? `Up to date — checked ${formatAgo(success, nowMs)}` : 'Up to date', details: [], notConfigured: false };
    }
  }
}
