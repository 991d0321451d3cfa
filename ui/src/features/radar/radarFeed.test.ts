// The app-level Radar feed over a scripted Transport: a GET at start and every 30 s, a catch-up
// GET on reconnect, the last board kept when a load fails, toasts only when the colour worsens
// between polls, and the manual refresh (its answer applied at once, then a GET; spinner
// >= 500 ms; the 429 "try again in N s"; stop drops late answers).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConnectionState, RadarColor, RadarSnapshot, Transport } from '../../transport/types';
import { TransportError } from '../../transport/types';
import { RADAR_MIN_SPIN_MS, RADAR_POLL_MS, type RadarToast } from './radar';
import { RadarFeed } from './radarFeed';

const snap = (color: RadarColor, extra: Partial<RadarSnapshot> = {}): RadarSnapshot => ({
  color,
  dispatchers: [],
  papa: [],
  metrics: [{ label: 'Card Services', value: '1', tone: color }],
  xcenter: { ok: null, pending: null },
  currentTime: null,
  lastUpdated: 1764770000000,
  signInRequired: false,
  error: null,
  ...extra,
});

function scripted() {
  const stateCbs: ((s: ConnectionState) => void)[] = [];
  let next: () => Promise<RadarSnapshot> = async () => snap('green');
  let refresh: () => Promise<RadarSnapshot> = async () => snap('green');
  const t = {
    radar: vi.fn(() => next()),
    refreshRadar: vi.fn(() => refresh()),
    onStateChange: vi.fn((cb: (s: ConnectionState) => void) => {
      stateCbs.push(cb);
      cb('connected');
      return () => {};
    }),
  };
  const toasts: RadarToast[] = [];
  const feed = new RadarFeed(t as unknown as Transport, (x) => toasts.push(x));
  return {
    t,
    feed,
    toasts,
    state: (s: ConnectionState) => stateCbs.forEach((cb) => cb(s)),
    setNext: (f: () => Promise<RadarSnapshot>) => (next = f),
    setRefresh: (f: () => Promise<RadarSnapshot>) => (refresh = f),
  };
}

const flush = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('RadarFeed', () => {
  it('loads at start and polls every 30 s on every tab, and catches up after a reconnect', async () => {
    const s = scripted();
    expect(s.feed.getSnapshot().loading).toBe(true);
    s.feed.start();
    s.feed.start(); // idempotent
    await flush();
    expect(s.t.radar).toHaveBeenCalledTimes(1);
    expect(s.feed.getSnapshot()).toMatchObject({ loading: false, error: null, data: { color: 'green' } });
    await vi.advanceTimersByTimeAsync(RADAR_POLL_MS);
    expect(s.t.radar).toHaveBeenCalledTimes(2);
    s.state('reconnecting');
    s.state('connected');
    await flush();
    expect(s.t.radar).toHaveBeenCalledTimes(3);
    s.feed.stop();
    await vi.advanceTimersByTimeAsync(RADAR_POLL_MS * 3);
    expect(s.t.radar).toHaveBeenCalledTimes(3);
  });

  it('a failed load keeps the last board and says why', async () => {
    const s = scripted();
    s.feed.start();
    await flush();
    s.setNext(() => Promise.reject(new TransportError({ kind: 'network', status: 0, message: 'down' })));
    await vi.advanceTimersByTimeAsync(RADAR_POLL_MS);
    expect(s.feed.getSnapshot()).toMatchObject({ data: { color: 'green' }, error: 'Cannot reach the Relay server.' });
    s.setNext(async () => snap('green'));
    await vi.advanceTimersByTimeAsync(RADAR_POLL_MS);
    expect(s.feed.getSnapshot().error).toBeNull();
    s.feed.stop();
  });

  it('toasts when the colour worsens between polls, never on the first one', async () => {
    const s = scripted();
    s.setNext(async () => snap('red'));
    s.feed.start();
    await flush();
    expect(s.toasts).toEqual([]);
    s.setNext(async () => snap('green'));
    await vi.advanceTimersByTimeAsync(RADAR_POLL_MS);
    s.setNext(async () => snap('yellow'));
    await vi.advanceTimersByTimeAsync(RADAR_POLL_MS);
    s.setNext(async () => snap('magenta'));
    await vi.advanceTimersByTimeAsync(RADAR_POLL_MS);
    await vi.advanceTimersByTimeAsync(RADAR_POLL_MS); // stays magenta
    s.setNext(async () => snap('red', { signInRequired: true }));
    await vi.advanceTimersByTimeAsync(RADAR_POLL_MS);
    expect(s.toasts).toEqual([
      { kind: 'warning', message: 'Radar warning: yellow' },
      { kind: 'error', message: 'Radar critical: magenta' },
    ]);
    s.feed.stop();
  });

  it('manual refresh: the answer is applied at once, then a GET; the spinner shows >= 500 ms', async () => {
    const s = scripted();
    s.feed.start();
    await flush();
    s.setRefresh(async () => snap('red'));
    s.setNext(async () => snap('red'));
    const done = s.feed.refresh();
    expect(s.feed.getSnapshot().refreshing).toBe(true);
    await flush();
    expect(s.t.refreshRadar).toHaveBeenCalledTimes(1);
    expect(s.t.radar).toHaveBeenCalledTimes(2);
    expect(s.feed.getSnapshot()).toMatchObject({ refreshing: true, data: { color: 'red' } });
    expect(s.toasts).toEqual([{ kind: 'error', message: 'Radar critical: red' }]); // once, not again for the GET
    await vi.advanceTimersByTimeAsync(RADAR_MIN_SPIN_MS);
    await done;
    expect(s.feed.getSnapshot()).toMatchObject({ refreshing: false, notice: null });
    s.feed.stop();
  });

  it('a 429 says when to try again, and the notice clears after that long', async () => {
    const s = scripted();
    s.feed.start();
    await flush();
    s.setRefresh(() => Promise.reject(new TransportError({ kind: 'rate-limited', status: 429, message: 'slow down', retryAfterSeconds: 12 })));
    const done = s.feed.refresh();
    await vi.advanceTimersByTimeAsync(RADAR_MIN_SPIN_MS);
    await done;
    expect(s.feed.getSnapshot().notice).toEqual({ text: 'Refreshed recently — try again in 12 s', tone: 'warn' });
    expect(s.t.radar).toHaveBeenCalledTimes(1); // no GET after a refused refresh
    await vi.advanceTimersByTimeAsync(12_000);
    expect(s.feed.getSnapshot().notice).toBeNull();
    s.setRefresh(() => Promise.reject(new TransportError({ kind: 'server', status: 500, message: 'boom' })));
    const failed = s.feed.refresh();
    await vi.advanceTimersByTimeAsync(RADAR_MIN_SPIN_MS);
    await failed;
    expect(s.feed.getSnapshot().notice).toEqual({ text: 'Refresh failed: boom', tone: 'error' });
    s.feed.stop();
  });

  it('an answer that arrives after stop is dropped', async () => {
    const s = scripted();
    let resolve: (v: RadarSnapshot) => void = () => {};
    s.setNext(() => new Promise((r) => (resolve = r)));
    s.feed.start();
    s.feed.stop();
    resolve(snap('red'));
    await flush();
    expect(s.feed.getSnapshot().data).toBeNull();
  });
});
