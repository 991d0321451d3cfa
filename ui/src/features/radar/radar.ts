// Radar tab logic (no React, no transport): the cadence constants, a defensive normalizer for
// the server's RadarSnapshot, the sidebar indicator (colour in words + the queue warning), the
// warning/critical toast decision between polls, large-depth highlighting and the "Updated
// <ago>" text. The feed (./radarFeed) and the view (./RadarView) only apply these rules.
import type { RadarColor, RadarDispatcher, RadarMetric, RadarQueue, RadarSnapshot } from '../../transport/types';
import { formatAgo } from '../status/status';

export { refreshLimitedText } from '../status/status';

/** The app polls GET /api/relay/radar this often while signed in (the server reads every 60 s). */
export const RADAR_POLL_MS = 30_000;
/** A manual refresh's spinner shows at least this long. */
export const RADAR_MIN_SPIN_MS = 500;
/** A queue (dispatcher or PAPA) this deep or deeper is highlighted and raises the sidebar's queue warning. */
export const QUEUE_WARNING_DEPTH = 100;

export const RADAR_COLORS: readonly RadarColor[] = ['green', 'yellow', 'red', 'magenta', 'unknown'];

/** Words for each colour (shown next to the colour, so colour is never the only signal). */
export const COLOR_LABELS: Record<RadarColor, string> = {
  green: 'Green',
  yellow: 'Yellow',
  red: 'Red',
  magenta: 'Magenta',
  unknown: 'Unknown',
};

/** How bad a colour is; unknown has no rank (it is never compared). */
const RANK: Record<Exclude<RadarColor, 'unknown'>, number> = { green: 0, yellow: 1, red: 2, magenta: 3 };

export function isRadarColor(v: unknown): v is RadarColor {
  return typeof v === 'string' && (RADAR_COLORS as readonly string[]).includes(v);
}

const color = (v: unknown): RadarColor => (isRadarColor(v) ? v : 'unknown');
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});

function queue(v: unknown): RadarQueue {
  const q = obj(v);
  return { name: str(q.name), depth: count(q.depth) ?? 0 };
}

/** The server's answer made safe to render: unknown colours → 'unknown', missing lists → []. */
export function normalizeRadar(raw: unknown): RadarSnapshot {
  const r = obj(raw);
  const x = obj(r.xcenter);
  return {
    color: color(r.color),
    dispatchers: arr(r.dispatchers).map((d): RadarDispatcher => {
      const o = obj(d);
      return { name: str(o.name), tone: color(o.tone), lastScheduleDate: str(o.lastScheduleDate), lastPubSubDate: str(o.lastPubSubDate), queues: arr(o.queues).map(queue) };
    }),
    papa: arr(r.papa).map(queue),
    metrics: arr(r.metrics).map((m): RadarMetric => {
      const o = obj(m);
      return { label: str(o.label), value: typeof o.value === 'string' ? o.value : null, tone: color(o.tone) };
    }),
    xcenter: { ok: count(x.ok), pending: count(x.pending) },
    currentTime: typeof r.currentTime === 'string' && r.currentTime ? r.currentTime : null,
    lastUpdated: count(r.lastUpdated) ?? 0,
    signInRequired: r.signInRequired === true,
    error: typeof r.error === 'string' && r.error ? r.error : null,
  };
}

/** True when the snapshot carries a board worth drawing (any section has data). */
export function hasBoard(s: RadarSnapshot | null): boolean {
  if (!s) return false;
  return (
    s.color !== 'unknown' ||
    s.dispatchers.length > 0 ||
    s.metrics.length > 0 ||
    s.papa.length > 0 ||
    s.xcenter.ok !== null ||
    s.xcenter.pending !== null
  );
}

/** The server has never read the page (and so has nothing to show). */
export function neverRead(s: RadarSnapshot): boolean {
  return s.lastUpdated <= 0 && !hasBoard(s);
}

export function isLargeDepth(depth: number): boolean {
  return depth >= QUEUE_WARNING_DEPTH;
}

/** The queues at or over QUEUE_WARNING_DEPTH, dispatcher queues first then PAPA. */
export function deepQueues(s: RadarSnapshot | null): RadarQueue[] {
  if (!s) return [];
  return [...s.dispatchers.flatMap((d) => d.queues), ...s.papa].filter((q) => isLargeDepth(q.depth));
}

export interface RadarIndicator {
  color: RadarColor;
  /** What the sidebar shows next to the colour dot. */
  text: string;
  queueWarning: boolean;
  /** The whole indicator in words: "Radar: red", "Radar: red, queue warning". */
  label: string;
}

/** The sidebar indicator for the latest snapshot; null before the first answer. */
export function radarIndicator(s: RadarSnapshot | null): RadarIndicator | null {
  if (!s) return null;
  const queueWarning = deepQueues(s).length > 0;
  const text = s.signInRequired ? 'sign-in needed' : s.color;
  return { color: s.color, text, queueWarning, label: `Radar: ${text}${queueWarning ? ', queue warning' : ''}` };
}

// ---------------------------------------------------------------- toasts

/** What the toast rule remembers between polls. */
export interface ToastMemory {
  /** The last known (not unknown, not sign-in) colour; null before the first such poll. */
  previous: Exclude<RadarColor, 'unknown'> | null;
  /** The colour last toasted; cleared when the board is back to green. */
  toasted: RadarColor | null;
}

export const EMPTY_TOAST_MEMORY: ToastMemory = { previous: null, toasted: null };

export type RadarToast = { kind: 'error' | 'warning'; message: string };

/**
 * The toast rule: a toast when the overall colour worsens compared with the previous poll —
 * to red or magenta "Radar critical: <colour>" (error), to yellow "Radar warning: yellow"
 * (warning). Never on the first poll, never when it improves or stays, never while the
 * server's Radar session needs a sign-in (that poll is ignored), never for an unknown colour,
 * and never twice in a row for the same colour (red → yellow → red toasts once; back to green
 * re-arms it).
 */
export function radarToast(memory: ToastMemory, s: RadarSnapshot): { memory: ToastMemory; toast: RadarToast | null } {
  if (s.signInRequired || s.color === 'unknown') return { memory, toast: null };
  const next = s.color;
  const prev = memory.previous;
  const toasted = next === 'green' ? null : memory.toasted;
  const worse = prev !== null && RANK[next] > RANK[prev];
  if (!worse || next === 'green' || next === toasted) return { memory: { previous: next, toasted }, toast: null };
  const toast: RadarToast =
    next === 'yellow' ? { kind: 'warning', message: 'Radar warning: yellow' } : { kind: 'error', message: `Radar critical: ${next}` };
  return { memory: { previous: next, toasted: next }, toast };
}

// ---------------------------------------------------------------- text

/** "Updated 2 min ago", or "Never updated" when the server has not read the page (0). */
export function radarUpdatedText(lastUpdated: number, nowMs: number): string {
  return lastUpdated > 0 ? `Updated ${formatAgo(lastUpdated, nowMs)}` : 'Never updated';
}

/** A depth or XCenter count for display ("1,204"), or "—" when there is none. */
export function countText(n: number | null): string {
  return n === null ? '—' : n.toLocaleString('en-US');
}
