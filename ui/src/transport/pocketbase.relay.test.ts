// Tests for the Relay-specific endpoints of PocketBaseTransport (presence heartbeat and
// snapshot, the typed System health dashboard, import preview/apply incl. the 400 report body)
// and the realtime 'reload' event.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PocketBaseTransport } from './pocketbase';
import { AUTH, FakeEventSource, authOk, json, setup } from './testkit';
import type { RealtimeEvent } from './types';

let current: PocketBaseTransport | undefined;
beforeEach(() => {
  FakeEventSource.instances = [];
  vi.stubGlobal('EventSource', FakeEventSource);
});
afterEach(() => {
  current?.dispose();
  current = undefined;
  vi.unstubAllGlobals();
});

const report = (applied: boolean, errors: unknown[] = []) => ({ collection: 'contacts', total: 2, creates: 1, updates: 1, applied, errors });

async function signedIn(extra: Record<string, () => Response>) {
  const t = setup({
    [`POST ${AUTH}`]: authOk,
    'POST /api/realtime': () => new Response(null, { status: 204 }),
    'GET /api/health': () => json(200, { code: 200 }),
    ...extra,
  });
  current = t.transport;
  await t.transport.signIn('ok');
  return t;
}

describe('PocketBaseTransport Relay endpoints', () => {
  it('posts the heartbeat (tab id and hostname) with the token, answers the presence id, and reads the snapshot', async () => {
    const row = { id: 'p1', sessionId: '9f2c0a1b', hostname: 'Web · Browser · 10.0.0.7', mode: 'client', lastSeen: 'x' };
    const snap = { activeCount: 1, active: [{ sessionId: '9f2c0a1b', hostname: 'Web · Browser · 10.0.0.7', lastSeen: 'x' }], heartbeatIntervalMs: 15000, computedAt: 'x' };
    const t = await signedIn({
      'POST /api/relay/presence/heartbeat': () => json(200, row),
      'GET /api/relay/presence': () => json(200, snap),
    });
    expect((await t.transport.heartbeat('tab-1', 'browser')).sessionId).toBe('9f2c0a1b');
    const hb = t.calls.find((c) => c.path === '/api/relay/presence/heartbeat')!;
    expect(hb.method).toBe('POST');
    expect(hb.body).toEqual({ tabId: 'tab-1', hostname: 'browser' });
    expect(hb.headers.get('Authorization')).toBe('tok-123');
    expect(await t.transport.presence()).toEqual(snap);
  });

  it('reads the typed System health dashboard with the token, and maps a 401 to rejected', async () => {
    const dashboard = {
      status: 'ok',
      version: '0.1.0',
      uptimeSecs: 75,
      queueHistoryBucketSecs: 20,
      actors: {
        store: { state: 'running', restarts: 1, queueDepth: 2, lastError: null, lastErrorAt: null, lastReportMsAgo: 300, queueHistory: [null, 2] },
      },
      realtime: { clients: 1, droppedSlow: 0 },
      database: { sizeBytes: 4096, pagesBytes: 4096, walBytes: 0 },
    };
    let status = 200;
    const t = await signedIn({
      'GET /api/relay/health': () => (status === 200 ? json(200, dashboard) : json(401, { status: 401, message: 'no', data: {} })),
    });
    const health = await t.transport.health();
    expect(health.actors.store.queueHistory).toEqual([null, 2]);
    expect(health.database.sizeBytes).toBe(4096);
    const call = t.calls.find((c) => c.path === '/api/relay/health')!;
    expect(call.method).toBe('GET');
    expect(call.headers.get('Authorization')).toBe('tok-123');
    status = 401;
    await expect(t.transport.health()).rejects.toMatchObject({ kind: 'rejected', status: 401 });
  });

  it('previews and applies imports, and returns the report of a refused apply (400)', async () => {
    let apply400 = false;
    const t = await signedIn({
      'POST /api/relay/import/contacts': () =>
        apply400
          ? json(400, report(false, [{ row: 2, field: 'name', code: 'validation_required', message: 'Missing required value.' }]))
          : json(200, report(false)),
    });
    const preview = await t.transport.importRecords('contacts', [{ name: 'A' }, { name: 'B' }], false);
    expect(preview).toEqual(report(false));
    expect(t.calls.at(-1)!.body).toEqual({ records: [{ name: 'A' }, { name: 'B' }], apply: false });
    apply400 = true;
    const refused = await t.transport.importRecords('contacts', [{ name: 'A' }, {}], true);
    expect(refused.applied).toBe(false);
    expect(refused.errors).toHaveLength(1);
    expect(t.calls.at(-1)!.body).toMatchObject({ apply: true });
  });

  it('throws a TransportError for a 400 without a report and for a 404', async () => {
    const t = await signedIn({
      'POST /api/relay/import/servers': () => json(400, { status: 400, message: 'Too many records.', data: {} }),
    });
    await expect(t.transport.importRecords('servers', [], false)).rejects.toMatchObject({ kind: 'invalid', message: 'Too many records.' });
    await expect(t.transport.importRecords('notes', [], false)).rejects.toMatchObject({ kind: 'not-found' });
  });

  it('fetches whole collections 1,000 records per page', async () => {
    const t = await signedIn({
      'GET /api/collections/contacts/records': () => json(200, { page: 1, perPage: 1000, totalItems: 1, totalPages: 1, items: [{ id: 'c1' }] }),
    });
    expect(await t.transport.getFullList('contacts')).toEqual([{ id: 'c1' }]);
    expect(new URLSearchParams(t.calls.at(-1)!.search).get('perPage')).toBe('1000');
  });

  it('fetches collections of large records 50 per page, every page until a short one', async () => {
    const page = (n: number, count: number) => ({ page: n, perPage: 50, totalItems: -1, totalPages: -1, items: Array.from({ length: count }, (_, i) => ({ id: `a${n}-${i}` })) });
    let served = 0;
    const t = await signedIn({
      'GET /api/collections/alert_history/records': () => {
        served += 1;
        return json(200, page(served, served < 3 ? 50 : 7));
      },
    });
    const all = await t.transport.getFullList<{ id: string }>('alert_history');
    expect(all.length).toBe(107);
    expect(all.at(-1)!.id).toBe('a3-6');
    const asked = t.calls.filter((c) => c.path === '/api/collections/alert_history/records').map((c) => new URLSearchParams(c.search));
    expect(asked.map((q) => [q.get('page'), q.get('perPage')])).toEqual([['1', '50'], ['2', '50'], ['3', '50']]);
  });

  it('delivers realtime "reload" events (refetch this collection)', async () => {
    const t = await signedIn({});
    const seen: RealtimeEvent[] = [];
    const sub = t.transport.subscribe('contacts', (e) => seen.push(e));
    await vi.waitFor(() => expect(FakeEventSource.instances.length).toBe(1));
    FakeEventSource.latest()!.emit('PB_CONNECT', { clientId: 'c' }, 'c');
    await sub;
    FakeEventSource.latest()!.emit('contacts/*', { action: 'reload', record: { collectionName: 'contacts' } });
    expect(seen).toEqual([{ action: 'reload', record: { collectionName: 'contacts' } }]);
  });
});
