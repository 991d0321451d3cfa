// Tests for PocketBaseTransport realtime: topic `${collection}/*`, event fan-out,
// the reconnecting/connected states, and (Relay Web) the subscription resent with the new token
// after an in-place re-authentication, using a fake EventSource.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PocketBaseTransport } from './pocketbase';
import { AUTH, FakeEventSource, authOk, json, setup, signedInGateway } from './testkit';
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

async function nextSource(count: number): Promise<FakeEventSource> {
  await vi.waitFor(() => expect(FakeEventSource.instances.length).toBe(count), { timeout: 2_000 });
  return FakeEventSource.latest()!;
}

async function signedIn() {
  const t = setup({
    [`POST ${AUTH}`]: authOk,
    'POST /api/realtime': () => new Response(null, { status: 204 }),
    'GET /api/health': () => json(200, { code: 200 }),
  });
  current = t.transport;
  await t.transport.signIn('ok');
  return t;
}

const contact = { id: 'c1', name: 'Ann', created: '', updated: '' };

describe('PocketBaseTransport realtime', () => {
  it('subscribes to contacts/* with the token and delivers events to every listener', async () => {
    const t = await signedIn();
    const a: RealtimeEvent[] = [];
    const b: RealtimeEvent[] = [];
    const subA = t.transport.subscribe('contacts', (e) => a.push(e));
    const es = await nextSource(1);
    expect(es.url).toBe('http://relay.test/api/realtime');
    es.emit('PB_CONNECT', { clientId: 'cid-1' }, 'cid-1');
    const offA = await subA;
    const offB = await t.transport.subscribe('contacts', (e) => b.push(e));

    const post = t.calls.find((c) => c.method === 'POST' && c.path === '/api/realtime');
    expect(post?.body).toEqual({ clientId: 'cid-1', subscriptions: ['contacts/*'] });
    expect(post?.headers.get('Authorization')).toBe('tok-123');
    expect(t.last()).toBe('connected');

    es.emit('contacts/*', { action: 'create', record: contact });
    es.emit('contacts/*', { action: 'something-else', record: contact });
    expect(a).toEqual([{ action: 'create', record: contact }]);
    expect(b).toEqual([{ action: 'create', record: contact }]);

    offA();
    es.emit('contacts/*', { action: 'delete', record: contact });
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(2);
    offB();
  });

  it('shows reconnecting while the SSE link is down and connected once it is back', async () => {
    const t = await signedIn();
    const seen: RealtimeEvent[] = [];
    const sub = t.transport.subscribe('contacts', (e) => seen.push(e));
    const es1 = await nextSource(1);
    es1.emit('PB_CONNECT', {}, 'cid-1');
    await sub;

    es1.fail();
    expect(t.last()).toBe('reconnecting');

    const es2 = await nextSource(2); // SDK retries on its own schedule
    es2.emit('PB_CONNECT', {}, 'cid-2');
    await vi.waitFor(() => expect(t.last()).toBe('connected'));
    es2.emit('contacts/*', { action: 'update', record: contact });
    expect(seen).toEqual([{ action: 'update', record: contact }]);
  });

  it('Relay Web: a 401 on the subscription re-authenticates in place and resubscribes with the new token', async () => {
    let posts = 0;
    let tokens = 0;
    const t = await signedInGateway({
      'POST /web/api/connection': () => json(200, { token: `web-tok-${++tokens}`, record: { id: 'u1', collectionName: 'users' } }),
      'POST /api/realtime': () => (++posts === 1 ? json(401, { status: 401, message: 'sign in to Relay Web', data: {} }) : new Response(null, { status: 204 })),
    });
    current = t.transport;
    const seen: RealtimeEvent[] = [];
    const sub = t.transport.subscribe('contacts', (e) => seen.push(e));
    const es = await nextSource(1);
    es.emit('PB_CONNECT', { clientId: 'cid-1' }, 'cid-1');
    await sub;
    const subscriptions = t.calls.filter((c) => c.method === 'POST' && c.path === '/api/realtime');
    expect(subscriptions.map((c) => c.headers.get('Authorization'))).toEqual(['web-tok-1', 'web-tok-2']);
    expect(subscriptions[1].body).toEqual({ clientId: 'cid-1', subscriptions: ['contacts/*'] });
    expect(subscriptions[1].headers.get('X-Relay-CSRF')).toBe('csrf-1');
    es.emit('contacts/*', { action: 'create', record: contact });
    expect(seen).toEqual([{ action: 'create', record: contact }]);
  });

  it('retries a failed first connect after a good probe, without doubling listeners', async () => {
    const t = await signedIn();
    const seen: RealtimeEvent[] = [];
    const sub = t.transport.subscribe('contacts', (e) => seen.push(e));
    const es1 = await nextSource(1);
    es1.fail(); // never got PB_CONNECT
    await sub; // resolves anyway: the transport owns the retry
    expect(t.last()).toBe('reconnecting');

    expect(await t.transport.probe()).toBe(true);
    const es2 = await nextSource(2);
    es2.emit('PB_CONNECT', {}, 'cid-2');
    await vi.waitFor(() => expect(t.last()).toBe('connected'));
    es2.emit('contacts/*', { action: 'create', record: contact });
    expect(seen).toHaveLength(1);
  });
});
