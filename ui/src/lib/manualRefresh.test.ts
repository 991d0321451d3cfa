// The shared manual-refresh routine: the spinner held for the minimum, the attempt's own notice,
// a 429 → warn notice kept for its Retry-After (or the default), any other failure → error notice,
// and the notice timer (re-arm replaces, null clears nothing, clear cancels).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TransportError } from '../transport/types';
import { NOTICE_MS, NoticeTimer, runManualRefresh, type ManualRefreshOptions, type Notice } from './manualRefresh';

const opts = (attempt: () => Promise<Notice | null>): ManualRefreshOptions => ({
  attempt,
  minSpinMs: 500,
  now: Date.now,
  limitedText: (n) => `limited ${n ?? 'none'}`,
  defaultRetrySecs: 30,
  errorText: (err) => (err instanceof Error ? err.message : 'unknown'),
});

const limited = (retryAfterSeconds?: number) =>
  new TransportError({ kind: 'rate-limited', status: 429, message: 'slow down', retryAfterSeconds });

describe('runManualRefresh', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('holds the spinner for the minimum time and passes the attempt notice through', async () => {
    let done = false;
    const p = runManualRefresh(opts(async () => ({ text: 'busy', tone: 'info' }))).then((r) => {
      done = true;
      return r;
    });
    await vi.advanceTimersByTimeAsync(499);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await p).toEqual({ notice: { text: 'busy', tone: 'info' }, noticeMs: NOTICE_MS });
  });

  it('does not wait longer when the attempt took longer than the minimum', async () => {
    const p = runManualRefresh(opts(() => new Promise((r) => setTimeout(() => r(null), 800))));
    await vi.advanceTimersByTimeAsync(800);
    expect(await p).toEqual({ notice: null, noticeMs: NOTICE_MS });
  });

  it('turns a 429 into a warn notice kept for the Retry-After', async () => {
    const p = runManualRefresh(opts(() => Promise.reject(limited(12))));
    await vi.advanceTimersByTimeAsync(500);
    expect(await p).toEqual({ notice: { text: 'limited 12', tone: 'warn' }, noticeMs: 12_000 });
  });

  it('uses the default retry seconds when the 429 has no Retry-After, and at least 1 s', async () => {
    const a = runManualRefresh(opts(() => Promise.reject(limited())));
    const b = runManualRefresh(opts(() => Promise.reject(limited(0))));
    await vi.advanceTimersByTimeAsync(500);
    expect(await a).toEqual({ notice: { text: 'limited none', tone: 'warn' }, noticeMs: 30_000 });
    expect((await b).noticeMs).toBe(1_000);
  });

  it('turns any other failure into an error notice', async () => {
    const p = runManualRefresh(opts(() => Promise.reject(new Error('boom'))));
    await vi.advanceTimersByTimeAsync(500);
    expect(await p).toEqual({ notice: { text: 'Refresh failed: boom', tone: 'error' }, noticeMs: NOTICE_MS });
  });
});

describe('NoticeTimer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('expires after the given time; a re-arm replaces the pending clear', () => {
    const expire = vi.fn();
    const t = new NoticeTimer(expire);
    t.arm({ text: 'a', tone: 'warn' }, 1000);
    vi.advanceTimersByTime(900);
    t.arm({ text: 'b', tone: 'warn' }, 1000);
    vi.advanceTimersByTime(900);
    expect(expire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(expire).toHaveBeenCalledTimes(1);
  });

  it('arming with no notice and clear cancel the pending clear', () => {
    const expire = vi.fn();
    const t = new NoticeTimer(expire);
    t.arm({ text: 'a', tone: 'warn' }, 1000);
    t.arm(null, 1000);
    t.arm({ text: 'b', tone: 'warn' }, 1000);
    t.clear();
    vi.advanceTimersByTime(5000);
    expect(expire).not.toHaveBeenCalled();
  });
});
