// Write gate + connection generation: a list response from an older generation must not
// install data or reopen writes; writes are refused (no request) while offline.
import { describe, expect, it, vi } from 'vitest';
import type { ConnectionState, RealtimeEvent, Transport } from '../transport/types';
import { OFFLINE_WRITE_MESSAGE, SYNCING_WRITE_MESSAGE, WriteGate } from './gate';
import { DataStores, writeRuleRefusal } from './store';

interface Rec { id: string; created: string; updated: string; name: string }
const r = (id: string, name: string): Rec => ({ id, name, created: '2026-12-02 10:00:00.000Z', updated: '2026-12-02 10:00:00.000Z' });
const flush = () => new Promise((res) => setTimeout(res, 0));

/** Fake transport whose getFullList calls are answered by hand. */
function manual() {
  const pending: { resolve: (items: Rec[]) => void }[] = [];
  const stateCbs: ((s: ConnectionState) => void)[] = [];
  const resetCbs: (() => void)[] = [];
  const t = {
    getFullList: vi.fn(() => new Promise<Rec[]>((resolve) => pending.push({ resolve }))),
    subscribe: vi.fn(async (_c: string, _cb: (e: RealtimeEvent) => void) => () => {}),
    onStateChange: vi.fn((cb: (s: ConnectionState) => void) => {
      stateCbs.push(cb);
      cb('connected');
      return () => {};
    }),
    onClientReset: vi.fn((cb: () => void) => {
      resetCbs.push(cb);
      return () => {};
    }),
    create: vi.fn(async (_c: string, data: object) => ({ id: 'new', ...data })),
    update: vi.fn(),
    remove: vi.fn(),
    importRecords: vi.fn(),
    syncServers: vi.fn(),
    readSpreadsheet: vi.fn(async (_f: Blob, sheet: string) => ({ sheet, columns: ['name'], rows: [{ name: 'A' }] })),
    prepareAlertImage: vi.fn(async () => 'data:image/png;base64,AAAA'),
    heartbeat: vi.fn(async () => {}),
  } as unknown as Transport;
  return {
    t,
    pending,
    state: (s: ConnectionState) => stateCbs.forEach((c) => c(s)),
    reset: () => resetCbs.forEach((c) => c()),
  };
}

function setup(online = () => true) {
  const m = manual();
  const gate = new WriteGate(online);
  const stores = new DataStores(m.t, gate);
  const detach = stores.attach();
  const s = stores.get<Rec>('contacts');
  s.subscribe(() => {});
  return { ...m, gate, stores, s, detach };
}

describe('WriteGate + connection generation', () => {
  it('opens writes only once the current-generation list is installed', async () => {
    const { pending, stores, s, t } = setup();
    await expect(stores.gated.create('contacts', { name: 'x' })).rejects.toThrow(SYNCING_WRITE_MESSAGE);
    pending[0].resolve([r('1', 'Al')]);
    await flush();
    expect(s.snapshot.status).toBe('ready');
    await expect(stores.gated.create('contacts', { name: 'x' })).resolves.toMatchObject({ id: 'new' });
    expect(t.create).toHaveBeenCalledTimes(1);
  });

  it('drops a list response from an older generation: no data installed, writes stay closed', async () => {
    const { pending, stores, s, gate, state, t } = setup();
    expect(gate.generation).toBe(0);
    state('reconnecting'); // disconnect: generation 1, gate closed; the gen-0 fetch is still in flight
    expect(gate.generation).toBe(1);
    pending[0].resolve([r('1', 'Stale')]); // the old response lands late
    await flush();
    expect(s.snapshot.items).toEqual([]);
    expect(s.snapshot.status).toBe('loading');
    expect(gate.isReady('contacts')).toBe(false);
    await expect(stores.gated.create('contacts', { name: 'x' })).rejects.toThrow(SYNCING_WRITE_MESSAGE);
    expect(t.create).not.toHaveBeenCalled();

    state('connected'); // reconnect: generation 2 and a refetch in it
    expect(gate.generation).toBe(2);
    expect(pending).toHaveLength(2);
    pending[1].resolve([r('2', 'Fresh')]);
    await flush();
    expect(s.snapshot.items.map((x) => x.name)).toEqual(['Fresh']);
    await expect(stores.gated.create('contacts', { name: 'x' })).resolves.toBeTruthy();
  });

  it('a client replacement bumps the generation and refetches; the older fetch cannot reopen writes', async () => {
    const { pending, gate, reset, s } = setup();
    pending[0].resolve([r('1', 'Al')]);
    await flush();
    expect(gate.isReady('contacts')).toBe(true);
    reset();
    expect(gate.isReady('contacts')).toBe(false);
    expect(pending).toHaveLength(2);
    reset(); // replaced again before the refetch answered
    pending[1].resolve([r('9', 'Old client')]);
    await flush();
    expect(gate.isReady('contacts')).toBe(false);
    expect(s.snapshot.items.map((x) => x.name)).toEqual(['Al']);
    pending[2].resolve([r('2', 'Bo')]);
    await flush();
    expect(gate.isReady('contacts')).toBe(true);
    expect(s.snapshot.items.map((x) => x.name)).toEqual(['Bo']);
  });

  it('refuses writes without a request while the browser or the connection is offline', async () => {
    let online = true;
    const { pending, stores, state, t } = setup(() => online);
    pending[0].resolve([r('1', 'Al')]);
    await flush();
    online = false;
    await expect(stores.gated.create('contacts', { name: 'x' })).rejects.toThrow(OFFLINE_WRITE_MESSAGE);
    await expect(stores.gated.update('contacts', '1', { name: 'x' })).rejects.toThrow(OFFLINE_WRITE_MESSAGE);
    await expect(stores.gated.remove('contacts', '1')).rejects.toThrow(OFFLINE_WRITE_MESSAGE);
    await expect(stores.gated.importRecords('contacts', [], true)).rejects.toThrow(OFFLINE_WRITE_MESSAGE);
    await expect(stores.gated.syncServers([{ action: 'create', data: { name: 'x' } }])).rejects.toThrow(OFFLINE_WRITE_MESSAGE);
    await expect(stores.gated.create('oncall_dismissals', {})).rejects.toThrow(OFFLINE_WRITE_MESSAGE);
    online = true;
    state('offline');
    await expect(stores.gated.create('oncall_dismissals', {})).rejects.toMatchObject({ kind: 'network', message: OFFLINE_WRITE_MESSAGE });
    expect(t.create).not.toHaveBeenCalled();
    expect(t.update).not.toHaveBeenCalled();
    expect(t.remove).not.toHaveBeenCalled();
    expect(t.importRecords).not.toHaveBeenCalled();
    expect(t.syncServers).not.toHaveBeenCalled();
  });

  it('refuses, without a request, the writes the Dynatrace collections rules forbid (403 would read as a lost session)', async () => {
    const { pending, stores, t } = setup(() => true);
    pending[0].resolve([r('1', 'Al')]);
    await flush();
    await expect(stores.gated.update('dynatrace_problem_notes', 'n1', { note: 'x' })).rejects.toMatchObject({ kind: 'invalid' });
    await expect(stores.gated.remove('dynatrace_problem_notes', 'n1')).rejects.toMatchObject({ kind: 'invalid' });
    await expect(stores.gated.remove('dynatrace_problem_states', 's1')).rejects.toMatchObject({ kind: 'invalid' });
    await expect(stores.gated.create('dynatrace_problems', {})).rejects.toMatchObject({ kind: 'invalid' });
    await expect(stores.gated.update('dynatrace_problem_sync', 'x', {})).rejects.toMatchObject({ kind: 'invalid' });
    await expect(stores.gated.importRecords('dynatrace_problem_notes', [], true)).rejects.toMatchObject({ kind: 'invalid' });
    expect(t.create).not.toHaveBeenCalled();
    expect(t.update).not.toHaveBeenCalled();
    expect(t.remove).not.toHaveBeenCalled();
    expect(t.importRecords).not.toHaveBeenCalled();
    expect(writeRuleRefusal('dynatrace_problem_notes', 'create')).toBeNull();
    expect(writeRuleRefusal('dynatrace_problem_states', 'update')).toBeNull();
    expect(writeRuleRefusal('contacts', 'delete')).toBeNull();
  });

  it('passes a workbook read through (it writes nothing; the import or sync it feeds is gated)', async () => {
    const { stores, t } = setup(() => false);
    const file = new Blob(['PK']);
    await expect(stores.gated.readSpreadsheet(file, 'contacts')).resolves.toEqual({ sheet: 'contacts', columns: ['name'], rows: [{ name: 'A' }] });
    expect(t.readSpreadsheet).toHaveBeenCalledExactlyOnceWith(file, 'contacts');
    await expect(stores.gated.importRecords('contacts', [{ name: 'A' }], false)).rejects.toThrow(OFFLINE_WRITE_MESSAGE);
  });

  it('passes an alert image preparation through (it writes nothing; the alert record it lands in is gated)', async () => {
    const { stores, t } = setup(() => false);
    const file = new Blob([new Uint8Array([0x89, 0x50])]);
    await expect(stores.gated.prepareAlertImage(file)).resolves.toBe('data:image/png;base64,AAAA');
    expect(t.prepareAlertImage).toHaveBeenCalledExactlyOnceWith(file);
    await expect(stores.gated.create('alert_history', { bodyHtml: '' })).rejects.toThrow(OFFLINE_WRITE_MESSAGE);
  });

  it("passes Relay Web's protected requests through (the Administration screen needs them), and has none without them", async () => {
    const { stores, t } = setup();
    expect(stores.gated.webFetch).toBeUndefined();
    const webFetch = vi.fn(async () => new Response('{}'));
    const web = new DataStores({ ...t, webFetch } as unknown as Transport, new WriteGate(() => true));
    const init = { method: 'POST', body: '{}' };
    await web.gated.webFetch!('/web/api/protected/status', init);
    expect(webFetch).toHaveBeenCalledExactlyOnceWith('/web/api/protected/status', init);
  });

  it('the generation only ever grows and ignores repeated states', () => {
    const g = new WriteGate(() => true);
    g.observe('connected');
    g.observe('connected');
    expect(g.generation).toBe(0);
    g.observe('offline');
    g.observe('reconnecting');
    expect(g.generation).toBe(1);
    g.observe('connected');
    g.bump();
    expect(g.generation).toBe(3);
    expect(g.markReady('contacts', 2)).toBe(false);
    expect(g.markReady('contacts', 3)).toBe(true);
  });
});
