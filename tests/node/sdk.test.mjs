// Black-box test: drives a real `relay serve` process with the official
// `pocketbase` JS SDK (unchanged) to check that Relay's PocketBase-style REST
// and realtime (SSE) conventions are what the SDK expects.
//
// Binary: $RELAY_BIN, else $CARGO_TARGET_DIR/debug/relay, else
// <repo>/target/debug/relay (relative to this file).

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

// Node 20 has no global EventSource; the SDK calls `new EventSource(url)`.
// eventsource@4 (the last major supporting Node 20) exports a named class.
import { EventSource } from 'eventsource';
globalThis.EventSource = EventSource;

import PocketBase, { ClientResponseError } from 'pocketbase';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');

function relayBin() {
  if (process.env.RELAY_BIN) return path.resolve(process.env.RELAY_BIN);
  if (process.env.CARGO_TARGET_DIR) {
    return path.resolve(process.env.CARGO_TARGET_DIR, 'debug', 'relay');
  }
  return path.join(REPO, 'target', 'debug', 'relay');
}

const READY_TIMEOUT_MS = 20_000;
const EVENT_TIMEOUT_MS = 5_000;
const TEST_TIMEOUT_MS = 15_000;

const ID_RE = /^[a-z0-9]{15}$/;
const DATE_RE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Start `relay serve` on an ephemeral port; resolves once it prints its URL. */
async function startRelay() {
  const bin = relayBin();
  assert.ok(existsSync(bin), `relay binary not found at ${bin} (set RELAY_BIN)`);

  const dataDir = await mkdtemp(path.join(tmpdir(), 'relay-sdk-test-'));
  const passphrase = randomBytes(24).toString('base64url'); // 32 chars
  const child = spawn(
    bin,
    ['serve', '--data-dir', dataDir, '--port', '0', '--bind', '127.0.0.1'],
    {
      env: { ...process.env, RELAY_BOOTSTRAP_PASSPHRASE: passphrase },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );

  // Keep the last lines of server output for failure messages, and keep both
  // pipes drained so the server can never block on a full pipe.
  const log = [];
  const remember = (prefix) => (line) => {
    log.push(prefix + line);
    if (log.length > 200) log.shift();
  };
  const stderrLines = createInterface({ input: child.stderr });
  stderrLines.on('line', remember('[stderr] '));
  const stdoutLines = createInterface({ input: child.stdout });
  stdoutLines.on('line', remember('[stdout] '));

  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });

  let timer;
  try {
    const url = await new Promise((resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`relay did not report readiness within ${READY_TIMEOUT_MS} ms`)),
        READY_TIMEOUT_MS,
      );
      stdoutLines.on('line', (line) => {
        const m = /^Relay listening on (http:\/\/127\.0\.0\.1:\d+)\s*$/.exec(line);
        if (m) resolve(m[1]);
      });
      child.once('error', reject);
      exited.then(({ code, signal }) =>
        reject(new Error(`relay exited before ready (code=${code}, signal=${signal})`)),
      );
    });
    return { child, exited, dataDir, passphrase, url, log };
  } catch (err) {
    await stopRelay({ child, exited, dataDir });
    err.message += `\n--- relay output ---\n${log.join('\n')}`;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

async function stopRelay({ child, exited, dataDir }) {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    let timer;
    const stopped = await Promise.race([
      exited.then(() => true),
      new Promise((r) => { timer = setTimeout(() => r(false), 5_000); }),
    ]);
    clearTimeout(timer);
    if (!stopped) {
      console.error('note: relay did not exit within 5 s of SIGTERM; sending SIGKILL');
      child.kill('SIGKILL');
      await exited;
    }
  }
  await rm(dataDir, { recursive: true, force: true });
}

/** Await `promise` but fail with `what` after `ms`. */
async function within(ms, what, promise) {
  let timer;
  try {
    return await Promise.race([
      promise,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Assert that `promise` rejects with a ClientResponseError of `status`; returns it. */
async function expectStatus(promise, status) {
  let caught;
  await assert.rejects(promise, (err) => {
    caught = err;
    return true;
  });
  assert.ok(caught instanceof ClientResponseError, `expected ClientResponseError, got ${caught}`);
  assert.equal(caught.status, status, `expected HTTP ${status}, got ${caught.status}: ${JSON.stringify(caught.response)}`);
  return caught;
}

function decodeJwtPayload(token) {
  const parts = token.split('.');
  assert.equal(parts.length, 3, 'token is not a three-part JWT');
  for (const p of parts) assert.match(p, /^[A-Za-z0-9_-]+$/, 'JWT segment is not base64url');
  return JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
}

function assertRecordShape(rec, collectionName) {
  assert.match(rec.id, ID_RE, `bad record id ${rec.id}`);
  assert.match(rec.created, DATE_RE, `bad created ${rec.created}`);
  assert.match(rec.updated, DATE_RE, `bad updated ${rec.updated}`);
  assert.ok(Number.isInteger(rec.revision) && rec.revision >= 1, `bad revision ${rec.revision}`);
  assert.equal(rec.collectionName, collectionName);
  assert.equal(typeof rec.collectionId, 'string');
  assert.ok(rec.collectionId.length > 0);
}

describe('pocketbase JS SDK against relay', () => {
  let relay;
  /** Authenticated client shared by most tests. */
  let pb;
  const clients = [];
  const tag = `sdk${randomBytes(4).toString('hex')}`;

  function newClient() {
    const c = new PocketBase(relay.url);
    // Tests run requests sequentially; disable the SDK's client-side
    // duplicate-request cancellation so it can never mask a server result.
    c.autoCancellation(false);
    clients.push(c);
    return c;
  }

  async function newAuthedClient() {
    const c = newClient();
    await c.collection('users').authWithPassword('relay', relay.passphrase);
    return c;
  }

  async function contactCount() {
    const list = await pb.collection('contacts').getList(1, 1);
    assert.ok(Number.isInteger(list.totalItems), `totalItems not an integer: ${list.totalItems}`);
    return list.totalItems;
  }

  before(async () => {
    relay = await startRelay();
    pb = await newAuthedClient();
  });

  after(async () => {
    for (const c of clients) {
      try { await c.realtime.unsubscribe(); } catch { /* already closed */ }
    }
    if (relay) await stopRelay(relay);
  });

  test('authWithPassword succeeds; wrong passphrase is a 400', { timeout: TEST_TIMEOUT_MS }, async () => {
    const fresh = newClient();
    assert.equal(fresh.authStore.isValid, false);
    const auth = await fresh.collection('users').authWithPassword('relay', relay.passphrase);

    assert.equal(typeof auth.token, 'string');
    assert.equal(fresh.authStore.token, auth.token);
    assert.equal(fresh.authStore.isValid, true);
    const payload = decodeJwtPayload(auth.token);
    assert.equal(typeof payload.exp, 'number');
    assert.ok(payload.exp > Date.now() / 1000, `token already expired: exp=${payload.exp}`);
    assert.equal(auth.record.collectionName, 'users');
    assert.equal(fresh.authStore.record?.id, auth.record.id);
    assert.equal(payload.id, auth.record.id);

    const other = newClient();
    const err = await expectStatus(
      other.collection('users').authWithPassword('relay', `${relay.passphrase}-wrong`),
      400,
    );
    assert.equal(err.response.message, 'Failed to authenticate.');
    assert.deepEqual(err.response.data, {});
    assert.equal(other.authStore.isValid, false);
    assert.equal(other.authStore.token, '');
  });

  test('contacts CRUD: create, getOne, getList, getFullList, update, delete', { timeout: TEST_TIMEOUT_MS }, async () => {
    const contacts = pb.collection('contacts');

    const alice = await contacts.create({
      name: `${tag} Alice`,
      email: 'alice@example.com',
      phone: '+1 555 0100',
      title: 'Engineer',
    });
    assertRecordShape(alice, 'contacts');
    assert.equal(alice.name, `${tag} Alice`);
    assert.equal(alice.email, 'alice@example.com');
    assert.equal(alice.phone, '+1 555 0100');
    assert.equal(alice.title, 'Engineer');

    await sleep(20); // distinct `created` timestamps for the sort check
    const bob = await contacts.create({ name: `${tag} Bob` });
    assertRecordShape(bob, 'contacts');
    assert.notEqual(bob.id, alice.id);
    assert.ok(bob.created > alice.created, `created not increasing: ${alice.created} vs ${bob.created}`);

    const fetched = await contacts.getOne(alice.id);
    assert.deepEqual(fetched, alice);

    const list = await contacts.getList(1, 10, { filter: `name ~ "${tag}"`, sort: '-created' });
    assert.equal(list.page, 1);
    assert.equal(list.perPage, 10);
    assert.equal(list.totalItems, 2);
    assert.equal(list.totalPages, 1);
    assert.deepEqual(list.items.map((r) => r.id), [bob.id, alice.id]);

    const asc = await contacts.getList(1, 10, { filter: pb.filter('name ~ {:tag}', { tag }), sort: 'created' });
    assert.deepEqual(asc.items.map((r) => r.id), [alice.id, bob.id]);

    const paged = await contacts.getList(2, 1, { filter: `name ~ "${tag}"`, sort: '-created' });
    assert.equal(paged.page, 2);
    assert.equal(paged.perPage, 1);
    assert.equal(paged.totalItems, 2);
    assert.equal(paged.totalPages, 2);
    assert.deepEqual(paged.items.map((r) => r.id), [alice.id]);

    const full = await contacts.getFullList({ filter: `name ~ "${tag}"`, sort: 'name' });
    assert.ok(Array.isArray(full));
    assert.deepEqual(full.map((r) => r.name), [`${tag} Alice`, `${tag} Bob`]);

    const updated = await contacts.update(alice.id, { title: 'CTO' });
    assert.equal(updated.id, alice.id);
    assert.equal(updated.title, 'CTO');
    assert.equal(updated.name, alice.name);
    assert.equal(updated.email, alice.email);
    assert.equal(updated.created, alice.created);
    assert.ok(updated.revision > alice.revision, `revision did not increase: ${alice.revision} -> ${updated.revision}`);
    assert.ok(updated.updated >= alice.updated, `updated went backwards: ${alice.updated} -> ${updated.updated}`);
    assert.equal((await contacts.getOne(alice.id)).title, 'CTO');

    assert.equal(await contacts.delete(alice.id), true);
    await expectStatus(contacts.getOne(alice.id), 404);
    const remaining = await contacts.getList(1, 10, { filter: `name ~ "${tag}"` });
    assert.deepEqual(remaining.items.map((r) => r.id), [bob.id]);

    assert.equal(await contacts.delete(bob.id), true);
    await expectStatus(contacts.getOne(bob.id), 404);
  });

  test('validation errors are 400 with per-field codes and write nothing', { timeout: TEST_TIMEOUT_MS }, async () => {
    const contacts = pb.collection('contacts');
    await contacts.create({ name: `${tag} Validation seed` });
    const countBefore = await contactCount();
    assert.ok(countBefore >= 1);

    const missing = await expectStatus(contacts.create({ email: 'x@y.io' }), 400);
    assert.equal(missing.response.status, 400);
    assert.equal(typeof missing.response.message, 'string');
    assert.equal(missing.response.data?.name?.code, 'validation_required');
    assert.equal(typeof missing.response.data.name.message, 'string');

    const unknown = await expectStatus(contacts.create({ name: `${tag} Unknown`, bogus_field: 1 }), 400);
    assert.equal(unknown.response.data?.bogus_field?.code, 'validation_unknown_field');

    assert.equal(await contactCount(), countBefore);
  });

  test('filter injection attempts do not match or execute', { timeout: TEST_TIMEOUT_MS }, async () => {
    const contacts = pb.collection('contacts');
    const seed = await contacts.create({ name: `${tag} Injection seed` });
    const countBefore = await contactCount();
    assert.ok(countBefore >= 1);

    const quoted = await contacts.getList(1, 50, { filter: `name = "x' OR 1=1 --"` });
    assert.equal(quoted.totalItems, 0);
    assert.deepEqual(quoted.items, []);

    const raw = await expectStatus(contacts.getList(1, 50, { filter: 'name = 1; DROP TABLE contacts' }), 400);
    assert.equal(raw.response.status, 400);

    assert.equal(await contactCount(), countBefore);
    assert.equal((await contacts.getOne(seed.id)).name, seed.name);
  });

  test('unauthenticated record requests are 401', { timeout: TEST_TIMEOUT_MS }, async () => {
    const anon = newClient();
    assert.equal(anon.authStore.isValid, false);
    const err = await expectStatus(anon.collection('contacts').getList(1, 10), 401);
    assert.equal(err.response.status, 401);
    await expectStatus(anon.collection('contacts').create({ name: `${tag} anon` }), 401);
    // ...and the authenticated client still works.
    assert.ok(Number.isInteger(await contactCount()));
  });

  test('realtime: create/update/delete by another client are pushed over SSE', { timeout: 30_000 }, async () => {
    const events = [];
    const waiters = [];
    const onEvent = (e) => {
      events.push(e);
      for (const w of [...waiters]) w();
    };
    /** Wait (bounded) for the first not-yet-consumed event matching `pred`. */
    const seen = new Set();
    const waitFor = (what, pred) =>
      within(EVENT_TIMEOUT_MS, what, new Promise((resolve) => {
        const check = () => {
          const hit = events.find((e) => !seen.has(e) && pred(e));
          if (hit) {
            seen.add(hit);
            waiters.splice(waiters.indexOf(check), 1);
            resolve(hit);
          }
        };
        waiters.push(check);
        check();
      })).catch((err) => {
        err.message += `; events so far: ${JSON.stringify(events)}`;
        throw err;
      });

    const listener = await newAuthedClient();
    const writer = await newAuthedClient();
    try {
      const unsubscribe = await within(
        10_000,
        'subscribe() to resolve',
        listener.collection('contacts').subscribe('*', onEvent),
      );
      assert.equal(typeof unsubscribe, 'function');
      assert.equal(listener.realtime.isConnected, true);
      assert.ok(listener.realtime.clientId.length > 0, 'no clientId from PB_CONNECT');

      const name = `${tag} Realtime`;
      const created = await writer.collection('contacts').create({ name });
      const ev1 = await waitFor('create event', (e) => e.action === 'create' && e.record?.id === created.id);
      assert.equal(ev1.record.name, name);
      assert.equal(ev1.record.collectionName, 'contacts');
      assert.equal(ev1.record.revision, created.revision);

      const updated = await writer.collection('contacts').update(created.id, { title: 'Realtime title' });
      const ev2 = await waitFor('update event', (e) => e.action === 'update' && e.record?.id === created.id);
      assert.equal(ev2.record.title, 'Realtime title');
      assert.equal(ev2.record.revision, updated.revision);

      await writer.collection('contacts').delete(created.id);
      const ev3 = await waitFor('delete event', (e) => e.action === 'delete' && e.record?.id === created.id);
      assert.equal(ev3.record.name, name);

      assert.deepEqual(events.map((e) => e.action), ['create', 'update', 'delete']);
    } finally {
      await listener.realtime.unsubscribe();
    }
    assert.equal(listener.realtime.isConnected, false);
  });
});
