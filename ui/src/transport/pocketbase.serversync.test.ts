// PocketBaseTransport.syncServers and authIdentity: the Servers sync batch is posted with the
// app token (and the CSRF token through the Relay Web gateway); 409, 404 and a 400 naming the
// refused operation come back as TransportErrors; the auth identity follows every token change.
import { describe, expect, it } from 'vitest';
import { ServerSyncRefusal, type ServerSyncOperation } from './types';
import { disposeAfterEach, json, signedInDirect, signedInGateway } from './testkit';

const keep = disposeAfterEach();
const PATH = '/api/relay/servers/sync';
const record = { id: 'aaaaaaaaaaaaaaa', created: 'c', updated: 'u', revision: 3, name: 'web-01' };
const ops: ServerSyncOperation[] = [
  { action: 'create', data: { name: 'db-01' } },
  { action: 'update', recordId: record.id, expected: record, data: { os: 'Linux' } },
];

describe('syncServers', () => {
  it('posts {operations} with the app token and answers the entries', async () => {
    const entries = [{ status: 200, body: { id: 'bbbbbbbbbbbbbbb', name: 'db-01' } }, { status: 200, body: { ...record, os: 'Linux' } }];
    const t = keep(await signedInDirect({ [`POST ${PATH}`]: () => json(200, entries) }));
    await expect(t.transport.syncServers(ops)).resolves.toEqual(entries);
    const call = t.calls.find((c) => c.path === PATH)!;
    expect(call.method).toBe('POST');
    expect(call.body).toEqual({ operations: ops });
    expect(call.headers.get('Authorization')).toBe('tok-123');
  });

  it('carries the CSRF token through the Relay Web gateway', async () => {
    const t = keep(await signedInGateway({ [`POST ${PATH}`]: () => json(200, [{ status: 204, body: null }]) }));
    await t.transport.syncServers([{ action: 'delete', recordId: record.id, expected: record }]);
    const call = t.calls.find((c) => c.path === PATH)!;
    expect(call.headers.get('X-Relay-CSRF')).toBe('csrf-1');
    expect(call.headers.get('Authorization')).toBe('web-tok');
  });

  it('maps 409 and 404 to TransportErrors and a validation 400 to a ServerSyncRefusal naming the operation', async () => {
    let reply = () => json(409, { status: 409, message: 'The Servers list changed after the preview.', data: { code: 'sync_conflict' } });
    const t = keep(await signedInDirect({ [`POST ${PATH}`]: () => reply() }));
    await expect(t.transport.syncServers(ops)).rejects.toMatchObject({ status: 409, kind: 'server', message: 'The Servers list changed after the preview.' });
    reply = () =>
      json(400, {
        status: 400,
        message: 'The Servers import failed record validation.',
        data: { code: 'validation_failed', operation: 1, fields: { name: { code: 'validation_required', message: 'Missing required value.' } } },
      });
    const refusal = await t.transport.syncServers(ops).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ServerSyncRefusal);
    expect(refusal).toMatchObject({ status: 400, operation: 1, message: 'The Servers import failed record validation.' });
    expect((refusal as ServerSyncRefusal).fieldErrors).toEqual({ name: { code: 'validation_required', message: 'Missing required value.' } });
    reply = () => json(400, { status: 400, message: 'Invalid Servers sync request.', data: { code: 'invalid_sync' } });
    const invalid = await t.transport.syncServers(ops).catch((e: unknown) => e);
    expect(invalid).not.toBeInstanceOf(ServerSyncRefusal);
    expect(invalid).toMatchObject({ status: 400, kind: 'invalid' });
    reply = () => json(404, { status: 404, message: 'Not found.', data: {} });
    await expect(t.transport.syncServers(ops)).rejects.toMatchObject({ status: 404, kind: 'not-found' });
  });
});

describe('authIdentity', () => {
  it('is null signed out and changes with every token change', async () => {
    const t = keep(await signedInDirect({}));
    const first = t.transport.authIdentity();
    expect(first).toMatch(/^u1#\d+$/);
    expect(t.transport.authIdentity()).toBe(first);
    t.transport.pb.authStore.save('tok-456', { id: 'u1' } as never);
    expect(t.transport.authIdentity()).not.toBe(first);
    t.transport.signOut();
    expect(t.transport.authIdentity()).toBeNull();
  });
});
