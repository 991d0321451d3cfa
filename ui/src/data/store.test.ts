// CollectionStore against a fake Transport: one fetch + one subscription, realtime merge,
// 'reload' → refetch, refetch after an outage, restart after stop.
import { describe, expect, it, vi } from 'vitest';
import type { ConnectionState, RealtimeEvent, Transport } from '../transport/types';
import { DataStores } from './store';

interface Rec { id: string; created: string; updated: string; name: string }
const r = (id: string, name: string): Rec => ({ id, name, created: '2026-12-02 10:00:00.000Z', updated: '2026-12-02 10:00:00.000Z' });

function fakeTransport(pages: Rec[][]) {
  const listeners: ((e: RealtimeEvent) => void)[] = [];
  const stateCbs: ((s: ConnectionState) => void)[] = [];
  let call = 0;
  const t = {
    getFullList: vi.fn(async () => pages[Math.min(call++, pages.length - 1)]),
    subscribe: vi.fn(async (_c: string, cb: (e: RealtimeEvent) => void) => {
      listeners.push(cb);
      return () => listeners.splice(listeners.indexOf(cb), 1);
    }),
    onStateChange: vi.fn((cb: (s: ConnectionState) => void) => {
      stateCbs.push(cb);
      cb('connected');
      return () => {};
    }),
  } as unknown as Transport;
  return { t, emit: (e: RealtimeEvent) => listeners.forEach((l) => l(e)), state: (s: ConnectionState) => stateCbs.forEach((c) => c(s)), listeners };
}

const flush = () => new Promise((res) => setTimeout(res, 0));

describe('CollectionStore', () => {
  it('fetches once, sorts, merges realtime events and refetches on a reload event', async () => {
    const f = fakeTransport([[r('2', 'Bob'), r('1', 'Al')], [r('1', 'Al'), r('2', 'Bob'), r('3', 'Cy')]]);
    const stores = new DataStores(f.t);
    const s = stores.get<Rec>('contacts');
    const off1 = s.subscribe(() => {});
    const off2 = stores.get<Rec>('contacts').subscribe(() => {});
    await flush();
    expect(f.t.getFullList).toHaveBeenCalledTimes(1);
    expect(f.t.subscribe).toHaveBeenCalledTimes(1);
    expect(s.snapshot.items.map((x) => x.name)).toEqual(['Al', 'Bob']);
    f.emit({ action: 'create', record: r('0', 'Aa') });
    expect(s.snapshot.items.map((x) => x.name)).toEqual(['Aa', 'Al', 'Bob']);
    f.emit({ action: 'reload', record: { collectionName: 'contacts' } });
    await flush();
    expect(f.t.getFullList).toHaveBeenCalledTimes(2);
    expect(s.snapshot.items.map((x) => x.name)).toEqual(['Al', 'Bob', 'Cy']);
    off1();
    off2();
  });

  it('refetches started collections when the connection comes back', async () => {
    const f = fakeTransport([[r('1', 'Al')]]);
    const stores = new DataStores(f.t);
    const detach = stores.attach();
    stores.get<Rec>('servers').subscribe(() => {});
    await flush();
    f.state('offline');
    f.state('connected');
    await flush();
    expect(f.t.getFullList).toHaveBeenCalledTimes(2);
    detach();
  });

  it('restarts (resubscribes and refetches) after stop', async () => {
    const f = fakeTransport([[r('1', 'Al')]]);
    const stores = new DataStores(f.t);
    const s = stores.get<Rec>('notes');
    s.subscribe(() => {});
    await flush();
    stores.stop();
    expect(f.listeners).toHaveLength(0);
    s.subscribe(() => {});
    await flush();
    expect(f.t.subscribe).toHaveBeenCalledTimes(2);
    expect(f.listeners).toHaveLength(1);
    expect(f.t.getFullList).toHaveBeenCalledTimes(2);
  });
});
