// Tests for PocketBaseTransport against a fake fetch: sign-in request shape,
// token handling, error mapping, and connection-state changes incl. the probe.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PocketBaseTransport } from './pocketbase';
import { AUTH, authOk, json, rejected, setup, type Call, type Reply } from './testkit';

let current: PocketBaseTransport | undefined;
afterEach(() => {
  current?.dispose();
  current = undefined;
  vi.useRealTimers();
});

describe('PocketBaseTransport sign-in', () => {
  it('drops any legacy persisted token at start', () => {
    const { transport, storage } = setup({});
    current = transport;
    expect(storage.removeItem).toHaveBeenCalledWith('pocketbase_auth');
  });

  it('posts identity "relay" with the passphrase and uses the token afterwards', async () => {
    const t = setup({
      [`POST ${AUTH}`]: authOk,
      'GET /api/collections/contacts/records': () =>
        json(200, { page: 1, perPage: 50, totalItems: 1, totalPages: 1, items: [{ id: 'c1', name: 'Ann' }] }),
    });
    current = t.transport;
    await t.transport.signIn('s3cret');
    expect(t.calls[0].method).toBe('POST');
    expect(t.calls[0].path).toBe(AUTH);
    expect(t.calls[0].body).toEqual({ identity: 'relay', password: 's3cret' });
    expect(t.last()).toBe('connected');

    const page = await t.transport.list('contacts', { sort: 'name' });
    expect(page).toEqual({ page: 1, perPage: 50, totalItems: 1, totalPages: 1, items: [{ id: 'c1', name: 'Ann' }] });
    const listCall = t.calls[1];
    expect(listCall.headers.get('Authorization')).toBe('tok-123');
    expect(new URLSearchParams(listCall.search).get('sort')).toBe('name');
  });

  it('maps a rejected passphrase to kind "rejected" and state auth-failed', async () => {
    const t = setup({ [`POST ${AUTH}`]: rejected });
    current = t.transport;
    await expect(t.transport.signIn('wrong')).rejects.toMatchObject({ kind: 'rejected', status: 400 });
    expect(t.last()).toBe('auth-failed');
  });

  it('maps 429 + Retry-After to kind "rate-limited" with the delay, without claiming a rejection', async () => {
    const t = setup({
      [`POST ${AUTH}`]: () => json(429, { status: 429, message: 'Too many requests.', data: {} }, { 'Retry-After': '17' }),
    });
    current = t.transport;
    await expect(t.transport.signIn('x')).rejects.toMatchObject({ kind: 'rate-limited', retryAfterSeconds: 17 });
    expect(t.last()).toBe('connecting');
  });

  it('maps an unreachable server to kind "network" and state offline', async () => {
    const t = setup({ [`POST ${AUTH}`]: () => 'network-error' });
    current = t.transport;
    await expect(t.transport.signIn('x')).rejects.toMatchObject({ kind: 'network', status: 0 });
    expect(t.last()).toBe('offline');
  });

  it('keeps auth-failed when a later attempt and the probe hit network errors', async () => {
    let down = false;
    const t = setup({
      [`POST ${AUTH}`]: () => (down ? 'network-error' : rejected()),
      'GET /api/health': () => (down ? 'network-error' : json(200, { code: 200 })),
    });
    current = t.transport;
    await expect(t.transport.signIn('wrong')).rejects.toMatchObject({ kind: 'rejected' });
    down = true;
    await expect(t.transport.signIn('again')).rejects.toMatchObject({ kind: 'network' });
    expect(await t.transport.probe()).toBe(false);
    expect(t.last()).toBe('auth-failed');
  });
});

describe('PocketBaseTransport requests', () => {
  async function signedIn(routes: Record<string, () => Reply>) {
    const t = setup({ [`POST ${AUTH}`]: authOk, ...routes });
    current = t.transport;
    await t.transport.signIn('ok');
    return t;
  }

  it('turns a mid-session 401 into auth-failed', async () => {
    const t = await signedIn({
      'GET /api/collections/contacts/records': () => json(401, { status: 401, message: 'Unauthorized.', data: {} }),
    });
    await expect(t.transport.getFullList('contacts')).rejects.toMatchObject({ kind: 'rejected', status: 401 });
    expect(t.last()).toBe('auth-failed');
  });

  it('goes offline on a network failure and back when the probe succeeds', async () => {
    const t = await signedIn({
      'POST /api/collections/contacts/records': () => 'network-error',
      'GET /api/health': () => json(200, { code: 200, message: 'API is healthy.' }),
    });
    await expect(t.transport.create('contacts', { name: 'A' })).rejects.toMatchObject({ kind: 'network' });
    expect(t.last()).toBe('offline');
    expect(await t.transport.probe()).toBe(true);
    expect(t.last()).toBe('connected');
  });

  it('surfaces validation errors field by field', async () => {
    const t = await signedIn({
      'POST /api/collections/contacts/records': () =>
        json(400, {
          status: 400,
          message: 'Failed to create record.',
          data: { name: { code: 'validation_required', message: 'Cannot be blank.' } },
        }),
    });
    await expect(t.transport.create('contacts', { name: '' })).rejects.toMatchObject({
      kind: 'invalid',
      fieldErrors: { name: { code: 'validation_required', message: 'Cannot be blank.' } },
    });
    expect(t.last()).toBe('connected');
  });

  it('calls /api/relay/health for health() and DELETE for remove()', async () => {
    const t = await signedIn({
      'GET /api/relay/health': () => json(200, { ok: true }),
      'DELETE /api/collections/contacts/records/c1': () => new Response(null, { status: 204 }),
    });
    expect(await t.transport.health()).toEqual({ ok: true });
    await t.transport.remove('contacts', 'c1');
    expect(t.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      `POST ${AUTH}`,
      'GET /api/relay/health',
      'DELETE /api/collections/contacts/records/c1',
    ]);
  });
});

describe('PocketBaseTransport health probe', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });

  const probes = (calls: Call[]) => calls.filter((c) => c.path === '/api/health').length;

  it('probes every 30 s while connected and every 5 s after a failure', async () => {
    let up = true;
    const t = setup({
      [`POST ${AUTH}`]: authOk,
      'GET /api/health': () => (up ? json(200, { code: 200 }) : 'network-error'),
    });
    current = t.transport;
    await t.transport.signIn('ok');
    await vi.advanceTimersByTimeAsync(29_000);
    expect(probes(t.calls)).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(probes(t.calls)).toBe(1);

    up = false;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(probes(t.calls)).toBe(2);
    expect(t.last()).toBe('offline');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(probes(t.calls)).toBe(3);

    up = true;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(probes(t.calls)).toBe(4);
    expect(t.last()).toBe('connected');
  });

  it('gives up on a hanging probe after 10 s and reports offline', async () => {
    const hang = (init?: RequestInit) =>
      new Promise<Response>((_, reject) => {
        init?.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError')));
      });
    const t = setup({ [`POST ${AUTH}`]: authOk, 'GET /api/health': () => hang });
    current = t.transport;
    await t.transport.signIn('ok');
    await vi.advanceTimersByTimeAsync(30_000 + 9_000);
    expect(t.last()).toBe('connected');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(t.last()).toBe('offline');
  });

  it('stops probing after sign-out', async () => {
    const t = setup({ [`POST ${AUTH}`]: authOk, 'GET /api/health': () => json(200, {}) });
    current = t.transport;
    await t.transport.signIn('ok');
    t.transport.signOut();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(probes(t.calls)).toBe(0);
    expect(t.last()).toBe('connecting');
  });
});
