// Test-only helpers for transport tests: a routed fake fetch and a fake
// EventSource speaking just enough of PocketBase's SSE protocol.
import { afterEach, vi } from 'vitest';
import { PocketBaseTransport } from './pocketbase';
import type { ConnectionState } from './types';

export interface Call {
  method: string;
  path: string;
  search: string;
  headers: Headers;
  body: unknown;
}
export type Reply = Response | Promise<Response> | 'network-error' | ((init?: RequestInit) => Promise<Response>);

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

export const AUTH = '/api/collections/users/auth-with-password';
export const authOk = () => json(200, { token: 'tok-123', record: { id: 'u1', collectionName: 'users' } });
export const rejected = () => json(400, { status: 400, message: 'Failed to authenticate.', data: {} });

/** A fake fetch answering from `routes` ("METHOD /path"; 404 otherwise) and recording every call. */
export function routedFetch(routes: Record<string, () => Reply>) {
  const calls: Call[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    calls.push({
      method: (init?.method ?? 'GET').toUpperCase(),
      path: url.pathname,
      search: url.search,
      headers: new Headers(init?.headers),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body,
    });
    const route = routes[`${(init?.method ?? 'GET').toUpperCase()} ${url.pathname}`];
    const reply = route ? route() : json(404, { status: 404, message: 'Not found.', data: {} });
    if (reply === 'network-error') throw new TypeError('fetch failed');
    return typeof reply === 'function' ? reply(init) : reply;
  });
  return { fetch, calls };
}

export function setup(routes: Record<string, () => Reply>) {
  const { fetch, calls } = routedFetch(routes);
  const storage = { removeItem: vi.fn() };
  const transport = new PocketBaseTransport({ origin: 'http://relay.test', fetch, storage });
  const states: ConnectionState[] = [];
  transport.onStateChange((s) => states.push(s));
  return { transport, calls, storage, states, last: () => states[states.length - 1] };
}

/** Registers an afterEach that disposes the transports handed to the returned `keep`. */
export function disposeAfterEach(): <T extends { transport: PocketBaseTransport }>(t: T) => T {
  const kept: PocketBaseTransport[] = [];
  afterEach(() => {
    for (const t of kept.splice(0)) t.dispose();
  });
  return (t) => {
    kept.push(t.transport);
    return t;
  };
}

/** A direct (PocketBase) transport signed in as `relay`, with `extra` routes beside auth and health. */
export async function signedInDirect(extra: Record<string, () => Reply>) {
  const t = setup({
    [`POST ${AUTH}`]: authOk,
    'GET /api/health': () => json(200, { code: 200 }),
    ...extra,
  });
  await t.transport.signIn('ok');
  return t;
}

/** A transport through the Relay Web gateway (session csrf-1, token web-tok), signed in, with `extra` routes. */
export async function signedInGateway(extra: Record<string, () => Reply>) {
  const { fetch, calls } = routedFetch({
    'POST /web/api/session': () => json(200, { csrfToken: 'csrf-1', expiresAt: '2099-01-01 00:00:00.000Z' }),
    'POST /web/api/connection': () => json(200, { token: 'web-tok', record: { id: 'u1', collectionName: 'users' } }),
    'POST /web/api/session/logout': () => new Response(null, { status: 204 }),
    'GET /api/health': () => json(200, { code: 200 }),
    ...extra,
  });
  const transport = new PocketBaseTransport({ origin: 'http://localhost:8091', fetch, storage: null, web: { mode: 'relay-web', cleartextHttp: true }, events: null });
  await transport.signIn('pw');
  return { transport, calls };
}

type Handler = (e: { data: string; lastEventId: string }) => void;

/** Minimal EventSource stand-in; install with vi.stubGlobal('EventSource', FakeEventSource). */
export class FakeEventSource {
  static instances: FakeEventSource[] = [];
  readonly url: string;
  onerror: ((e: unknown) => void) | null = null;
  closed = false;
  private handlers = new Map<string, Set<Handler>>();

  constructor(url: string) {
    this.url = url;
    FakeEventSource.instances.push(this);
  }

  static latest(): FakeEventSource | undefined {
    return FakeEventSource.instances[FakeEventSource.instances.length - 1];
  }

  addEventListener(type: string, h: Handler): void {
    if (!this.handlers.has(type)) this.handlers.set(type, new Set());
    this.handlers.get(type)!.add(h);
  }

  removeEventListener(type: string, h: Handler): void {
    this.handlers.get(type)?.delete(h);
  }

  close(): void {
    this.closed = true;
  }

  emit(type: string, data: unknown, lastEventId = ''): void {
    for (const h of [...(this.handlers.get(type) ?? [])]) h({ data: JSON.stringify(data), lastEventId });
  }

  fail(): void {
    this.onerror?.({ type: 'error' });
  }
}
