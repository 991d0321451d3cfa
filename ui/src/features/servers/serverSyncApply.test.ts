// Servers sync apply against a simulated sync route (all-or-nothing batches guarded by the
// reviewed records): saves before removals in batches of 100, the list re-read before every batch
// and at the end, connection/identity checks, the route's 409/404/400 texts, uncertain outcomes
// (network, 5xx, bad answers) never retried, and single use.
import { describe, expect, it } from 'vitest';
import { ServerSyncRefusal, TransportError, type ServerSyncOperation } from '../../transport/types';
import {
  BAD_ANSWER,
  CONNECTION_CHANGED,
  LIST_CHANGED,
  OUTCOME_UNCERTAIN,
  PREVIEW_USED,
  ROUTE_CONFLICT,
  ROUTE_MISSING,
  applyServersSync,
  batches,
  canonicalList,
  isApplied,
  type SyncDeps,
  type SyncProgress,
} from './serverSyncApply';
import { planServersSync, type ServerRecord, type SyncPlan } from './serverSyncPlan';

const id = (n: number) => `r${String(n).padStart(14, '0')}`;

/** A stand-in for the store behind POST /api/relay/servers/sync. */
class FakeServer {
  readonly rows = new Map<string, ServerRecord>();
  revision = 0;
  sent: ServerSyncOperation[][] = [];
  /** Replaces the answer of the next send (after recording it). */
  next: ((ops: ServerSyncOperation[]) => Promise<unknown>) | null = null;
  /** Runs after each committed batch (a peer edit racing the sync). */
  afterBatch: (() => void) | null = null;

  constructor(names: string[]) {
    names.forEach((name, i) => this.put({ id: id(i), name, os: '' }));
  }

  put(fields: Record<string, unknown> & { id: string }): ServerRecord {
    const rec: ServerRecord = { created: 'c', updated: `u${++this.revision}`, revision: this.revision, collectionName: 'servers', ...fields };
    this.rows.set(rec.id, rec);
    return rec;
  }

  deps(extra: Partial<SyncDeps> = {}): SyncDeps {
    return {
      readAll: async () => [...this.rows.values()].map((r) => ({ ...r })),
      send: async (ops) => {
        this.sent.push(ops);
        const override = this.next;
        this.next = null;
        if (override) return override(ops);
        const out = this.commit(ops);
        this.afterBatch?.();
        return out;
      },
      online: () => true,
      identity: () => 'u1#1',
      ...extra,
    };
  }

  private commit(ops: ServerSyncOperation[]) {
    for (const op of ops) {
      if (op.action !== 'create' && canonicalList([this.rows.get(op.recordId)]) !== canonicalList([op.expected])) {
        throw new TransportError({ kind: 'server', status: 409, message: 'The Servers list changed after the preview.' });
      }
    }
    return ops.map((op) => {
      if (op.action === 'delete') {
        this.rows.delete(op.recordId);
        return { status: 204, body: null };
      }
      const base: ServerRecord = op.action === 'create' ? { id: `n${String(this.revision).padStart(14, '0')}` } : this.rows.get(op.recordId)!;
      return { status: 200, body: this.put({ ...base, ...op.data }) };
    });
  }
}

function preview(server: FakeServer, rows: Record<string, unknown>[]): SyncPlan {
  const out = planServersSync({ fileName: 'f.csv', rows, current: [...server.rows.values()], identity: 'u1#1' });
  if (!out.ok) throw new Error(out.errors.join('\n'));
  return out.value;
}

/** 200 current servers s0..s199; the file keeps s0..s79 (s0..s29 with a new OS), drops s80..s199 and adds 150. */
function bigCase() {
  const server = new FakeServer(Array.from({ length: 200 }, (_, i) => `s${i}`));
  const rows = [
    ...Array.from({ length: 80 }, (_, i) => ({ name: `S${i}`, os: i < 30 ? 'Linux' : '' })),
    ...Array.from({ length: 150 }, (_, i) => ({ name: `new-${i}`, os: 'Windows' })),
  ];
  return { server, plan: preview(server, rows) };
}

describe('applyServersSync', () => {
  it('sends saves (creates, then updates) before removals, 100 a batch, and reaches the file state', async () => {
    const { server, plan } = bigCase();
    const seen: SyncProgress[] = [];
    const result = await applyServersSync(plan, server.deps({ onProgress: (p) => seen.push(p) }));
    expect(result).toEqual({ imported: 150, updated: 30, removed: 120, unchanged: 50, errors: [], outcomeUncertain: false });
    expect(server.sent.map((b) => b.length)).toEqual([100, 80, 100, 20]);
    expect(server.sent.map((b) => [...new Set(b.map((o) => o.action))])).toEqual([['create'], ['create', 'update'], ['delete'], ['delete']]);
    const names = [...server.rows.values()].map((r) => String(r.name)).sort();
    expect(names).toEqual([...Array.from({ length: 80 }, (_, i) => `s${i}`), ...Array.from({ length: 150 }, (_, i) => `new-${i}`)].sort());
    expect(seen.map((p) => [p.stage, p.processed])).toEqual([['saving', 0], ['saving', 100], ['saving', 180], ['removing', 180], ['removing', 280], ['removing', 300]]);
    expect(seen.at(-1)).toEqual({ stage: 'removing', processed: 300, total: 300, imported: 150, updated: 30, removed: 120 });
  });

  it('sends updates and removals with the whole reviewed record, updates with only the changed fields', async () => {
    const server = new FakeServer(['web-01', 'db-01']);
    const plan = preview(server, [{ name: 'WEB-01', os: 'Linux' }]);
    await applyServersSync(plan, server.deps());
    expect(server.sent).toEqual([
      [{ action: 'update', recordId: id(0), expected: plan.snapshot[0], data: { os: 'Linux' } }],
      [{ action: 'delete', recordId: id(1), expected: plan.snapshot[1] }],
    ]);
    expect(server.rows.get(id(0))).toMatchObject({ name: 'web-01', os: 'Linux' });
  });

  it('stops before the first batch when the list changed after the preview', async () => {
    const { server, plan } = bigCase();
    server.put({ ...server.rows.get(id(5))!, os: 'peer edit' });
    const result = await applyServersSync(plan, server.deps());
    expect(result).toMatchObject({ imported: 0, updated: 0, removed: 0, errors: [LIST_CHANGED], outcomeUncertain: false });
    expect(server.sent).toEqual([]);
  });

  it('stops between batches when a peer changes the list, keeping the confirmed counts', async () => {
    const { server, plan } = bigCase();
    server.afterBatch = () => {
      server.afterBatch = null;
      server.put({ id: 'peerpeerpeer001', name: 'peer' });
    };
    const result = await applyServersSync(plan, server.deps());
    expect(result).toMatchObject({ imported: 100, updated: 0, removed: 0, errors: [LIST_CHANGED], outcomeUncertain: false });
    expect(server.sent).toHaveLength(1);
  });

  it('reports a change after the last batch', async () => {
    const server = new FakeServer(['web-01']);
    const plan = preview(server, [{ name: 'web-01' }, { name: 'db-01' }]);
    server.afterBatch = () => server.put({ id: 'peerpeerpeer001', name: 'peer' });
    const result = await applyServersSync(plan, server.deps());
    expect(result).toMatchObject({ imported: 1, errors: [LIST_CHANGED], outcomeUncertain: false });
  });

  it('stops without a request when offline or signed in as someone else', async () => {
    for (const extra of [{ online: () => false }, { identity: () => 'u1#2' }, { identity: () => null }]) {
      const { server, plan } = bigCase();
      const result = await applyServersSync(plan, server.deps(extra));
      expect(result.errors).toEqual([CONNECTION_CHANGED]);
      expect(server.sent).toEqual([]);
    }
  });

  it('checks the connection again after the re-read, right before sending', async () => {
    const { server, plan } = bigCase();
    let online = true;
    const deps = server.deps({ online: () => online });
    const read = deps.readAll;
    deps.readAll = async () => {
      online = false;
      return read();
    };
    expect((await applyServersSync(plan, deps)).errors).toEqual([CONNECTION_CHANGED]);
    expect(server.sent).toEqual([]);
  });

  it("maps the route's 409 and 404 to their texts (confirmed: not uncertain)", async () => {
    const cases: [TransportError, string][] = [
      [new TransportError({ kind: 'server', status: 409, message: 'The Servers list changed after the preview.' }), ROUTE_CONFLICT],
      [new TransportError({ kind: 'not-found', status: 404, message: 'Not found.' }), ROUTE_MISSING],
      [new TransportError({ kind: 'rejected', status: 403, message: 'CSRF token missing.' }), 'CSRF token missing.'],
    ];
    for (const [err, text] of cases) {
      const { server, plan } = bigCase();
      server.next = async () => {
        throw err;
      };
      const result = await applyServersSync(plan, server.deps());
      expect(result).toMatchObject({ imported: 0, errors: [text], outcomeUncertain: false });
      expect(server.sent).toHaveLength(1);
    }
  });

  it('names the refused operation of a validation 400', async () => {
    const server = new FakeServer(['web-01']);
    const plan = preview(server, [{ name: 'web-01' }, { name: 'db-01' }, { name: 'db-02' }]);
    server.next = async () => {
      throw new ServerSyncRefusal({
        kind: 'invalid',
        status: 400,
        message: 'The Servers import failed record validation.',
        fieldErrors: { os: { code: 'validation_max_length', message: 'Too long.' } },
        operation: 1,
      });
    };
    const result = await applyServersSync(plan, server.deps());
    expect(result.errors).toEqual(['The Servers import failed record validation. Server "db-02": OS: Too long.']);
    expect(result.outcomeUncertain).toBe(false);
  });

  it('marks the outcome uncertain after a network failure, a 5xx or a bad answer, and never retries', async () => {
    const answers: (() => Promise<unknown>)[] = [
      async () => { throw new TransportError({ kind: 'network', status: 0, message: 'Cannot reach the Relay server.' }); },
      async () => { throw new TransportError({ kind: 'server', status: 503, message: 'Unavailable.' }); },
      async () => { throw new TypeError('boom'); },
      async () => ({ results: [] }),
      async () => [{ status: 200, body: { id: 'x' } }],
      async () => Array.from({ length: 100 }, () => ({ status: 500, body: null })),
      async () => Array.from({ length: 100 }, () => ({ status: 200, body: { name: 'no id' } })),
    ];
    for (const answer of answers) {
      const { server, plan } = bigCase();
      server.next = answer;
      const result = await applyServersSync(plan, server.deps());
      expect(result.outcomeUncertain).toBe(true);
      expect(result.errors.at(-1)).toBe(OUTCOME_UNCERTAIN);
      expect(result.imported + result.updated + result.removed).toBe(0);
      expect(server.sent).toHaveLength(1);
    }
    const { server, plan } = bigCase();
    server.next = async () => ({ results: [] });
    expect((await applyServersSync(plan, server.deps())).errors).toEqual([BAD_ANSWER, OUTCOME_UNCERTAIN]);
  });

  it('checks that an update answers the record it was sent for', async () => {
    const server = new FakeServer(['web-01']);
    const plan = preview(server, [{ name: 'web-01', os: 'Linux' }]);
    server.next = async () => [{ status: 200, body: { id: 'someoneelse0001' } }];
    expect(await applyServersSync(plan, server.deps())).toMatchObject({ outcomeUncertain: true, errors: [BAD_ANSWER, OUTCOME_UNCERTAIN] });
  });

  it('applies a plan once', async () => {
    const { server, plan } = bigCase();
    expect(isApplied(plan)).toBe(false);
    await applyServersSync(plan, server.deps());
    expect(isApplied(plan)).toBe(true);
    const sent = server.sent.length;
    expect(await applyServersSync(plan, server.deps())).toMatchObject({ imported: 0, updated: 0, removed: 0, errors: [PREVIEW_USED] });
    expect(server.sent).toHaveLength(sent);
  });

  it('with nothing to change sends nothing and only checks the list', async () => {
    const server = new FakeServer(['web-01']);
    const result = await applyServersSync(preview(server, [{ name: 'web-01' }]), server.deps());
    expect(result).toEqual({ imported: 0, updated: 0, removed: 0, unchanged: 1, errors: [], outcomeUncertain: false });
    expect(server.sent).toEqual([]);
  });

  it('says when the list cannot be re-read (nothing in flight: not uncertain)', async () => {
    const { server, plan } = bigCase();
    const result = await applyServersSync(plan, server.deps({ readAll: async () => { throw new Error('Cannot reach the Relay server.'); } }));
    expect(result.errors).toEqual(['The Servers list could not be re-read: Cannot reach the Relay server. No further changes were made.']);
    expect(result.outcomeUncertain).toBe(false);
  });
});

describe('batches', () => {
  const create = (name: string): ServerSyncOperation => ({ action: 'create', data: { name } });

  it('keeps order and cuts at 100 operations', () => {
    const ops = Array.from({ length: 250 }, (_, i) => create(`s${i}`));
    const out = batches(ops);
    expect(out.map((b) => b.length)).toEqual([100, 100, 50]);
    expect(out.flat()).toEqual(ops);
  });

  it('cuts before the body would pass the byte limit (UTF-8 bytes)', () => {
    const big = (c: string) => create(c.repeat(1000));
    const ops = [big('é'), big('é'), big('a')];
    const one = new TextEncoder().encode(JSON.stringify(ops[0])).length;
    expect(batches(ops, 100, 17 + 2 * (one + 1)).map((b) => b.length)).toEqual([2, 1]);
    expect(batches(ops, 100, 17 + 2 * (one + 1) - 1).map((b) => b.length)).toEqual([1, 2]);
    expect(batches([big('a')], 100, 10)).toHaveLength(1);
  });
});

describe('canonicalList', () => {
  it('ignores record order, key order and expand, and sees any value change', () => {
    const a = { id: 'a', name: 'x', nested: { b: 1, a: [2, { d: 1, c: 2 }] } };
    const b = { id: 'b', name: 'y' };
    expect(canonicalList([a, b])).toBe(canonicalList([{ name: 'y', id: 'b' }, { nested: { a: [2, { c: 2, d: 1 }], b: 1 }, expand: { z: 1 }, name: 'x', id: 'a' }]));
    expect(canonicalList([a, b])).not.toBe(canonicalList([a, { ...b, name: 'Y' }]));
    expect(canonicalList([a, b])).not.toBe(canonicalList([a]));
  });
});
