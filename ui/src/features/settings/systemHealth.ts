// System health view logic (pure): formatting bytes and uptime, the state labels (text and a
// symbol, never colour alone), subsystem rows in a stable order, the overall line (never "all
// running" while one is degraded) and the status bar's notice, the SVG sparkline path and its
// spoken summary for the last 10 minutes of queue depth, and the backup line (restore point age,
// verification, the last failure's fixed text).
import type { ActorHealth, ActorState, BackupHealthSummary, SystemHealth } from '../../transport/types';

/** How often the open System health panel asks the server again. */
export const HEALTH_REFRESH_MS = 5_000;

/** The server-side subsystems, listed first in this order; any other reporter follows by name. */
export const SUBSYSTEM_ORDER = ['store', 'auth', 'realtime', 'presence', 'privileged', 'web_sessions', 'metrics'];

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** 1536 → "1.5 KiB"; whole bytes below 1 KiB, one decimal below 100 of a unit, none above. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${Math.round(value)} B`;
  return `${value.toFixed(value >= 100 ? 0 : 1)} ${UNITS[unit]}`;
}

/** 42 → "42 s", 3720 → "1 h 02 min", 180000 → "2 d 2 h". */
export function formatUptime(secs: number): string {
  if (!Number.isFinite(secs) || secs < 0) return '—';
  const s = Math.floor(secs);
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return `${h} h ${String(min % 60).padStart(2, '0')} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

const STATE_LABELS: Record<ActorState, string> = {
  starting: 'Starting',
  running: 'Running',
  restarting: 'Restarting',
  degraded: 'Degraded',
  unresponsive: 'Unresponsive',
  unconfigured: 'Not configured',
};

/** Text (and symbol) for a state, so it never depends on colour. */
export function stateLabel(state: ActorState): { text: string; symbol: string; tone: 'ok' | 'warn' | 'bad' | 'off' } {
  const text = STATE_LABELS[state] ?? String(state);
  if (state === 'running') return { text, symbol: '✓', tone: 'ok' };
  if (state === 'unconfigured') return { text, symbol: '–', tone: 'off' };
  if (state === 'starting' || state === 'restarting') return { text, symbol: '…', tone: 'warn' };
  if (state === 'degraded') return { text, symbol: '⚠', tone: 'warn' };
  return { text, symbol: '!', tone: 'bad' };
}

export interface SubsystemRow extends ActorHealth {
  name: string;
}

/** Known subsystems first (in `SUBSYSTEM_ORDER`), then the rest by name. */
export function subsystemRows(snapshot: Pick<SystemHealth, 'actors'>): SubsystemRow[] {
  const rank = (n: string) => {
    const i = SUBSYSTEM_ORDER.indexOf(n);
    return i < 0 ? SUBSYSTEM_ORDER.length : i;
  };
  return Object.entries(snapshot.actors ?? {})
    .map(([name, a]) => ({ ...a, name }))
    .sort((a, b) => rank(a.name) - rank(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const namesIn = (rows: readonly SubsystemRow[], states: readonly ActorState[]) => rows.filter((r) => states.includes(r.state)).map((r) => r.name);

/**
 * The summary line above the table: degraded and failing subsystems by name, else starting ones,
 * else "all running" (naming what is not configured, which is not in use rather than running).
 */
export function overallLine(health: Pick<SystemHealth, 'status' | 'actors'>): { text: string; attention: boolean } {
  const rows = subsystemRows(health);
  const degraded = namesIn(rows, ['degraded']);
  const failing = namesIn(rows, ['restarting', 'unresponsive']);
  if (degraded.length > 0 || failing.length > 0) {
    const parts: string[] = [];
    if (degraded.length > 0) parts.push(`${plural(degraded.length, 'subsystem', 'subsystems')} degraded: ${degraded.join(', ')}`);
    if (failing.length > 0) parts.push(`${plural(failing.length, 'subsystem', 'subsystems')} restarting or unresponsive: ${failing.join(', ')}`);
    return { text: `⚠ ${parts.join('; ')}`, attention: true };
  }
  const starting = namesIn(rows, ['starting']);
  if (starting.length > 0) return { text: `… Starting: ${starting.join(', ')}`, attention: false };
  if (health.status !== 'ok') return { text: '! Some subsystems need attention', attention: true };
  const unconfigured = namesIn(rows, ['unconfigured']);
  if (unconfigured.length > 0) return { text: `✓ All subsystems in use are running; not configured: ${unconfigured.join(', ')}`, attention: false };
  return { text: '✓ All subsystems running', attention: false };
}

/** The status bar's notice (null when nothing needs attention): a count, and each reason for the tooltip. */
export function healthNotice(health: Pick<SystemHealth, 'actors'>): { text: string; detail: string } | null {
  const rows = subsystemRows(health).filter((r) => r.state === 'degraded' || r.state === 'restarting' || r.state === 'unresponsive');
  if (rows.length === 0) return null;
  const onlyDegraded = rows.every((r) => r.state === 'degraded');
  const text = onlyDegraded
    ? `⚠ ${plural(rows.length, 'subsystem', 'subsystems')} degraded`
    : `⚠ ${plural(rows.length, 'subsystem needs', 'subsystems need')} attention`;
  const detail = rows.map((r) => `${r.name}: ${r.condition?.reason ?? STATE_LABELS[r.state]}`).join('\n');
  return { text, detail };
}

const num = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

/**
 * SVG path for `values` (oldest first) in a `width`×`height` box: one point per value spread
 * evenly, the largest value (at least 1) at the top, zero on the bottom. `null` (no report)
 * breaks the line; a lone point becomes a short dash so it stays visible.
 */
export function sparklinePath(values: readonly (number | null)[], width: number, height: number): string {
  if (values.length === 0) return '';
  const max = Math.max(1, ...values.map((v) => v ?? 0));
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const pad = 1;
  const y = (v: number) => pad + (height - 2 * pad) * (1 - Math.min(v, max) / max);
  const parts: string[] = [];
  let run = 0;
  values.forEach((v, i) => {
    if (v === null || !Number.isFinite(v)) {
      run = 0;
      return;
    }
    const x = i * step;
    parts.push(`${run === 0 ? 'M' : 'L'}${num(x)} ${num(y(v))}`);
    const next = values[i + 1];
    if (run === 0 && (next === null || next === undefined)) parts.push(`h${num(Math.max(1.5, step / 3))}`);
    run++;
  });
  return parts.join(' ');
}

/** What the sparkline shows, for screen readers and the tooltip. */
export function sparklineSummary(values: readonly (number | null)[], bucketSecs: number): string {
  const seen = values.filter((v): v is number => v !== null && Number.isFinite(v));
  const minutes = Math.round((values.length * bucketSecs) / 60);
  if (seen.length === 0) return `No reports in the last ${minutes} minutes`;
  return `Queue depth over the last ${minutes} minutes: peak ${Math.max(...seen)}, latest ${seen[seen.length - 1]}`;
}

/** Restore point older than this is shown as a warning (a daily backup plus a retry window). */
export const BACKUP_STALE_MS = 26 * 3_600_000;

/** "3 h 12 min" for an age in ms; "—" without one. */
export function formatAgeMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  const min = Math.floor(ms / 60_000);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h ${min % 60} min`;
  return `${Math.floor(h / 24)} days`;
}

/** The dashboard's backup line: text plus whether it needs attention (symbol, never colour alone). */
export function backupLine(b: BackupHealthSummary | undefined): { text: string; attention: boolean } | null {
  if (!b) return null;
  if (b.lastFailure) return { text: `! ${b.lastFailure} (${b.failures} failed attempt${b.failures === 1 ? '' : 's'})`, attention: true };
  if (b.restorePointAgeMs === null) return { text: '! No backup yet', attention: true };
  const verified = b.lastVerifiedAgeMs === null ? 'not verified' : `verified ${formatAgeMs(b.lastVerifiedAgeMs)} ago`;
  const stale = b.restorePointAgeMs > BACKUP_STALE_MS;
  const busy = b.busy ? '; a backup operation is running' : '';
  return { text: `${stale ? '!' : '✓'} Restore point ${formatAgeMs(b.restorePointAgeMs)} old, ${verified}${busy}`, attention: stale };
}
