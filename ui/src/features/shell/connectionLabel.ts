// Status-bar wording for each ConnectionState (its visual tone, and what a screen reader hears
// when it changes), honest about where the data on screen comes from (desktop client mode: the
// offline cache and from when, or that nothing was cached yet).
import { NO_CACHED_DATA } from '../../data/collection';
import { localDateKey } from '../../lib/dates';
import type { ConnectionState } from '../../transport/types';

export const CONNECTION_LABELS: Record<ConnectionState, string> = {
  connecting: 'Connecting…',
  connected: 'Connected',
  offline: 'Offline — using cached data',
  reconnecting: 'Reconnecting…',
  'auth-failed': 'Sign-in failed — check the passphrase in Settings',
};

export type Tone = 'ok' | 'warn' | 'bad';

export function connectionTone(s: ConnectionState): Tone {
  if (s === 'connected') return 'ok';
  if (s === 'connecting' || s === 'reconnecting') return 'warn';
  return 'bad';
}

/** Shown instead of "using cached data" when the current view has nothing cached to show. */
export const OFFLINE_NO_CACHE = 'Offline — no cached data';

type DataStatus = 'loading' | 'ready' | 'error';

/** Where a collection's items come from (CollectionState.cached): the offline cache's time, 'missing', or the server (null). */
export type CacheMark = number | 'missing' | null;

/** "14:05" today, "2026-12-02 14:05" on another day (local time). */
export function cachedAt(ms: number, now: number): string {
  const d = new Date(ms);
  const hhmm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  return localDateKey(d) === localDateKey(new Date(now)) ? hhmm : `${localDateKey(d)} ${hhmm}`;
}

/**
 * The status-bar label for `state`, honest about the data on screen: offline with the current
 * view's collection never loaded (`data` not 'ready') says there is no cached data.
 * `data` null: the view shows no collection, so the generic wording stands. Desktop client
 * mode (`cached` set): the offline cache's time, or that nothing was cached yet.
 */
export function connectionLabel(state: ConnectionState, data: DataStatus | null, cached: CacheMark = null, now = Date.now()): string {
  if (state === 'offline' && typeof cached === 'number') return `Offline — showing cached data from ${cachedAt(cached, now)}`;
  if (state === 'offline' && cached === 'missing') return NO_CACHED_DATA;
  if (state === 'offline' && data !== null && data !== 'ready') return OFFLINE_NO_CACHE;
  return CONNECTION_LABELS[state];
}

/**
 * What a view backed by collections should show: its data once every collection is loaded,
 * "unavailable" once a load failed with nothing cached or the connection is down before the
 * first load, otherwise "loading". Never "loading" forever while offline.
 */
export function dataView(statuses: readonly DataStatus[], state: ConnectionState): 'ready' | 'loading' | 'unavailable' {
  if (statuses.every((s) => s === 'ready')) return 'ready';
  if (statuses.some((s) => s === 'error')) return 'unavailable';
  if (state === 'offline' || state === 'auth-failed') return 'unavailable';
  return 'loading';
}

/** The status-bar count: "3 contacts", "1 contact"; nothing until the collection is loaded. */
export function countLabel(n: number, noun: string, status: DataStatus): string {
  if (status !== 'ready') return '';
  return `${n} ${n === 1 ? noun.replace(/s$/, '') : noun}`;
}

export interface Announcement {
  text: string;
  /** 'assertive' interrupts (the connection was lost); 'polite' waits (it came back). */
  politeness: 'assertive' | 'polite';
}

const LOST: ReadonlySet<ConnectionState> = new Set(['offline', 'reconnecting', 'auth-failed']);

/**
 * What the status bar's live regions say when the connection goes from `prev` to `next`:
 * losing it is assertive, getting it back is polite, anything else (the first state, a repeat,
 * reconnecting → offline noise while already lost) says nothing.
 */
export function connectionAnnouncement(prev: ConnectionState | null, next: ConnectionState): Announcement | null {
  if (prev === null || prev === next) return null;
  if (LOST.has(next)) {
    if (LOST.has(prev) && next !== 'auth-failed') return null;
    return { text: `Connection lost: ${CONNECTION_LABELS[next]}`, politeness: 'assertive' };
  }
  if (next === 'connected') return { text: 'Connection restored: Connected', politeness: 'polite' };
  return null;
}
