// A fake Transport for the jsdom tests that mount a view under DataProvider: every collection
// answers from `collections` (absent ones are empty), realtime never fires, the connection is up,
// and create/update/remove/prepareAlertImage are spies answering plausible records. Only what the
// views mounted in tests call exists; anything else is undefined. Test code only: nothing in the
// app imports it.
import { vi } from 'vitest';
import type { Transport } from '../transport/types';

export function fakeTransport(collections: Record<string, object[]> = {}, extra: Partial<Record<keyof Transport, unknown>> = {}) {
  let seq = 0;
  const stamp = () => new Date(Date.UTC(2026, 0, 5, 12, 0, seq)).toISOString().replace('T', ' ');
  const create = vi.fn(async (_c: string, data: object) => ({ id: `new${++seq}`, created: stamp(), updated: stamp(), ...data }));
  const update = vi.fn(async (c: string, id: string, data: object) => ({ ...(collections[c]?.find((r) => (r as { id?: string }).id === id) ?? {}), id, updated: stamp(), ...data }));
  const remove = vi.fn(async () => {});
  const prepareAlertImage = vi.fn(async () => 'data:image/png;base64,iVBORw0KGgo=');
  const transport = {
    mode: 'direct',
    serverUrl: 'http://relay.test',
    list: async (c: string) => {
      const items = collections[c] ?? [];
      return { items, page: 1, perPage: 50, totalItems: items.length, totalPages: 1 };
    },
    getFullList: async (c: string) => [...(collections[c] ?? [])],
    subscribe: async () => () => {},
    onStateChange: (cb: (s: string) => void) => {
      cb('connected');
      return () => {};
    },
    create,
    update,
    remove,
    prepareAlertImage,
    brandingLogo: async () => null,
    authIdentity: () => null,
    ...extra,
  } as unknown as Transport;
  return { transport, create, update, remove, prepareAlertImage };
}
