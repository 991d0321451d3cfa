// The app-level status feed over a scripted Transport: notice toasts from sign-in but no GET
// until the Status view activates it; then one load, one debounced re-fetch per burst of
// `cloud_status` events, a catch-up load on reconnect without any toast, notice creates batched
// into one toast, stale data kept when a load fails, and the manual refresh (spinner >= 500 ms,
// "already running", the 429 "try again in N s").
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConnectionState, RealtimeEvent, ServiceStatus, StatusRefresh, Transport } from '../../transport/types';
import { TransportError } from '../../transport/types';
import { CLOUD_STATUS, CLOUD_STATUS_NOTICES, MIN_SPIN_MS, REFETCH_DEBOUNCE_MS, STATUS_POLL_MS, TOAST_BATCH_MS } from './status';
import { StatusFeed, type StatusToast } from './statusFeed';

const snap = (lastUpdated: string, refreshing = false): ServiceStatus => ({
  providers: [{ id: 'github', label: 'GitHub', short: 'GitHub', statusPage: 'https://www.githubstatus.com/', xUrl: null, downdetectorUrl: null, state: 'operational', items: [], error: null, checkedAt: lastUpdated, lastSuccessAt: lastUpdated }],
  lastUpdated,
  nextPollAt: null,
  refreshing,
});

function scripted() {
  const subs = new Map<string, (e: RealtimeEvent) => void>();
  const stateCbs: ((s: ConnectionState) => void)[] = [];
  let next: () => Promise<ServiceStatus> = async () => snap('2026-12-03 18:00:00.000Z');
  let refresh: () => Promise<StatusRefresh> = async () => ({ started: true });
  const unsubscribed: string[] = [];
  const t = {
    serviceStatus: vi.fn(() => next()),
    refreshServiceStatus: vi.fn(() => refresh()),
    subscribe: vi.fn(async (c: string, cb: (e: RealtimeEvent) => void) => {
      subs.set(c, cb);
      return () => unsubscribed.push(c);
    }),
    onStateChange: vi.fn((cb: (s: ConnectionState) => void) => {
      stateCbs.push(cb);
      cb('connected');
      return () => {};
    }),
  } as unknown as Transport;
  const toasts: StatusToast[] = [];
  const feed = new StatusFeed(t, (x) => toasts.push(x));
  return {
    t: t as unknown as { serviceStatus: ReturnType<typeof vi.fn>; refreshServiceStatus: ReturnType<typeof vi.fn> },
    feed,
    toasts,
    unsubscribed,
    emit: (c: string, e: RealtimeEvent) => subs.get(c)!(e),
    state: (s: ConnectionState) => stateCbs.forEach((cb) => cb(s)),
    setNext: (f: () => Promise<ServiceStatus>) => (next = f),
    setRefresh: (f: () => Promise<StatusRefresh>) => (refresh = f),
  };
}

const flush = () => vi.advanceTimersByTimeAsync(0);
const notice = (provider: string, severity: string, title: string) => ({ provider, itemId: 'i', severity, title, episode: `${provider}:${title}` });

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('StatusFeed', () => {
  it('toasts from sign-in but asks for no snapshot until the Status view activates it', async () => {
    const s = scripted();
    s.feed.start();
    await vi.advanceTimersByTimeAsync(STATUS_POLL_MS * 2);
    expect(s.t.serviceStatus).not.toHaveBeenCalled();
    s.emit(CLOUD_STATUS_NOTICES, { action: 'create', record: notice('salesforce', 'error', 'Login failures') });
    await vi.advanceTimersByTimeAsync(TOAST_BATCH_MS);
    expect(s.toasts).toEqual([{ kind: 'error', message: 'SFDC Outage: Login failures' }]);
    s.feed.activate();
    s.feed.activate();
    await flush();
    expect(s.t.serviceStatus).toHaveBeenCalledTimes(1);
    s.feed.stop();
  });

  it('once active: loads, then once per burst of cloud_status events (debounced), and polls', async () => {
    const s = scripted();
    expect(s.feed.snapshot).toMatchObject({ loading: true, data: null });
    s.feed.start();
    s.feed.activate();
    await flush();
    expect(s.t.serviceStatus).toHaveBeenCalledTimes(1);
    expect(s.feed.snapshot).toMatchObject({ loading: false, error: null });
    expect(s.feed.snapshot.data?.lastUpdated).toBe('2026-12-03 18:00:00.000Z');
    for (let i = 0; i < 17; i++) s.emit(CLOUD_STATUS, { action: 'update', record: { id: `r${i}` } });
    await vi.advanceTimersByTimeAsync(REFETCH_DEBOUNCE_MS - 1);
    expect(s.t.serviceStatus).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.t.serviceStatus).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(STATUS_POLL_MS);
    expect(s.t.serviceStatus).toHaveBeenCalledTimes(3); // the safety poll
    expect(s.toasts).toEqual([]);
    s.feed.stop();
  });

  it('toasts notice creates in one batch; nothing for updates, loads or a reconnect', async () => {
    const s = scripted();
    s.feed.start();
    s.feed.activate();
    await flush();
    s.emit(CLOUD_STATUS_NOTICES, { action: 'update', record: notice('aws', 'error', 'Old') });
    s.emit(CLOUD_STATUS_NOTICES, { action: 'create', record: notice('github', 'warning', 'Slow API') });
    s.emit(CLOUD_STATUS_NOTICES, { action: 'create', record: notice('mist_apac', 'error', 'Portal down') });
    await vi.advanceTimersByTimeAsync(TOAST_BATCH_MS);
    expect(s.toasts).toEqual([{ kind: 'error', message: 'Mist Outage: Portal down (+1 more)' }]);
    s.state('offline');
    s.state('connected');
    await vi.advanceTimersByTimeAsync(REFETCH_DEBOUNCE_MS);
    expect(s.t.serviceStatus).toHaveBeenCalledTimes(2); // caught up after the reconnect
    await vi.advanceTimersByTimeAsync(TOAST_BATCH_MS);
    expect(s.toasts).toHaveLength(1);
    s.feed.stop();
  });

  it('keeps the last snapshot when a load fails, and says why', async () => {
    const s = scripted();
    s.feed.start();
    s.feed.activate();
    await flush();
    s.setNext(async () => {
      throw new TransportError({ kind: 'network', status: 0, message: 'x' });
    });
    await s.feed.load();
    expect(s.feed.snapshot.error).toBe('Cannot reach the Relay server.');
    expect(s.feed.snapshot.data?.providers).toHaveLength(1);
    s.setNext(async () => {
      throw new TransportError({ kind: 'not-found', status: 404, message: 'Not found.' });
    });
    await s.feed.load();
    expect(s.feed.snapshot.error).toBe('This Relay server does not provide service status yet.');
    s.setNext(async () => snap('2026-12-03 18:05:00.000Z'));
    await s.feed.load();
    expect(s.feed.snapshot.error).toBeNull();
    s.feed.stop();
  });

  it('looks again soon while the server says a poll is running', async () => {
    const s = scripted();
    s.setNext(async () => snap('2026-12-03 18:00:00.000Z', true));
    s.feed.start();
    s.feed.activate();
    await flush();
    s.setNext(async () => snap('2026-12-03 18:00:09.000Z'));
    await vi.advanceTimersByTimeAsync(3_000);
    expect(s.t.serviceStatus).toHaveBeenCalledTimes(2);
    expect(s.feed.snapshot.data?.refreshing).toBe(false);
    s.feed.stop();
  });

  it('refresh: holds the spinner >= 500 ms, re-fetches, reports "already running"', async () => {
    const s = scripted();
    s.feed.start();
    s.feed.activate();
    await flush();
    const done = s.feed.refresh();
    expect(s.feed.snapshot.refreshing).toBe(true);
    await vi.advanceTimersByTimeAsync(MIN_SPIN_MS - 1);
    expect(s.feed.snapshot.refreshing).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    expect(s.feed.snapshot).toMatchObject({ refreshing: false, notice: null });
    expect(s.t.refreshServiceStatus).toHaveBeenCalledTimes(1);
    expect(s.t.serviceStatus).toHaveBeenCalledTimes(2);
    s.setRefresh(async () => ({ started: false, inFlight: true }));
    const again = s.feed.refresh();
    await vi.advanceTimersByTimeAsync(MIN_SPIN_MS);
    await again;
    expect(s.feed.snapshot.notice).toEqual({ text: 'A refresh is already running.', tone: 'info' });
    s.feed.stop();
  });

  it('refresh: a 429 says "Refreshed recently — try again in N s" until N s have passed', async () => {
    const s = scripted();
    s.feed.start();
    s.feed.activate();
    await flush();
    s.setRefresh(async () => {
      throw new TransportError({ kind: 'rate-limited', status: 429, message: 'Too many.', retryAfterSeconds: 12 });
    });
    const done = s.feed.refresh();
    await vi.advanceTimersByTimeAsync(MIN_SPIN_MS);
    await done;
    expect(s.feed.snapshot).toMatchObject({ refreshing: false, notice: { text: 'Refreshed recently — try again in 12 s', tone: 'warn' } });
    expect(s.t.serviceStatus).toHaveBeenCalledTimes(1); // no GET after a refused refresh
    await vi.advanceTimersByTimeAsync(12_000);
    expect(s.feed.snapshot.notice).toBeNull();
    s.feed.stop();
  });

  it('stop unsubscribes both collections and drops answers in flight', async () => {
    const s = scripted();
    s.feed.start();
    s.feed.activate();
    await flush();
    let resolve!: (v: ServiceStatus) => void;
    s.setNext(() => new Promise((r) => (resolve = r)));
    const pending = s.feed.load();
    s.feed.stop();
    resolve(snap('2026-12-03 19:00:00.000Z'));
    await pending;
    expect(s.feed.snapshot.data?.lastUpdated).toBe('2026-12-03 18:00:00.000Z');
    expect(s.unsubscribed.sort()).toEqual([CLOUD_STATUS, CLOUD_STATUS_NOTICES]);
  });

  it('start → stop → start (StrictMode) keeps one subscription per collection', async () => {
    const s = scripted();
    s.feed.start();
    s.feed.activate();
    s.feed.stop();
    s.feed.start();
    s.feed.activate();
    await flush();
    expect(s.unsubscribed.sort()).toEqual([CLOUD_STATUS, CLOUD_STATUS_NOTICES]); // the first pair, released late
    s.feed.stop();
    expect(s.unsubscribed).toHaveLength(4);
  });
});
