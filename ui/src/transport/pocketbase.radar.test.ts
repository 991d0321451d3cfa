// Tests for the Radar endpoints of PocketBaseTransport against the routed fake fetch:
// GET /api/relay/radar (typed snapshot, token, 401 → rejected, 404 → not-found),
// POST /api/relay/radar/refresh (the snapshot after the read, the 429 + Retry-After path in
// delta-seconds and HTTP-date forms), and the CSRF header the Relay Web gateway needs on the
// refresh write only.
import { describe, expect, it } from 'vitest';
import { RADAR_PATH, RADAR_REFRESH_PATH } from './pocketbase';
import { disposeAfterEach, json, signedInDirect, signedInGateway, type Reply } from './testkit';
import type { RadarSnapshot } from './types';

const keep = disposeAfterEach();

const snapshot: RadarSnapshot = {
  color: 'yellow',
  dispatchers: [
    { name: 'DISPATCH-01', tone: 'green', lastScheduleDate: '12/03/2026 14:05', lastPubSubDate: '12/03/2026 14:05', queues: [{ name: 'INBOUND', depth: 12 }] },
  ],
  papa: [{ name: 'PAPA-AUTH', depth: 5 }],
  metrics: [
    { label: 'Card Services', value: '1,204', tone: 'green' },
    { label: 'EDW', value: null, tone: 'unknown' },
  ],
  xcenter: { ok: 3410, pending: 17 },
  currentTime: '12/03/2026 14:05:31',
  lastUpdated: 1764770000000,
  signInRequired: false,
  error: null,
};

const signedIn = async (extra: Record<string, () => Reply>) => keep(await signedInDirect(extra));

describe('PocketBaseTransport Radar', () => {
  it('reads the typed snapshot with the token, and maps a 401 to rejected', async () => {
    let status = 200;
    const t = await signedIn({
      [`GET ${RADAR_PATH}`]: () => (status === 200 ? json(200, snapshot) : json(401, { status: 401, message: 'no', data: {} })),
    });
    expect(await t.transport.radar()).toEqual(snapshot);
    const call = t.calls.find((c) => c.path === '/api/relay/radar')!;
    expect(call.method).toBe('GET');
    expect(call.headers.get('Authorization')).toBe('tok-123');
    status = 401;
    await expect(t.transport.radar()).rejects.toMatchObject({ kind: 'rejected', status: 401 });
  });

  it('posts the refresh and returns the snapshot after the read', async () => {
    const after = { ...snapshot, color: 'red' as const, lastUpdated: 1764770060000 };
    const t = await signedIn({ [`POST ${RADAR_REFRESH_PATH}`]: () => json(200, after) });
    await expect(t.transport.refreshRadar()).resolves.toEqual(after);
    const call = t.calls.find((c) => c.path === '/api/relay/radar/refresh')!;
    expect(call.method).toBe('POST');
    expect(call.headers.get('Authorization')).toBe('tok-123');
  });

  it('maps a 429 to rate-limited with the Retry-After seconds (delta and HTTP-date)', async () => {
    let header = '23';
    const t = await signedIn({
      [`POST ${RADAR_REFRESH_PATH}`]: () => json(429, { status: 429, message: 'Too many refreshes.', data: {} }, { 'Retry-After': header }),
    });
    await expect(t.transport.refreshRadar()).rejects.toMatchObject({ kind: 'rate-limited', status: 429, retryAfterSeconds: 23 });
    header = new Date(Date.now() + 40_000).toUTCString();
    const err = await t.transport.refreshRadar().catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'rate-limited' });
    const secs = (err as { retryAfterSeconds?: number }).retryAfterSeconds!;
    expect(secs).toBeGreaterThanOrEqual(38);
    expect(secs).toBeLessThanOrEqual(41);
  });

  it('a server without the endpoint is not-found, an unreachable one is network', async () => {
    const t = await signedIn({});
    await expect(t.transport.radar()).rejects.toMatchObject({ kind: 'not-found' });
    const down = await signedIn({ [`GET ${RADAR_PATH}`]: () => 'network-error' });
    await expect(down.transport.radar()).rejects.toMatchObject({ kind: 'network' });
  });

  it('through the Relay Web gateway: same paths, CSRF on the refresh only', async () => {
    const { transport, calls } = keep(
      await signedInGateway({
        [`GET ${RADAR_PATH}`]: () => json(200, snapshot),
        [`POST ${RADAR_REFRESH_PATH}`]: () => json(200, snapshot),
      }),
    );
    expect(await transport.radar()).toEqual(snapshot);
    expect(await transport.refreshRadar()).toEqual(snapshot);
    const get = calls.find((c) => c.method === 'GET' && c.path === RADAR_PATH)!;
    const post = calls.find((c) => c.method === 'POST' && c.path === RADAR_REFRESH_PATH)!;
    expect(get.headers.get('X-Relay-CSRF')).toBeNull();
    expect(post.headers.get('X-Relay-CSRF')).toBe('csrf-1');
    expect(post.headers.get('Authorization')).toBe('web-tok');
  });
});
