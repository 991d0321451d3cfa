// Tests for the service-status endpoints of PocketBaseTransport against the routed fake fetch:
// GET /api/relay/status (typed snapshot, token, 401 → rejected), POST /api/relay/status/refresh
// (202 started / in flight, the 429 + Retry-After path in delta-seconds and HTTP-date forms),
// and the CSRF header the Relay Web gateway needs on the refresh write.
import { describe, expect, it } from 'vitest';
import { STATUS_PATH, STATUS_REFRESH_PATH } from './pocketbase';
import { disposeAfterEach, json, signedInDirect, signedInGateway, type Reply } from './testkit';
import type { ServiceStatus } from './types';

const keep = disposeAfterEach();

const snapshot: ServiceStatus = {
  providers: [
    {
      id: 'aws',
      label: 'AWS',
      short: 'AWS',
      statusPage: 'https://health.aws.amazon.com/health/status',
      xUrl: 'https://x.com/awscloud',
      downdetectorUrl: 'https://downdetector.com/status/aws-amazon-web-services/',
      state: 'degraded',
      items: [
        { id: 'i1', provider: 'aws', title: 'Elevated errors', description: 'EC2 in us-east-1', pubDate: 1764770000000, link: 'https://health.aws.amazon.com/x', severity: 'warning', affectedScopes: ['us-east-1'] },
      ],
      error: null,
      checkedAt: '2026-12-03 18:00:00.000Z',
      lastSuccessAt: '2026-12-03 18:00:00.000Z',
    },
  ],
  lastUpdated: '2026-12-03 18:00:00.000Z',
  nextPollAt: '2026-12-03 18:01:00.000Z',
  refreshing: false,
};

const signedIn = async (extra: Record<string, () => Reply>) => keep(await signedInDirect(extra));

describe('PocketBaseTransport service status', () => {
  it('reads the typed snapshot with the token, and maps a 401 to rejected', async () => {
    let status = 200;
    const t = await signedIn({
      [`GET ${STATUS_PATH}`]: () => (status === 200 ? json(200, snapshot) : json(401, { status: 401, message: 'no', data: {} })),
    });
    expect(await t.transport.serviceStatus()).toEqual(snapshot);
    const call = t.calls.find((c) => c.path === '/api/relay/status')!;
    expect(call.method).toBe('GET');
    expect(call.headers.get('Authorization')).toBe('tok-123');
    status = 401;
    await expect(t.transport.serviceStatus()).rejects.toMatchObject({ kind: 'rejected', status: 401 });
  });

  it('posts the refresh and returns started or in flight', async () => {
    let body: object = { started: true };
    const t = await signedIn({ [`POST ${STATUS_REFRESH_PATH}`]: () => json(202, body) });
    await expect(t.transport.refreshServiceStatus()).resolves.toEqual({ started: true });
    const call = t.calls.find((c) => c.path === '/api/relay/status/refresh')!;
    expect(call.method).toBe('POST');
    expect(call.headers.get('Authorization')).toBe('tok-123');
    body = { started: false, inFlight: true };
    await expect(t.transport.refreshServiceStatus()).resolves.toEqual({ started: false, inFlight: true });
  });

  it('maps a 429 to rate-limited with the Retry-After seconds (delta and HTTP-date)', async () => {
    let header = '17';
    const t = await signedIn({
      [`POST ${STATUS_REFRESH_PATH}`]: () => json(429, { status: 429, message: 'Refreshed recently.', data: {} }, { 'Retry-After': header }),
    });
    await expect(t.transport.refreshServiceStatus()).rejects.toMatchObject({ kind: 'rate-limited', status: 429, retryAfterSeconds: 17 });
    header = new Date(Date.now() + 20_000).toUTCString();
    const err = await t.transport.refreshServiceStatus().catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'rate-limited' });
    const secs = (err as { retryAfterSeconds?: number }).retryAfterSeconds!;
    expect(secs).toBeGreaterThanOrEqual(18);
    expect(secs).toBeLessThanOrEqual(21);
  });

  it('a server without the endpoint is not-found, an unreachable one is network', async () => {
    const t = await signedIn({});
    await expect(t.transport.serviceStatus()).rejects.toMatchObject({ kind: 'not-found' });
    const down = await signedIn({ [`GET ${STATUS_PATH}`]: () => 'network-error' });
    await expect(down.transport.serviceStatus()).rejects.toMatchObject({ kind: 'network' });
  });

  it('through the Relay Web gateway: same paths, CSRF on the refresh only', async () => {
    const { transport, calls } = keep(
      await signedInGateway({
        [`GET ${STATUS_PATH}`]: () => json(200, snapshot),
        [`POST ${STATUS_REFRESH_PATH}`]: () => json(202, { started: true }),
      }),
    );
    expect(await transport.serviceStatus()).toEqual(snapshot);
    expect(await transport.refreshServiceStatus()).toEqual({ started: true });
    const get = calls.find((c) => c.method === 'GET' && c.path === STATUS_PATH)!;
    const post = calls.find((c) => c.method === 'POST' && c.path === STATUS_REFRESH_PATH)!;
    expect(get.headers.get('X-Relay-CSRF')).toBeNull();
    expect(post.headers.get('X-Relay-CSRF')).toBe('csrf-1');
    expect(post.headers.get('Authorization')).toBe('web-tok');
  });
});
