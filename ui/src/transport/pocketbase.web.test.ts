// PocketBaseTransport in Relay Web mode against a routed fake gateway: mode detection,
// passphrase sign-in → cookie session + CSRF + app token (memory-only), CSRF on writes,
// refresh rotation, sign-out voiding in-flight refreshes, in-place re-authentication and resuming
// the cookie session after a reload.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PocketBaseTransport } from './pocketbase';
import { json, type Call, type Reply } from './testkit';
import type { ConnectionState } from './types';
import { detectWebMode, sessionRefreshDelayMs, tokenRenewDelayMs } from './webSession';

const b64 = (o: object) => btoa(JSON.stringify(o)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
const jwt = (n: number) => `${b64({ alg: 'HS256' })}.${b64({ id: 'u1', exp: 1_000_900 + n, iat: 1_000_000 + n })}.sig${n}`;
const CONN = 'POST /web/api/connection';

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function setup(routes: Record<string, () => Reply>) {
  const calls: Call[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    const method = (init?.method ?? 'GET').toUpperCase();
    calls.push({ method, path: url.pathname, search: url.search, headers: new Headers(init?.headers), body: typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body });
    const route = routes[`${method} ${url.pathname}`];
    const reply = route ? route() : json(404, { status: 404, message: 'Not found.', data: {} });
    if (reply === 'network-error') throw new TypeError('fetch failed');
    return typeof reply === 'function' ? reply(init) : reply;
  });
  const storage = { removeItem: vi.fn() };
  const transport = new PocketBaseTransport({ origin: 'http://localhost:8091', fetch, storage, web: { mode: 'relay-web', cleartextHttp: true }, events: null });
  const states: ConnectionState[] = [];
  transport.onStateChange((s) => states.push(s));
  return { transport, calls, storage, fetch, last: () => states[states.length - 1] };
}

let n = 0;
const gateway = (extra: Record<string, () => Reply> = {}): Record<string, () => Reply> => ({
  'POST /web/api/session': () => json(200, { csrfToken: 'csrf-1', expiresAt: '2099-01-01 00:00:00.000Z' }),
  [CONN]: () => json(200, { token: jwt(++n), record: { id: 'u1', collectionName: 'users' } }),
  'POST /web/api/session/logout': () => new Response(null, { status: 204 }),
  'GET /api/health': () => json(200, { code: 200 }),
  'POST /api/collections/contacts/records': () => json(200, { id: 'c1', name: 'Ada' }),
  'GET /api/collections/contacts/records': () => json(200, { page: 1, perPage: 1000, totalItems: 0, totalPages: 0, items: [] }),
  ...extra,
});

afterEach(() => {
  vi.useRealTimers();
});

describe('Relay Web mode', () => {
  it('detects the gateway from /web/api/mode and not the data API', async () => {
    const f = vi.fn(async (u: RequestInfo | URL) =>
      String(u).endsWith('/web/api/mode') && String(u).startsWith('http://gw') ? json(200, { mode: 'relay-web', cleartextHttp: true }) : json(404, {}),
    );
    await expect(detectWebMode('http://gw', f)).resolves.toEqual({ mode: 'relay-web', cleartextHttp: true });
    await expect(detectWebMode('http://api', f)).resolves.toBeNull();
    await expect(detectWebMode('http://x', async () => { throw new TypeError('down'); })).resolves.toBeNull();
  });

  it('signs in with the passphrase, keeps CSRF and token in memory, sends CSRF on writes only', async () => {
    const { transport, calls, storage, last } = setup(gateway());
    expect(storage.removeItem).toHaveBeenCalledWith('pocketbase_auth');
    expect(transport.mode).toBe('relay-web');
    await transport.signIn('pw');
    expect(last()).toBe('connected');
    expect(calls[0]).toMatchObject({ method: 'POST', path: '/web/api/session', body: { passphrase: 'pw' } });
    expect(calls[0].headers.get('X-Relay-CSRF')).toBeNull();
    expect(calls[1].path).toBe('/web/api/connection');
    expect(calls[1].headers.get('X-Relay-CSRF')).toBe('csrf-1');
    expect(calls.some((c) => c.path.endsWith('/auth-with-password'))).toBe(false);
    expect(transport.pb.authStore.token).toBe(jwt(n));

    await transport.create('contacts', { name: 'Ada' });
    await transport.getFullList('contacts');
    const write = calls.find((c) => c.method === 'POST' && c.path === '/api/collections/contacts/records')!;
    expect(write.headers.get('X-Relay-CSRF')).toBe('csrf-1');
    expect(write.headers.get('Authorization')).toBe(jwt(n));
    const read = calls.find((c) => c.method === 'GET' && c.path === '/api/collections/contacts/records')!;
    expect(read.headers.get('X-Relay-CSRF')).toBeNull();
    expect(storage.removeItem).toHaveBeenCalledTimes(1); // nothing is ever written anywhere
    transport.dispose();
  });

  it('maps a wrong passphrase to rejected and 429 to a retry-after', async () => {
    const bad = setup(gateway({ 'POST /web/api/session': () => json(400, { status: 400, message: 'Failed to authenticate.', data: {} }) }));
    await expect(bad.transport.signIn('nope')).rejects.toMatchObject({ kind: 'rejected' });
    expect(bad.last()).toBe('auth-failed');
    bad.transport.dispose();
    const limited = setup(gateway({ 'POST /web/api/session': () => json(429, { status: 429, message: 'Too many.', data: {} }, { 'Retry-After': '30' }) }));
    await expect(limited.transport.signIn('pw')).rejects.toMatchObject({ kind: 'rate-limited', retryAfterSeconds: 30 });
    limited.transport.dispose();
  });

  it('refreshes the session before expiry and installs the rotated CSRF token', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { transport, calls } = setup(gateway({
      'POST /web/api/session/refresh': () => json(200, { csrfToken: 'csrf-2', expiresAt: '2099-01-01 00:00:00.000Z' }),
    }));
    await transport.signIn('pw');
    await vi.advanceTimersByTimeAsync(20 * 60_000);
    const refresh = calls.find((c) => c.path === '/web/api/session/refresh')!;
    expect(refresh.headers.get('X-Relay-CSRF')).toBe('csrf-1');
    expect(transport.web!.csrfToken).toBe('csrf-2');
    await transport.create('contacts', { name: 'Ada' });
    expect(calls[calls.length - 1].headers.get('X-Relay-CSRF')).toBe('csrf-2');
    transport.dispose();
  });

  it('renews the app token before its exp', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { transport, calls } = setup(gateway());
    await transport.signIn('pw');
    const first = transport.pb.authStore.token;
    expect(tokenRenewDelayMs(first)).toBe(840_000); // 15 min lifetime − 60 s
    await vi.advanceTimersByTimeAsync(840_000);
    expect(calls.filter((c) => c.path === '/web/api/connection')).toHaveLength(2);
    expect(transport.pb.authStore.token).not.toBe(first);
    transport.dispose();
  });

  it('sign-out calls logout, clears credentials and voids an in-flight refresh', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const late = deferred<Response>();
    const { transport, calls } = setup(gateway({ 'POST /web/api/session/refresh': () => late.promise }));
    await transport.signIn('pw');
    await vi.advanceTimersByTimeAsync(20 * 60_000); // the refresh is now in flight
    expect(calls.some((c) => c.path === '/web/api/session/refresh')).toBe(true);
    const connectsBefore = calls.filter((c) => c.path === '/web/api/connection').length;
    transport.signOut();
    expect(calls[calls.length - 1]).toMatchObject({ path: '/web/api/session/logout' });
    expect(calls[calls.length - 1].headers.get('X-Relay-CSRF')).toBe('csrf-1');
    late.resolve(json(200, { csrfToken: 'csrf-late', expiresAt: '2099-01-01 00:00:00.000Z' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(transport.web!.csrfToken).toBeNull();
    expect(transport.pb.authStore.token).toBe('');
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect(calls.filter((c) => c.path === '/web/api/connection')).toHaveLength(connectsBefore); // no renewal after sign-out
    transport.dispose();
  });

  it('a sign-out during the connection step installs nothing', async () => {
    const slow = deferred<Response>();
    const { transport } = setup(gateway({ [CONN]: () => slow.promise }));
    const p = transport.signIn('pw');
    await new Promise((r) => setTimeout(r, 0));
    transport.signOut();
    slow.resolve(json(200, { token: jwt(99), record: { id: 'u1' } }));
    await p.catch(() => {});
    expect(transport.pb.authStore.token).toBe('');
    expect(transport.web!.csrfToken).toBeNull();
    transport.dispose();
  });

  it('a gateway 401 re-authenticates in place once and retries; the generation reset fires', async () => {
    let writes = 0;
    const { transport, calls, last } = setup(gateway({
      'POST /api/collections/contacts/records': () => (++writes === 1 ? json(401, { status: 401, message: 'sign in to Relay Web', data: {} }) : json(200, { id: 'c1' })),
    }));
    const resets = vi.fn();
    transport.onClientReset(resets);
    await transport.signIn('pw');
    await expect(transport.create('contacts', { name: 'Ada' })).resolves.toMatchObject({ id: 'c1' });
    expect(calls.filter((c) => c.path === '/web/api/connection')).toHaveLength(2);
    const retried = calls.filter((c) => c.path === '/api/collections/contacts/records');
    expect(retried[1].headers.get('Authorization')).toBe(jwt(n));
    expect(resets).toHaveBeenCalledTimes(1);
    expect(last()).toBe('connected');
    transport.dispose();
  });

  it('a 401 from /web/api/connection means sign in again; network errors never erase that', async () => {
    let conn = 0;
    const routes = gateway({
      'GET /api/collections/contacts/records': () => json(401, { status: 401, message: 'sign in to Relay Web', data: {} }),
    });
    const base = routes[CONN];
    routes[CONN] = () => (++conn === 1 ? base() : json(401, { status: 401, message: 'no session', data: {} }));
    const { transport, last } = setup(routes);
    await transport.signIn('pw');
    await expect(transport.getFullList('contacts')).rejects.toMatchObject({ kind: 'rejected' });
    expect(last()).toBe('auth-failed');
    expect(transport.web!.csrfToken).toBeNull();
    expect(transport.pb.authStore.token).toBe('');
    routes['GET /api/health'] = () => 'network-error';
    await transport.probe();
    expect(last()).toBe('auth-failed');
    routes['GET /api/health'] = () => json(200, {});
    await transport.probe();
    expect(last()).toBe('auth-failed');
    transport.dispose();
  });

  it('a reload resumes the cookie session: CSRF fetched again, app token issued, no passphrase', async () => {
    const { transport, calls, last } = setup(gateway({
      'POST /web/api/session/resume': () => json(200, { csrfToken: 'csrf-r', expiresAt: '2099-01-01 00:00:00.000Z' }),
    }));
    const [a, b] = [transport.resumeSession(), transport.resumeSession()];
    expect(a).toBe(b); // single-flight (StrictMode runs the effect twice)
    await expect(a).resolves.toBe(true);
    expect(calls.map((c) => c.path)).toEqual(['/web/api/session/resume', '/web/api/connection']);
    expect(calls[0].headers.get('X-Relay-CSRF')).toBeNull();
    expect(calls[0].body).toBeUndefined();
    expect(calls[1].headers.get('X-Relay-CSRF')).toBe('csrf-r');
    expect(transport.web!.csrfToken).toBe('csrf-r');
    expect(transport.isSignedIn()).toBe(true);
    expect(last()).toBe('connected');
    await transport.create('contacts', { name: 'Ada' });
    expect(calls[calls.length - 1].headers.get('X-Relay-CSRF')).toBe('csrf-r');
    transport.dispose();
  });

  it('no live session, a refused connection or no gateway: resume says false and keeps nothing', async () => {
    for (const extra of [
      { 'POST /web/api/session/resume': () => new Response(null, { status: 204 }) },
      { 'POST /web/api/session/resume': () => json(429, { status: 429, message: 'too many requests', data: {} }) },
      { 'POST /web/api/session/resume': () => 'network-error' as const },
      { 'POST /web/api/session/resume': () => json(200, {}) },
      {
        'POST /web/api/session/resume': () => json(200, { csrfToken: 'csrf-r' }),
        [CONN]: () => json(401, { status: 401, message: 'no session', data: {} }),
      },
    ] as Record<string, () => Reply>[]) {
      const { transport } = setup(gateway(extra));
      await expect(transport.resumeSession()).resolves.toBe(false);
      expect(transport.web!.csrfToken).toBeNull();
      expect(transport.isSignedIn()).toBe(false);
      transport.dispose();
    }
    const direct = new PocketBaseTransport({ origin: 'http://localhost:8090', fetch: vi.fn(), storage: null, events: null });
    await expect(direct.resumeSession()).resolves.toBe(false);
    direct.dispose();
  });

  it('signing out while a resume is in flight installs nothing', async () => {
    const late = deferred<Response>();
    const { transport } = setup(gateway({ 'POST /web/api/session/resume': () => late.promise }));
    const p = transport.resumeSession();
    transport.signOut();
    late.resolve(json(200, { csrfToken: 'csrf-r' }));
    await expect(p).resolves.toBe(false);
    expect(transport.web!.csrfToken).toBeNull();
    expect(transport.isSignedIn()).toBe(false);
    transport.dispose();
  });

  it('schedules the session refresh inside the idle limit and before the absolute expiry', () => {
    const now = Date.parse('2026-12-02T14:00:00Z');
    expect(sessionRefreshDelayMs('2026-12-02 22:00:00.000Z', now)).toBe(20 * 60_000);
    expect(sessionRefreshDelayMs('2026-12-02 14:10:00.000Z', now)).toBe(9 * 60_000);
    expect(sessionRefreshDelayMs('2026-12-02 14:00:10.000Z', now)).toBe(5_000);
  });
});
