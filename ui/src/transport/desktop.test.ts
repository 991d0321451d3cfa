// Desktop (Tauri) mode with a mocked window.__TAURI__: the server URL comes from the bridge's
// connection_info, sign-in/data/realtime go to that origin with the direct-mode protocol and a
// bearer token, /web/api/mode is never asked; outside the shell the page origin is used as before.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BridgeRefusal, DesktopBridge, createTransport, detectDesktop, serverOrigin, tauriGlobal } from './desktop';
import type { PocketBaseTransport } from './pocketbase';
import { AUTH, FakeEventSource, authOk, json, type Call, type Reply } from './testkit';

const SERVER = 'http://127.0.0.1:8090';
const PAGE = 'tauri://localhost';

function fakeFetch(routes: Record<string, () => Reply>) {
  const calls: (Call & { origin: string })[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    const method = (init?.method ?? 'GET').toUpperCase();
    calls.push({
      origin: url.origin,
      method,
      path: url.pathname,
      search: url.search,
      headers: new Headers(init?.headers),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body,
    });
    const route = routes[`${method} ${url.origin}${url.pathname}`];
    const reply = route ? route() : json(404, { status: 404, message: 'Not found.', data: {} });
    if (reply === 'network-error') throw new TypeError('Load failed');
    return typeof reply === 'function' ? reply(init) : reply;
  });
  return { fetch, calls };
}

function tauriWindow(invoke: (cmd: string, args?: Record<string, unknown>) => Promise<unknown>, origin = PAGE) {
  return { location: { origin }, __TAURI__: { core: { invoke: vi.fn(invoke) } } };
}

const bridgeInfo = (serverUrl = SERVER) => async (cmd: string) => {
  if (cmd === 'connection_info') return { mode: 'server', serverUrl, passphraseAvailable: true, secretStorage: 'owner-only-file' };
  if (cmd === 'share_session') return null;
  throw { code: 'forbidden', message: 'unexpected command' };
};

const opts = { storage: null, events: null };
let current: PocketBaseTransport | undefined;

beforeEach(() => {
  FakeEventSource.instances = [];
  vi.stubGlobal('EventSource', FakeEventSource);
});

afterEach(() => {
  current?.dispose();
  current = undefined;
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('desktop detection', () => {
  it('finds window.__TAURI__.core.invoke only', () => {
    expect(tauriGlobal(undefined)).toBeNull();
    expect(tauriGlobal({})).toBeNull();
    expect(tauriGlobal({ __TAURI__: {} })).toBeNull();
    expect(tauriGlobal({ __TAURI__: { core: { invoke: 'no' } } })).toBeNull();
    expect(tauriGlobal(tauriWindow(bridgeInfo()))).not.toBeNull();
  });

  it('accepts only an http(s) server origin from the bridge', () => {
    expect(serverOrigin('http://127.0.0.1:8090')).toBe('http://127.0.0.1:8090');
    expect(serverOrigin('https://relay.example.com/some/path')).toBe('https://relay.example.com');
    for (const bad of ['', 'tauri://localhost', 'javascript:alert(1)', 'not a url', 'http://u:p@h/', null, 42]) {
      expect(serverOrigin(bad), String(bad)).toBeNull();
    }
  });

  it('returns the bridge connection info, and throws on an unusable one', async () => {
    const w = tauriWindow(bridgeInfo());
    await expect(detectDesktop(w)).resolves.toEqual({ mode: 'server', serverUrl: SERVER, passphraseAvailable: true, secretStorage: 'owner-only-file' });
    expect(w.__TAURI__.core.invoke).toHaveBeenCalledWith('connection_info');
    await expect(detectDesktop({ location: { origin: PAGE } })).resolves.toBeNull();
    await expect(detectDesktop(tauriWindow(bridgeInfo('')))).rejects.toThrow(/no server URL/);
  });
});

describe('desktop transport', () => {
  it('signs in at the bridge server URL, uses the bearer token, never asks /web/api/mode', async () => {
    const { fetch, calls } = fakeFetch({
      [`POST ${SERVER}${AUTH}`]: authOk,
      [`GET ${SERVER}/api/health`]: () => json(200, { code: 200 }),
      [`GET ${SERVER}/api/collections/contacts/records`]: () =>
        json(200, { page: 1, perPage: 1000, totalItems: 1, totalPages: 1, items: [{ id: 'c1', name: 'Ann' }] }),
      [`POST ${SERVER}/api/realtime`]: () => new Response(null, { status: 204 }),
    });
    const t = await createTransport({ window: tauriWindow(bridgeInfo()), fetch, options: opts });
    current = t;
    expect(t.mode).toBe('desktop');
    expect(t.serverUrl).toBe(SERVER);
    expect(t.web).toBeNull();

    await t.signIn('correct horse battery staple');
    expect(t.state).toBe('connected');
    expect(calls[0]).toMatchObject({
      origin: SERVER,
      method: 'POST',
      path: AUTH,
      body: { identity: 'relay', password: 'correct horse battery staple' },
    });
    expect(calls[0].headers.get('X-Relay-CSRF')).toBeNull();
    expect(t.pb.authStore.token).toBe('tok-123');

    await expect(t.getFullList('contacts')).resolves.toEqual([{ id: 'c1', name: 'Ann' }]);
    expect(calls[calls.length - 1].headers.get('Authorization')).toBe('tok-123');

    const sub = t.subscribe('contacts', () => {});
    await vi.waitFor(() => expect(FakeEventSource.instances).toHaveLength(1));
    const es = FakeEventSource.latest()!;
    expect(es.url).toBe(`${SERVER}/api/realtime`);
    es.emit('PB_CONNECT', { clientId: 'cid-1' }, 'cid-1');
    (await sub)();

    expect(calls.every((c) => c.origin === SERVER), JSON.stringify(calls.map((c) => c.origin))).toBe(true);
    expect(calls.some((c) => c.path.startsWith('/web/api'))).toBe(false);
  });

  it('main window: shares its token with the shell after sign-in and drops it on sign-out', async () => {
    const shared: unknown[] = [];
    const w = tauriWindow(async (cmd, args) => {
      if (cmd === 'share_session') {
        shared.push(args?.token);
        return null;
      }
      return bridgeInfo()(cmd);
    });
    const { fetch } = fakeFetch({ [`POST ${SERVER}${AUTH}`]: authOk, [`GET ${SERVER}/api/health`]: () => json(200, { code: 200 }) });
    const t = await createTransport({ window: w, fetch, options: opts });
    current = t;
    expect(t.isSignedIn()).toBe(false);
    await t.signIn('correct horse battery staple');
    await vi.waitFor(() => expect(shared).toEqual(['tok-123']));
    t.signOut();
    await vi.waitFor(() => expect(shared).toEqual(['tok-123', null]));
  });

  it('auxiliary window: borrows the main session (aux_session), never asks connection_info', async () => {
    const asked: string[] = [];
    const w = tauriWindow(async (cmd) => {
      asked.push(cmd);
      if (cmd === 'aux_session') return { serverUrl: SERVER, token: 'tok-main' };
      throw { code: 'forbidden', message: 'auxiliary window may not call this command' };
    });
    w.location = { origin: PAGE, search: '?popout=board' } as typeof w.location;
    const { fetch, calls } = fakeFetch({
      [`GET ${SERVER}/api/collections/oncall/records`]: () =>
        json(200, { page: 1, perPage: 1000, totalItems: 0, totalPages: 0, items: [] }),
      [`GET ${SERVER}/api/health`]: () => json(200, { code: 200 }),
    });
    const t = await createTransport({ window: w, fetch, options: opts });
    current = t;
    expect(asked).toEqual(['aux_session']);
    expect(t.mode).toBe('desktop');
    expect(t.serverUrl).toBe(SERVER);
    expect(t.isSignedIn()).toBe(true);
    expect(t.state).toBe('connected');
    await t.getFullList('oncall');
    expect(calls.find((c) => c.path.endsWith('/oncall/records'))?.headers.get('Authorization')).toBe('tok-main');
  });

  it('auxiliary window before the main window signed in: server URL only, sign-in screen', async () => {
    const w = tauriWindow(async (cmd) => (cmd === 'aux_session' ? { serverUrl: SERVER, token: null } : null));
    w.location = { origin: PAGE, search: '?popout=oncall' } as typeof w.location;
    const t = await createTransport({ window: w, fetch: fakeFetch({}).fetch, options: opts });
    current = t;
    expect(t.serverUrl).toBe(SERVER);
    expect(t.isSignedIn()).toBe(false);
  });

  it('uses connection info the caller already has without asking the bridge again', async () => {
    const asked: string[] = [];
    const w = tauriWindow(async (cmd) => {
      asked.push(cmd);
      return null;
    });
    const info = { mode: 'server' as const, serverUrl: SERVER, passphraseAvailable: true, secretStorage: 'owner-only-file' as const };
    const t = await createTransport({ window: w, fetch: fakeFetch({}).fetch, options: opts, desktop: info });
    current = t;
    expect(t.mode).toBe('desktop');
    expect(t.serverUrl).toBe(SERVER);
    expect(asked).toEqual([]);
  });

  it('falls back to the page origin (with mode detection) when the bridge refuses', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    const page = 'http://localhost:8091';
    const { fetch, calls } = fakeFetch({});
    const w = tauriWindow(async () => Promise.reject({ code: 'forbidden', message: 'untrusted sender' }), page);
    const t = await createTransport({ window: w, fetch, options: opts });
    current = t;
    expect(t.mode).toBe('direct');
    expect(t.serverUrl).toBe(page);
    expect(err).toHaveBeenCalled();
    expect(calls.map((c) => `${c.origin}${c.path}`)).toEqual([`${page}/web/api/mode`]);
  });

  it('outside the desktop shell keeps detecting Relay Web on the page origin', async () => {
    const page = 'http://gw.local:8091';
    const { fetch, calls } = fakeFetch({
      [`GET ${page}/web/api/mode`]: () => json(200, { mode: 'relay-web', cleartextHttp: true }),
    });
    const t = await createTransport({ window: { location: { origin: page } }, fetch, options: opts });
    current = t;
    expect(t.mode).toBe('relay-web');
    expect(t.serverUrl).toBe(page);
    expect(calls).toHaveLength(1);
  });
});

describe('DesktopBridge (passphrase, stability and external-link commands)', () => {
  it('is absent outside the shell', () => {
    expect(DesktopBridge.of({})).toBeNull();
  });

  it('reveals, remembers and forgets through the typed commands only', async () => {
    const seen: [string, Record<string, unknown> | undefined][] = [];
    const w = tauriWindow(async (cmd, args) => {
      seen.push([cmd, args]);
      if (cmd === 'reveal_passphrase') return 'correct horse battery';
      if (cmd === 'remember_passphrase') return { storage: 'os-secret-store' };
      if (cmd === 'forget_passphrase') return null;
      if (cmd === 'connection_info')
        return { mode: 'client', serverUrl: SERVER, passphraseAvailable: true, secretStorage: 'os-secret-store' };
      throw { code: 'forbidden', message: 'caller not allowed' };
    });
    const bridge = DesktopBridge.of(w)!;
    expect(await bridge.info()).toEqual({
      mode: 'client',
      serverUrl: SERVER,
      passphraseAvailable: true,
      secretStorage: 'os-secret-store',
    });
    expect(await bridge.revealPassphrase()).toBe('correct horse battery');
    expect(await bridge.rememberPassphrase('correct horse battery')).toBe('os-secret-store');
    await bridge.forgetPassphrase();
    expect(seen.map(([c]) => c)).toEqual(['connection_info', 'reveal_passphrase', 'remember_passphrase', 'forget_passphrase']);
    expect(seen[2][1]).toEqual({ passphrase: 'correct horse battery' });
    await expect(bridge.stability()).rejects.toThrow('caller not allowed');
  });

  it('treats unknown storage as memory-only and refusals as errors with the bridge message', async () => {
    const w = tauriWindow(async (cmd) => {
      if (cmd === 'connection_info') return { mode: 'client', serverUrl: SERVER, secretStorage: 'plaintext' };
      if (cmd === 'remember_passphrase')
        throw { code: 'unavailable', message: 'the OS secret store is unavailable and this packaged build does not keep secrets in plaintext' };
      if (cmd === 'reveal_passphrase') return '';
      if (cmd === 'stability_status') return { failures: 4, warningAtMs: 1700000000000 };
      throw new Error('unexpected');
    });
    const bridge = DesktopBridge.of(w)!;
    expect((await bridge.info())?.secretStorage).toBe('memory-only');
    expect((await bridge.info())?.passphraseAvailable).toBe(false);
    await expect(bridge.rememberPassphrase('correct horse battery')).rejects.toThrow(/plaintext/);
    await expect(bridge.revealPassphrase()).rejects.toThrow('No passphrase is available.');
    expect(await bridge.stability()).toEqual({ failures: 4, warningAtMs: 1700000000000 });
  });

  it('opens an external link with open_external { url } and surfaces a refusal', async () => {
    const seen: [string, Record<string, unknown> | undefined][] = [];
    const w = tauriWindow(async (cmd, args) => {
      seen.push([cmd, args]);
      if (cmd === 'open_external' && args?.url === 'https://www.githubstatus.com/') return { url: args.url, kind: null };
      throw { code: 'rateLimited', message: 'too many links; try again in 1 s' };
    });
    const bridge = DesktopBridge.of(w)!;
    await bridge.openExternal('https://www.githubstatus.com/');
    expect(seen).toEqual([['open_external', { url: 'https://www.githubstatus.com/' }]]);
    await expect(bridge.openExternal('https://x.com/githubstatus')).rejects.toThrow(/too many links/);
  });
});

describe('desktop setup (first start)', () => {
  it('reports setup mode with no server URL and builds no desktop transport for it', async () => {
    const w = tauriWindow(async (cmd) => {
      if (cmd === 'connection_info') return { mode: 'setup', serverUrl: '', passphraseAvailable: false, secretStorage: 'os-secret-store' };
      throw { code: 'forbidden', message: 'unexpected command' };
    });
    expect(await detectDesktop(w)).toEqual({ mode: 'setup', serverUrl: '', passphraseAvailable: false, secretStorage: 'os-secret-store' });
    // A client/server answer without a usable URL is still refused.
    const broken = tauriWindow(async () => ({ mode: 'client', serverUrl: '' }));
    await expect(detectDesktop(broken)).rejects.toThrow(/no server URL/);
  });

  it('saves the choice, resets it, and keeps only origin-shaped discovery results', async () => {
    const seen: [string, Record<string, unknown> | undefined][] = [];
    const w = tauriWindow(async (cmd, args) => {
      seen.push([cmd, args]);
      if (cmd === 'discover_servers')
        return [
          { name: 'Relay on noc-1', host: '192.168.1.5', port: 8090, url: 'http://192.168.1.5:8090' },
          { name: 'bad', host: 'x', port: 1, url: 'javascript:alert(1)' },
          null,
        ];
      if (cmd === 'save_setup' && (args?.setup as { serverUrl?: string })?.serverUrl === 'http://relay.example.com')
        throw { code: 'invalid', message: 'server URL: plain HTTP is only allowed for LAN servers' };
      return null;
    });
    const bridge = DesktopBridge.of(w)!;
    expect(await bridge.discoverServers()).toEqual([
      { name: 'Relay on noc-1', host: '192.168.1.5', port: 8090, url: 'http://192.168.1.5:8090' },
    ]);
    await bridge.saveSetup({ mode: 'server', lanAccess: true });
    await expect(bridge.saveSetup({ mode: 'client', serverUrl: 'http://relay.example.com', allowInsecureHttp: false })).rejects.toThrow(
      /plain HTTP/,
    );
    await bridge.resetSetup();
    expect(seen.map(([c]) => c)).toEqual(['discover_servers', 'save_setup', 'save_setup', 'reset_setup']);
    expect(seen[1][1]).toEqual({ setup: { mode: 'server', lanAccess: true } });
  });
});

describe('desktop client mode signs in through the shell', () => {
  function clientWindow(signIn: (passphrase: unknown) => unknown) {
    const asked: [string, Record<string, unknown> | undefined][] = [];
    const w = tauriWindow(async (cmd, args) => {
      asked.push([cmd, args]);
      if (cmd === 'connection_info')
        return { mode: 'client', serverUrl: SERVER, passphraseAvailable: true, secretStorage: 'os-secret-store' };
      if (cmd === 'sign_in') return signIn(args?.passphrase);
      if (cmd === 'share_session') return null;
      throw { code: 'forbidden', message: 'unexpected' };
    });
    return { w, asked };
  }

  it('typed or remembered, the token comes from sign_in and no password goes over HTTP from here', async () => {
    const { w, asked } = clientWindow((p) => ({ token: p === null ? 'tok-saved' : 'tok-typed', expiresAt: 1 }));
    const { fetch, calls } = fakeFetch({ [`GET ${SERVER}/api/health`]: () => json(200, { code: 200 }) });
    const t = await createTransport({ window: w, fetch, options: opts });
    current = t;
    await t.signIn('correct horse battery staple');
    expect(t.pb.authStore.token).toBe('tok-typed');
    expect(t.state).toBe('connected');
    t.signOut();
    await t.signInWithSaved();
    expect(t.pb.authStore.token).toBe('tok-saved');
    const signIns = asked.filter(([c]) => c === 'sign_in').map(([, a]) => a);
    expect(signIns).toEqual([{ passphrase: 'correct horse battery staple' }, { passphrase: null }]);
    expect(calls.some((c) => c.path === AUTH)).toBe(false);
  });

  it('maps the shell refusals: rejected stays a rejection, unavailable is a network failure', async () => {
    let answer: unknown = { code: 'rejected', message: 'the server refused the passphrase' };
    const { w } = clientWindow(() => Promise.reject(answer));
    const t = await createTransport({ window: w, fetch: fakeFetch({}).fetch, options: opts });
    current = t;
    await expect(t.signIn('wrong passphrase here')).rejects.toMatchObject({ kind: 'rejected' });
    expect(t.state).toBe('auth-failed');
    answer = { code: 'unavailable', message: 'server unreachable' };
    await expect(t.signInWithSaved()).rejects.toMatchObject({ kind: 'network' });
    answer = { code: 'invalid', message: 'invalid passphrase' };
    await expect(t.signIn('x')).rejects.toMatchObject({ kind: 'invalid' });
    expect(t.pb.authStore.token).toBe('');
  });

  it('server mode keeps signing in over HTTP (no shell sign-in)', async () => {
    const t = await createTransport({ window: tauriWindow(bridgeInfo()), fetch: fakeFetch({}).fetch, options: opts });
    current = t;
    await expect(t.signInWithSaved()).rejects.toMatchObject({ kind: 'invalid' });
  });
});

describe('DesktopBridge offline commands (client mode)', () => {
  function recording(answer: (cmd: string, args?: Record<string, unknown>) => unknown) {
    const seen: [string, Record<string, unknown> | undefined][] = [];
    const w = tauriWindow(async (cmd, args) => {
      seen.push([cmd, args]);
      return answer(cmd, args);
    });
    return { bridge: DesktopBridge.of(w)!, seen };
  }

  it('reads the status with every field present and out-of-range values cleaned', async () => {
    const { bridge, seen } = recording(() => ({
      pendingCount: 3,
      issueCount: 1,
      replaying: true,
      progress: [7, 5],
      lastError: '',
      lastReplay: { total: 4, synced: 3, conflicts: 1, failed: 0, stopped: 'The server went away.' },
      storageNotice: 'The offline cache could not be saved.',
    }));
    expect(await bridge.status()).toEqual({
      pendingCount: 3,
      issueCount: 1,
      replaying: true,
      progress: [5, 5],
      lastError: null,
      lastReplay: { total: 4, synced: 3, conflicts: 1, failed: 0, stopped: 'The server went away.' },
      storageNotice: 'The offline cache could not be saved.',
    });
    expect(seen).toEqual([['offline_status', undefined]]);
    const empty = recording(() => null).bridge;
    expect(await empty.status()).toEqual({ pendingCount: 0, issueCount: 0, replaying: false, progress: null, lastError: null, lastReplay: null, storageNotice: null });
  });

  it('puts and reads the cache by collection; null means nothing cached yet', async () => {
    const records = [{ id: 'abcdefghijklmno', name: 'Ann' }];
    const { bridge, seen } = recording((cmd, args) =>
      cmd === 'offline_cache_read' && args?.collection === 'contacts' ? { records, fetchedAtMs: 1764770000000 } : null,
    );
    await bridge.cachePut('contacts', records);
    expect(await bridge.cacheRead('contacts')).toEqual({ records, fetchedAtMs: 1764770000000 });
    expect(await bridge.cacheRead('servers')).toBeNull();
    expect(seen).toEqual([
      ['offline_cache_put', { collection: 'contacts', records }],
      ['offline_cache_read', { collection: 'contacts' }],
      ['offline_cache_read', { collection: 'servers' }],
    ]);
  });

  it('queues a mutation and hands back the optimistic record; refusals keep their code and text', async () => {
    const { bridge, seen } = recording((_cmd, args) => {
      const m = args?.mutation as { collection: string; action: string; recordId?: string };
      if (m.collection === 'users') throw { code: 'invalid', message: 'Collection is not available offline' };
      if (m.action === 'delete') return { mutationId: 'm2', changeId: 8, recordId: m.recordId, record: null, pendingCount: 2 };
      return { mutationId: 'm1', changeId: 7, recordId: 'newid0000000001', record: { id: 'newid0000000001', name: 'Bo' }, pendingCount: 1 };
    });
    expect(await bridge.mutate({ collection: 'contacts', action: 'create', data: { name: 'Bo' } })).toEqual({
      mutationId: 'm1',
      changeId: 7,
      recordId: 'newid0000000001',
      record: { id: 'newid0000000001', name: 'Bo' },
      pendingCount: 1,
    });
    expect((await bridge.mutate({ collection: 'contacts', action: 'delete', recordId: 'abcdefghijklmno' })).record).toBeNull();
    expect(seen[0]).toEqual(['offline_mutate', { mutation: { collection: 'contacts', action: 'create', data: { name: 'Bo' } } }]);
    const refusal = await bridge.mutate({ collection: 'users', action: 'create', data: {} }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(BridgeRefusal);
    expect(refusal).toMatchObject({ code: 'invalid', message: 'Collection is not available offline' });
  });

  it('replays, surfacing the sign-in refusal as unavailable', async () => {
    let signedIn = false;
    const { bridge } = recording(() => {
      if (!signedIn) throw { code: 'unavailable', message: 'Sign in to the Relay server to sync offline changes.' };
      return { total: 2, synced: 1, conflicts: 1, failed: 0, stopped: null };
    });
    await expect(bridge.replay()).rejects.toMatchObject({ code: 'unavailable', message: 'Sign in to the Relay server to sync offline changes.' });
    signedIn = true;
    expect(await bridge.replay()).toEqual({ total: 2, synced: 1, conflicts: 1, failed: 0, stopped: null });
  });

  it('lists pending changes page by page, reviews one and resolves it with its token', async () => {
    const { bridge, seen } = recording((_cmd, args) => {
      const r = args?.request as { action: string; afterId?: number };
      if (r.action === 'list')
        return r.afterId === undefined
          ? { items: [{ id: 4, collection: 'contacts', action: 'update', recordId: 'abcdefghijklmno', label: 'Ann', reason: 'Server conflict' }, { bogus: true }], nextAfterId: 4 }
          : { items: [], nextAfterId: null };
      if (r.action === 'review')
        return { token: 'tok-r', change: { action: 'update' }, local: { name: 'Ann B' }, server: { state: 'present', record: { name: 'Ann C' } } };
      return { resolved: true };
    });
    expect(await bridge.pendingChanges()).toEqual({
      items: [{ id: 4, collection: 'contacts', action: 'update', recordId: 'abcdefghijklmno', label: 'Ann', reason: 'Server conflict' }],
      nextAfterId: 4,
    });
    expect(await bridge.pendingChanges(4)).toEqual({ items: [], nextAfterId: null });
    expect(await bridge.reviewChange(4)).toEqual({
      token: 'tok-r',
      change: { action: 'update' },
      local: { name: 'Ann B' },
      server: { state: 'present', record: { name: 'Ann C' } },
    });
    await bridge.resolveChange('tok-r', 'retry', { name: 'Ann D' });
    await bridge.resolveChange('tok-r', 'server', { name: 'ignored' });
    expect(seen.map(([c, a]) => [c, a?.request])).toEqual([
      ['pending_changes', { action: 'list' }],
      ['pending_changes', { action: 'list', afterId: 4 }],
      ['pending_changes', { action: 'review', id: 4 }],
      ['pending_changes', { action: 'resolve', token: 'tok-r', resolution: 'retry', edits: { name: 'Ann D' } }],
      ['pending_changes', { action: 'resolve', token: 'tok-r', resolution: 'server' }],
    ]);
  });

  it('explains a server copy that is gone or unreadable', async () => {
    let server: unknown = { state: 'deleted' };
    const { bridge } = recording(() => ({ token: 't', change: {}, local: null, server }));
    expect((await bridge.reviewChange(1)).server).toEqual({ state: 'deleted' });
    server = { state: 'present' };
    expect((await bridge.reviewChange(1)).server).toEqual({ state: 'unavailable' });
  });

  it('gives the offline bridge to a client-mode main window only', async () => {
    const client = tauriWindow(async (cmd) => {
      if (cmd === 'connection_info') return { mode: 'client', serverUrl: SERVER, passphraseAvailable: false, secretStorage: 'os-secret-store' };
      return null;
    });
    const t = await createTransport({ window: client, fetch: fakeFetch({}).fetch, options: opts });
    current = t;
    expect(t.offline).toBeInstanceOf(DesktopBridge);
    const server = await createTransport({ window: tauriWindow(bridgeInfo()), fetch: fakeFetch({}).fetch, options: opts });
    expect(server.offline).toBeNull();
    server.dispose();
    const page = await createTransport({ window: { location: { origin: 'http://gw.local:8091' } }, fetch: fakeFetch({}).fetch, options: opts });
    expect(page.offline).toBeNull();
    page.dispose();
  });
});
