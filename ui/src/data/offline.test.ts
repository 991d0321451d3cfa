// The data layer in desktop client mode over a fake transport and a fake shell: online loads
// are kept in the offline cache, an outage reloads the collections from it ("cached" with its
// time, or nothing cached yet), writes go to the shell's queue and show their optimistic
// record, the way back replays once and then reloads; Relay Web and a transport without the
// shell's bridge keep refusing writes while offline.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signedInGateway } from '../transport/testkit';
import { TransportError, type ConnectionState, type RealtimeEvent, type Transport } from '../transport/types';
import { NO_CACHED_DATA } from './collection';
import { OFFLINE_WRITE_MESSAGE, SYNCING_WRITE_MESSAGE, WriteGate } from './gate';
import { fakeOffline } from './offlineTestkit';
import { CACHE_REFRESH_DELAY_MS, DataStores } from './store';

interface Rec { id: string; created: string; updated: string; name: string }
const r = (id: string, name: string): Rec => ({ id, name, created: '2026-12-02 10:00:00.000Z', updated: '2026-12-02 10:00:00.000Z' });
const flush = () => new Promise((res) => setTimeout(res, 0));
const ID = 'abcdefghijklmno';

function clientMode(server: Rec[] = [r(ID, 'Ann')]) {
  const f = fakeOffline();
  const stateCbs: ((s: ConnectionState) => void)[] = [];
  let reachable = true;
  const t = {
    mode: 'desktop',
    offline: f.bridge,
    getFullList: vi.fn(async () => {
      if (!reachable) throw new TransportError({ kind: 'network', status: 0, message: 'Cannot reach the Relay server.' });
      return server;
    }),
    subscribe: vi.fn(async (_c: string, _cb: (e: RealtimeEvent) => void) => () => {}),
    onStateChange: vi.fn((cb: (s: ConnectionState) => void) => {
      stateCbs.push(cb);
      cb('connected');
      return () => {};
    }),
    create: vi.fn(async (_c: string, data: object) => ({ id: 'online', ...data })),
    update: vi.fn(),
    remove: vi.fn(),
    importRecords: vi.fn(),
    heartbeat: vi.fn(async () => {}),
  } as unknown as Transport & { getFullList: ReturnType<typeof vi.fn>; create: ReturnType<typeof vi.fn> };
  const stores = new DataStores(t, new WriteGate(() => true));
  const detach = stores.attach();
  const state = (s: ConnectionState) => {
    reachable = s !== 'offline';
    stateCbs.forEach((c) => c(s));
  };
  return { f, t, stores, detach, state };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('desktop client mode: the offline cache', () => {
  it('keeps each online load in the shell cache, and a failing put only logs', async () => {
    const c = clientMode();
    const s = c.stores.get<Rec>('contacts');
    s.subscribe(() => {});
    await flush();
    expect(c.f.bridge.cachePut).toHaveBeenCalledWith('contacts', [r(ID, 'Ann')]);
    expect(s.snapshot).toMatchObject({ status: 'ready', cached: null });
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    c.f.bridge.cachePut.mockRejectedValueOnce(new Error('disk full'));
    s.load();
    await flush();
    expect(err).toHaveBeenCalledWith('relay offline: offline_cache_put contacts failed', expect.any(Error));
    expect(s.snapshot.status).toBe('ready');
    c.detach();
  });

  it('keeps the cache current as live changes arrive (debounced), never with offline data', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const c = clientMode();
      const s = c.stores.get<Rec>('contacts');
      s.subscribe(() => {});
      await vi.advanceTimersByTimeAsync(0);
      const live = (c.t.subscribe as ReturnType<typeof vi.fn>).mock.calls[0][1] as (e: RealtimeEvent) => void;
      expect(c.f.bridge.cachePut).toHaveBeenCalledTimes(1);
      live({ action: 'update', record: { ...r(ID, 'Ann (renamed)'), updated: '2026-12-02 11:00:00.000Z' } });
      await vi.advanceTimersByTimeAsync(CACHE_REFRESH_DELAY_MS - 1);
      live({ action: 'create', record: r('bcdefghijklmnop', 'Bo') });
      await vi.advanceTimersByTimeAsync(CACHE_REFRESH_DELAY_MS - 1);
      expect(c.f.bridge.cachePut).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(c.f.bridge.cachePut).toHaveBeenCalledTimes(2);
      expect(c.f.cache.get('contacts')?.records).toMatchObject([{ name: 'Ann (renamed)' }, { name: 'Bo' }]);
      // A change just before the outage: the timer fires after it and writes nothing.
      live({ action: 'delete', record: r('bcdefghijklmnop', 'Bo') });
      c.state('offline');
      await vi.advanceTimersByTimeAsync(CACHE_REFRESH_DELAY_MS * 2);
      expect(c.f.bridge.cachePut).toHaveBeenCalledTimes(2);
      // Offline writes show optimistic records without touching the cache snapshot.
      await c.stores.gated.create<Rec>('contacts', { name: 'Cy' });
      await vi.advanceTimersByTimeAsync(CACHE_REFRESH_DELAY_MS * 2);
      expect(c.f.bridge.cachePut).toHaveBeenCalledTimes(2);
      c.detach();
    } finally {
      vi.useRealTimers();
    }
  });

  it('an outage reloads the collections from the cache and says from when', async () => {
    const c = clientMode();
    const s = c.stores.get<Rec>('contacts');
    s.subscribe(() => {});
    await flush();
    c.f.cache.set('contacts', { records: [r(ID, 'Ann (cached)')], fetchedAtMs: 1764770000000 });
    c.state('offline');
    await flush();
    expect(c.t.getFullList).toHaveBeenCalledTimes(1);
    expect(c.f.cacheReads).toHaveBeenCalledWith('contacts');
    expect(s.snapshot).toMatchObject({ status: 'ready', cached: 1764770000000 });
    expect(s.snapshot.items.map((x) => x.name)).toEqual(['Ann (cached)']);
    // A collection first opened during the outage comes from the cache too.
    const servers = c.stores.get<Rec>('servers');
    servers.subscribe(() => {});
    await flush();
    expect(servers.snapshot).toMatchObject({ status: 'error', cached: 'missing', error: NO_CACHED_DATA, items: [] });
    expect(c.t.getFullList).toHaveBeenCalledTimes(1);
    c.detach();
  });

  it('with nothing cached, data already on screen stays', async () => {
    const c = clientMode();
    const s = c.stores.get<Rec>('notes');
    s.subscribe(() => {});
    await flush();
    c.f.cache.clear();
    c.state('offline');
    await flush();
    expect(s.snapshot).toMatchObject({ status: 'ready', cached: null });
    expect(s.snapshot.items.map((x) => x.name)).toEqual(['Ann']);
    c.detach();
  });
});

describe('desktop client mode: offline writes', () => {
  async function offline() {
    const c = clientMode();
    const s = c.stores.get<Rec>('contacts');
    s.subscribe(() => {});
    await flush();
    c.state('offline');
    await flush();
    return { ...c, s };
  }

  it('queues create/update/delete in the shell and shows the optimistic record at once', async () => {
    const c = await offline();
    const created = await c.stores.gated.create<Rec>('contacts', { name: 'Bo' });
    expect(created).toMatchObject({ name: 'Bo' });
    expect(c.s.snapshot.items.map((x) => x.name)).toEqual(['Ann', 'Bo']);
    await c.stores.gated.update<Rec>('contacts', ID, { name: 'Ann B' });
    expect(c.s.snapshot.items.map((x) => x.name)).toEqual(['Ann B', 'Bo']);
    await c.stores.gated.remove('contacts', created.id);
    expect(c.s.snapshot.items.map((x) => x.name)).toEqual(['Ann B']);
    expect(c.f.bridge.mutate.mock.calls.map(([m]) => m)).toEqual([
      { collection: 'contacts', action: 'create', data: { name: 'Bo' } },
      { collection: 'contacts', action: 'update', recordId: ID, data: { name: 'Ann B' } },
      { collection: 'contacts', action: 'delete', recordId: created.id },
    ]);
    expect(c.t.create).not.toHaveBeenCalled();
    expect(c.t.update).not.toHaveBeenCalled();
    expect(c.t.remove).not.toHaveBeenCalled();
    // The status bar's count follows each write.
    await flush();
    expect(c.stores.sync?.getSnapshot().status?.pendingCount).toBe(3);
    c.detach();
  });

  it('passes the shell refusal text on, and still refuses imports and the heartbeat', async () => {
    const c = await offline();
    await expect(c.stores.gated.create('users', {})).rejects.toThrow('Collection is not available offline');
    await expect(c.stores.gated.importRecords('contacts', [], true)).rejects.toThrow(OFFLINE_WRITE_MESSAGE);
    await expect(c.stores.gated.heartbeat('s', 'h')).rejects.toThrow(OFFLINE_WRITE_MESSAGE);
    expect(c.t.importRecords).not.toHaveBeenCalled();
    c.detach();
  });

  it('writes go to the server, not the queue, while connected', async () => {
    const c = clientMode();
    c.stores.get<Rec>('contacts').subscribe(() => {});
    await flush();
    await expect(c.stores.gated.create('contacts', { name: 'x' })).resolves.toMatchObject({ id: 'online' });
    expect(c.f.bridge.mutate).not.toHaveBeenCalled();
    c.detach();
  });
});

describe('desktop client mode: the way back', () => {
  it('replays the queue once, then reloads from the server; writes wait for that reload', async () => {
    const c = clientMode();
    const s = c.stores.get<Rec>('contacts');
    s.subscribe(() => {});
    await flush();
    c.state('offline');
    await flush();
    await c.stores.gated.update('contacts', ID, { name: 'Ann B' });
    c.f.holdReplays();
    c.state('reconnecting');
    c.state('connected');
    await flush();
    expect(c.f.bridge.replay).toHaveBeenCalledTimes(1);
    // Flapping while the replay runs joins it instead of starting another.
    c.state('reconnecting');
    c.state('connected');
    await flush();
    expect(c.f.bridge.replay).toHaveBeenCalledTimes(1);
    expect(c.t.getFullList).toHaveBeenCalledTimes(1);
    await expect(c.stores.gated.create('contacts', { name: 'x' })).rejects.toThrow(SYNCING_WRITE_MESSAGE);
    c.f.finishReplay({ total: 1, synced: 1, conflicts: 0, failed: 0, stopped: null });
    await flush();
    await flush();
    expect(c.t.getFullList).toHaveBeenCalledTimes(2);
    expect(s.snapshot).toMatchObject({ status: 'ready', cached: null });
    await expect(c.stores.gated.create('contacts', { name: 'x' })).resolves.toMatchObject({ id: 'online' });
    c.detach();
  });

  it('a refused replay still reloads (so writes reopen) and keeps the reason', async () => {
    const c = clientMode();
    c.stores.get<Rec>('contacts').subscribe(() => {});
    await flush();
    c.state('offline');
    await flush();
    await c.stores.gated.update('contacts', ID, { name: 'Ann B' });
    c.f.holdReplays();
    c.state('connected');
    await flush();
    c.f.refuseReplay('Sign in to the Relay server to sync offline changes.');
    await flush();
    await flush();
    expect(c.stores.sync?.getSnapshot().replayError).toBe('Sign in to the Relay server to sync offline changes.');
    expect(c.t.getFullList).toHaveBeenCalledTimes(2);
    await expect(c.stores.gated.create('contacts', { name: 'x' })).resolves.toBeTruthy();
    c.detach();
  });

  it('at sign-in, replays a queue left from an earlier session; with none, asks nothing more', async () => {
    const queued = clientMode();
    queued.detach();
    const f = fakeOffline();
    f.setStatus({ pendingCount: 2 });
    const t = { ...queued.t, offline: f.bridge } as unknown as Transport;
    const stores = new DataStores(t, new WriteGate(() => true));
    const detach = stores.attach();
    await flush();
    await flush();
    expect(f.bridge.replay).toHaveBeenCalledTimes(1);
    detach();
    const empty = clientMode();
    await flush();
    expect(empty.f.bridge.status).toHaveBeenCalled();
    expect(empty.f.bridge.replay).not.toHaveBeenCalled();
    empty.detach();
  });
});

describe('modes without the shell queue keep refusing writes while offline', () => {
  it('Relay Web: no request, the offline message, no queue', async () => {
    const { transport, calls } = await signedInGateway({ 'GET /api/health': () => 'network-error' });
    expect(transport.offline).toBeNull();
    const stores = new DataStores(transport, new WriteGate(() => true));
    const detach = stores.attach();
    expect(stores.sync).toBeNull();
    await transport.probe();
    expect(transport.state).toBe('offline');
    const before = calls.length;
    await expect(stores.gated.create('contacts', { name: 'x' })).rejects.toThrow(OFFLINE_WRITE_MESSAGE);
    await expect(stores.gated.update('contacts', ID, { name: 'x' })).rejects.toThrow(OFFLINE_WRITE_MESSAGE);
    await expect(stores.gated.remove('contacts', ID)).rejects.toThrow(OFFLINE_WRITE_MESSAGE);
    expect(calls).toHaveLength(before);
    detach();
    transport.dispose();
  });
});
