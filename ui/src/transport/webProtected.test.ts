// WebProtectedSession over a Relay Web PocketBaseTransport's `webFetch` against a routed fake
// gateway: the exact routes, methods, bodies and the X-Relay-CSRF header; every refusal code as
// the BridgeRefusal the screen expects (Retry-After included); a gateway 401 of the web session
// itself going through the web session's re-authentication, a protected `rejected` not; the
// chunked Wiki upload (a 9 MiB file in 4 MiB chunks: slices, checksums, query strings, a `busy`
// retried); a cancelled chooser; and the password nowhere but in its request body.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BridgeRefusal, type WikiUploadEvent } from './desktop';
import { isStale } from '../features/admin/wikiModel';
import { PocketBaseTransport } from './pocketbase';
import { json } from './testkit';
import { WebProtectedSession } from './webProtected';
import { BUSY_DELAY_MS, BUSY_RETRIES, chooseFiles } from './webWikiUpload';

const ORIGIN = 'http://localhost:8091';
const PASSWORD = 'correct horse battery staple';
const MiB = 1024 * 1024;
/** WebCrypto's SHA-256 (Node has it; the page under test may not), independent of @noble/hashes. */
const hex = async (b: Uint8Array) =>
  Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', b as BufferSource)), (x) => x.toString(16).padStart(2, '0')).join('');
const b64 = (o: object) => btoa(JSON.stringify(o)).replace(/=+$/, '');
const jwt = `${b64({ alg: 'HS256' })}.${b64({ id: 'u1', exp: 1_000_900, iat: 1_000_000 })}.sig`;

interface Sent {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
  raw: Uint8Array | null;
}

type Route = (sent: Sent) => Response | Promise<Response>;

const SESSION = { username: 'pat', role: 'publisher', lockAtMs: 1_733_400_000_000 };

function setup(routes: Record<string, Route> = {}, opts: { choose?: (multiple: boolean) => Promise<File[] | null> } = {}) {
  const sent: Sent[] = [];
  const all: Record<string, Route> = {
    'POST /web/api/session': () => json(200, { csrfToken: 'csrf-1', expiresAt: '2099-01-01 00:00:00.000Z' }),
    'POST /web/api/connection': () => json(200, { token: jwt, record: { id: 'u1' } }),
    'GET /web/api/protected/status': () => json(200, { available: true, session: null }),
    ...routes,
  };
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    const method = (init?.method ?? 'GET').toUpperCase();
    const body = init?.body;
    const raw = body instanceof Uint8Array ? body : null;
    const s: Sent = {
      method,
      url: String(input),
      path: url.pathname,
      query: url.searchParams,
      headers: new Headers(init?.headers),
      body: typeof body === 'string' ? JSON.parse(body) : body,
      raw,
    };
    sent.push(s);
    const route = all[`${method} ${url.pathname}`];
    return route ? route(s) : json(404, { status: 404, message: 'Not found.', data: {} });
  });
  const transport = new PocketBaseTransport({ origin: ORIGIN, fetch, storage: null, web: { mode: 'relay-web', cleartextHttp: true }, events: null });
  const sleep = vi.fn(async () => undefined);
  const session = new WebProtectedSession(transport.webFetch!, { sleep, choose: opts.choose ?? (async () => null) });
  const protectedCalls = () => sent.filter((c) => c.path.startsWith('/web/api/protected/'));
  return { transport, session, sent, protectedCalls, sleep, routes: all };
}

const refusal = (status: number, code: string, message = 'refused', headers: Record<string, string> = {}) =>
  json(status, { status, message, data: { code } }, headers);

afterEach(() => vi.useRealTimers());

describe('WebProtectedSession requests', () => {
  it('is the web surface and reads the status with GET (parsed with the desktop parser)', async () => {
    const { transport, session, protectedCalls } = setup({
      'GET /web/api/protected/status': () => json(200, { available: true, session: { ...SESSION, role: 'emperor', secret: 'x' } }),
    });
    await transport.signIn('pw');
    expect(session.surface).toBe('web');
    await expect(session.adminStatus()).resolves.toEqual({ available: true, session: { username: 'pat', role: 'publisher', lockAtMs: SESSION.lockAtMs } });
    const [call] = protectedCalls();
    expect(call.url).toBe(`${ORIGIN}/web/api/protected/status`);
    expect(call.method).toBe('GET');
    transport.dispose();
  });

  it('signs in, confirms and locks with POST, the exact bodies and the CSRF header', async () => {
    const { transport, session, protectedCalls } = setup({
      'POST /web/api/protected/sign-in': () => json(200, { available: true, session: SESSION }),
      'POST /web/api/protected/confirm': () => json(200, { available: true, session: SESSION }),
      'POST /web/api/protected/lock': () => json(200, { available: true, session: null }),
    });
    await transport.signIn('pw');
    await expect(session.adminSignIn('pat', PASSWORD)).resolves.toMatchObject({ session: { username: 'pat', role: 'publisher' } });
    await expect(session.adminConfirmPassword(PASSWORD)).resolves.toMatchObject({ available: true });
    await expect(session.adminLock()).resolves.toEqual({ available: true, session: null });
    const calls = protectedCalls();
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      `POST ${ORIGIN}/web/api/protected/sign-in`,
      `POST ${ORIGIN}/web/api/protected/confirm`,
      `POST ${ORIGIN}/web/api/protected/lock`,
    ]);
    expect(calls.map((c) => c.body)).toEqual([{ username: 'pat', password: PASSWORD }, { password: PASSWORD }, {}]);
    for (const c of calls) {
      expect(c.headers.get('X-Relay-CSRF')).toBe('csrf-1');
      expect(c.headers.get('Content-Type')).toBe('application/json');
    }
    transport.dispose();
  });

  it('runs a command with {command, payload, expectedRevision} and resolves with its result', async () => {
    const { transport, session, protectedCalls } = setup({
      'POST /web/api/protected/command': (s) => {
        const cmd = (s.body as { command: string }).command;
        if (cmd === 'admin.snapshot') {
          return json(200, { result: { accounts: [{ id: 'a1', username: 'olivia', kind: 'administrator', active: true, role: 'owner', password: 'Configured', passwordHash: 'secret' }], devices: [], authority: { ownerAccountId: 'a1', publisherAccountId: null, revision: 3 } } });
        }
        return json(200, { result: { categories: [], documents: [] } });
      },
    });
    await transport.signIn('pw');
    await expect(session.adminCommand('wiki.library', { a: 1 })).resolves.toEqual({ categories: [], documents: [] });
    const snap = await session.adminSnapshot();
    expect(snap.accounts[0]).toEqual({ id: 'a1', username: 'olivia', displayName: '', kind: 'administrator', active: true, role: 'owner', password: 'Configured' });
    expect(JSON.stringify(snap)).not.toContain('secret');
    const calls = protectedCalls();
    expect(calls[0].url).toBe(`${ORIGIN}/web/api/protected/command`);
    expect(calls.map((c) => c.body)).toEqual([
      { command: 'wiki.library', payload: { a: 1 }, expectedRevision: null },
      { command: 'admin.snapshot', payload: {}, expectedRevision: null },
    ]);
    expect(calls.every((c) => c.headers.get('X-Relay-CSRF') === 'csrf-1')).toBe(true);
    transport.dispose();
  });
});

describe('refusals', () => {
  const cases: [number, string, string][] = [
    [403, 'locked', 'locked'],
    [403, 'password_required', 'passwordRequired'],
    [401, 'rejected', 'rejected'],
    [403, 'forbidden', 'forbidden'],
    [403, 'not_on_the_web', 'forbidden'],
    [400, 'invalid', 'invalid'],
    [429, 'rate_limited', 'rateLimited'],
    [409, 'stale_revision', 'rejected'],
    [503, 'unavailable', 'unavailable'],
  ];

  it.each(cases)('HTTP %i %s → %s, with the server message', async (status, code, expected) => {
    const message = code === 'stale_revision' ? 'the record changed meanwhile; reload and retry' : `no: ${code}`;
    const { transport, session, sent } = setup({ 'POST /web/api/protected/command': () => refusal(status, code, message) });
    await transport.signIn('pw');
    const e = await session.adminCommand('wiki.trash', { documentId: 'd' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(BridgeRefusal);
    expect(e).toMatchObject({ code: expected, message });
    // A protected refusal is not the web session's: no re-authentication.
    expect(sent.filter((c) => c.path === '/web/api/connection')).toHaveLength(1);
    expect(transport.state).not.toBe('auth-failed');
    transport.dispose();
  });

  it('a stale revision reads as stale to the Wiki even without the usual sentence', async () => {
    const { transport, session } = setup({ 'POST /web/api/protected/command': () => refusal(409, 'stale_revision', 'Conflict.') });
    await transport.signIn('pw');
    const e = await session.adminCommand('wiki.retitle', {}).catch((x: unknown) => x);
    expect(isStale(e)).toBe(true);
    transport.dispose();
  });

  it('rate_limited carries the Retry-After seconds (delta or HTTP date)', async () => {
    const { transport, session, routes } = setup({ 'POST /web/api/protected/sign-in': () => refusal(429, 'rate_limited', 'Too many attempts.', { 'Retry-After': '42' }) });
    await transport.signIn('pw');
    await expect(session.adminSignIn('pat', PASSWORD)).rejects.toMatchObject({ code: 'rateLimited', retryAfterSeconds: 42 });
    const at = new Date(Date.now() + 10_000).toUTCString();
    routes['POST /web/api/protected/sign-in'] = () => refusal(429, 'rate_limited', 'Too many attempts.', { 'Retry-After': at });
    const e = (await session.adminSignIn('pat', PASSWORD).catch((x: unknown) => x)) as BridgeRefusal;
    expect(e.retryAfterSeconds).toBeGreaterThanOrEqual(8);
    expect(e.retryAfterSeconds).toBeLessThanOrEqual(11);
    transport.dispose();
  });

  it('a network failure is unavailable', async () => {
    const { transport, session, routes } = setup();
    await transport.signIn('pw');
    routes['GET /web/api/protected/status'] = () => Promise.reject(new TypeError('fetch failed'));
    await expect(session.adminStatus()).rejects.toMatchObject({ code: 'unavailable' });
    transport.dispose();
  });

  it("a 401 of the web session itself goes through the web session's re-authentication, then retries", async () => {
    let statuses = 0;
    const { transport, session, sent } = setup({
      'GET /web/api/protected/status': () =>
        ++statuses === 1 ? refusal(401, 'no_session', 'sign in to Relay Web') : json(200, { available: true, session: SESSION }),
    });
    await transport.signIn('pw');
    await expect(session.adminStatus()).resolves.toMatchObject({ session: { username: 'pat' } });
    expect(sent.map((c) => c.path)).toEqual([
      '/web/api/session', '/web/api/connection', '/web/api/protected/status', '/web/api/connection', '/web/api/protected/status',
    ]);
    transport.dispose();
  });

  it('when the web session is gone the app goes back to the Relay Web sign-in', async () => {
    let conn = 0;
    const { transport, session } = setup({
      'POST /web/api/connection': () => (++conn === 1 ? json(200, { token: jwt, record: { id: 'u1' } }) : refusal(401, 'no_session', 'no session')),
      'GET /web/api/protected/status': () => refusal(401, 'no_session', 'sign in to Relay Web'),
    });
    await transport.signIn('pw');
    await expect(session.adminStatus()).rejects.toBeInstanceOf(BridgeRefusal);
    expect(transport.state).toBe('auth-failed');
    expect(transport.web!.csrfToken).toBeNull();
    // The screen reads it as the protected session gone with it.
    await expect(session.adminStatus()).rejects.toMatchObject({ code: 'locked' });
    transport.dispose();
  });
});

/** A file whose every byte depends on its offset, so a wrong slice changes a checksum. */
function bigFile(size: number, name = 'manual.pdf'): File {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >>> 12)) & 0xff;
  return new File([bytes], name, { type: 'application/pdf' });
}

describe('Wiki upload', () => {
  it('announces a 9 MiB file and sends its three 4 MiB chunks in order, retrying a busy pipeline', async () => {
    const file = bigFile(9 * MiB);
    const whole = new Uint8Array(await file.arrayBuffer());
    let chunkPosts = 0;
    const stored: number[] = [];
    const { transport, session, protectedCalls, sleep } = setup({
      'POST /web/api/protected/command': (s) => {
        expect(s.body).toMatchObject({ command: 'wiki.upload.begin' });
        return json(200, { result: { batchId: 'b1', expiresAtMs: 1, uploads: [{ uploadId: 'u1', fileName: 'manual.pdf', byteSize: 9 * MiB, chunkSize: 4 * MiB, chunkCount: 3, storedChunks: 0, state: 'queued', error: null }] } });
      },
      'POST /web/api/protected/wiki/chunks': (s) => {
        if (++chunkPosts === 2) return refusal(503, 'busy', 'Another Wiki job is running.');
        const index = Number(s.query.get('index'));
        stored.push(index);
        const last = index === 2;
        return json(200, { uploadId: 'u1', state: last ? 'ready' : 'uploading', storedChunks: stored.length, chunkCount: 3, error: null });
      },
    }, { choose: async (multiple) => (multiple ? [file] : null) });
    await transport.signIn('pw');
    const events: WikiUploadEvent[] = [];
    const summary = await session.adminWikiUpload(null, (e) => events.push(e));

    const calls = protectedCalls();
    expect(calls[0].body).toEqual({
      command: 'wiki.upload.begin',
      payload: { files: [{ fileName: 'manual.pdf', byteSize: 9 * MiB, checksum: await hex(whole) }] },
      expectedRevision: null,
    });
    const chunks = calls.filter((c) => c.path === '/web/api/protected/wiki/chunks');
    expect(chunks).toHaveLength(4); // chunk 1 twice: busy, then stored
    const ranges = [[0, 4 * MiB], [4 * MiB, 8 * MiB], [4 * MiB, 8 * MiB], [8 * MiB, 9 * MiB]];
    for (const [i, c] of chunks.entries()) {
      const [start, end] = ranges[i];
      const slice = whole.subarray(start, end);
      const index = i === 0 ? 0 : i === 3 ? 2 : 1;
      const sum = await hex(slice);
      expect(c.url).toBe(`${ORIGIN}/web/api/protected/wiki/chunks?uploadId=u1&batchId=b1&index=${index}&byteSize=${end - start}&checksum=${sum}`);
      expect(c.headers.get('Content-Type')).toBe('application/octet-stream');
      expect(c.headers.get('X-Relay-CSRF')).toBe('csrf-1');
      expect(c.raw).not.toBeNull();
      expect(c.raw!.byteLength).toBe(end - start);
      expect(await hex(c.raw!)).toBe(sum);
    }
    expect(sleep).toHaveBeenCalledTimes(1);
    expect(sleep).toHaveBeenCalledWith(BUSY_DELAY_MS);
    expect(events.map((e) => [e.state, e.storedChunks, e.chunkCount])).toEqual([
      ['queued', 0, 3], ['uploading', 1, 3], ['uploading', 2, 3], ['ready', 3, 3],
    ]);
    expect(events.every((e) => e.uploadId === 'u1' && e.fileName === 'manual.pdf' && e.byteSize === 9 * MiB)).toBe(true);
    expect(summary).toEqual({ batchId: 'b1', files: [{ uploadId: 'u1', fileName: 'manual.pdf', byteSize: 9 * MiB, state: 'ready', storedChunks: 3, chunkCount: 3, error: null }] });
    transport.dispose();
  });

  it(`gives up on a file after ${BUSY_RETRIES} busy retries and reports it failed; replacing chooses one file`, async () => {
    const file = bigFile(1000, 'one.pdf');
    let multiple: boolean | null = null;
    const { transport, session, protectedCalls, sleep } = setup({
      'POST /web/api/protected/command': () =>
        json(200, { result: { batchId: 'b2', expiresAtMs: 1, uploads: [{ uploadId: 'u9', fileName: 'one.pdf', byteSize: 1000, chunkSize: 4 * MiB, chunkCount: 1, storedChunks: 0, state: 'queued', error: null }] } }),
      'POST /web/api/protected/wiki/chunks': () => refusal(503, 'busy', 'Another Wiki job is running.'),
    }, { choose: async (m) => { multiple = m; return [file]; } });
    await transport.signIn('pw');
    const events: WikiUploadEvent[] = [];
    const summary = await session.adminWikiUpload('doc_1', (e) => events.push(e));
    expect(multiple).toBe(false);
    expect(protectedCalls()[0].body).toMatchObject({ payload: { replacementDocumentId: 'doc_1' } });
    expect(protectedCalls().filter((c) => c.path.endsWith('/wiki/chunks'))).toHaveLength(BUSY_RETRIES + 1);
    expect(sleep).toHaveBeenCalledTimes(BUSY_RETRIES);
    expect(events[events.length - 1]).toMatchObject({ state: 'failed', error: 'Another Wiki job is running.' });
    expect(summary.files[0]).toMatchObject({ uploadId: 'u9', state: 'failed' });
    transport.dispose();
  });

  it('a locked session ends the batch with the refusal', async () => {
    const { transport, session } = setup({
      'POST /web/api/protected/command': () =>
        json(200, { result: { batchId: 'b3', expiresAtMs: 1, uploads: [{ uploadId: 'u1', fileName: 'a.pdf', byteSize: 10, chunkSize: 4 * MiB, chunkCount: 1, storedChunks: 0, state: 'queued', error: null }] } }),
      'POST /web/api/protected/wiki/chunks': () => refusal(403, 'locked', 'Locked.'),
    }, { choose: async () => [bigFile(10, 'a.pdf')] });
    await transport.signIn('pw');
    await expect(session.adminWikiUpload(null, () => undefined)).rejects.toMatchObject({ code: 'locked' });
    transport.dispose();
  });

  it('a cancelled chooser sends nothing and resolves an empty summary', async () => {
    const { transport, session, protectedCalls } = setup({}, { choose: async () => null });
    await transport.signIn('pw');
    const onEvent = vi.fn();
    await expect(session.adminWikiUpload(null, onEvent)).resolves.toEqual({ batchId: null, files: [] });
    expect(protectedCalls()).toHaveLength(0);
    expect(onEvent).not.toHaveBeenCalled();
    transport.dispose();
  });
});

describe('the page chooser', () => {
  /** Just enough of a Document for chooseFiles: one input element that records its clicks. */
  function fakeDocument() {
    const win = new EventTarget();
    const input = Object.assign(new EventTarget(), {
      type: '', accept: '', multiple: false, hidden: false, files: null as File[] | null, clicked: 0, removed: false,
      click() { this.clicked++; },
      remove() { this.removed = true; },
    });
    const doc = { defaultView: win, createElement: () => input, body: { appendChild: vi.fn() } };
    return { doc: doc as unknown as Document, input };
  }

  it('opens a PDF input (multiple unless replacing) and resolves null on cancel', async () => {
    const { doc, input } = fakeDocument();
    const p = chooseFiles(false, doc);
    expect(input).toMatchObject({ type: 'file', accept: 'application/pdf,.pdf', multiple: false, clicked: 1 });
    input.dispatchEvent(new Event('cancel'));
    await expect(p).resolves.toBeNull();
    expect(input.removed).toBe(true);
  });

  it('resolves the chosen files on change', async () => {
    const { doc, input } = fakeDocument();
    const p = chooseFiles(true, doc);
    expect(input.multiple).toBe(true);
    const f = bigFile(3, 'x.pdf');
    input.files = [f];
    input.dispatchEvent(new Event('change'));
    await expect(p).resolves.toEqual([f]);
  });

  it('counts the focus coming back without a change as a cancel (browsers without the cancel event)', async () => {
    vi.useFakeTimers();
    const { doc } = fakeDocument();
    const p = chooseFiles(true, doc);
    await vi.advanceTimersByTimeAsync(1);
    doc.defaultView!.dispatchEvent(new Event('focus'));
    await vi.advanceTimersByTimeAsync(2_000);
    await expect(p).resolves.toBeNull();
  });
});

describe('the password', () => {
  it('goes only into the request body: not the URL, a header, the answer, an error or the session object', async () => {
    const { transport, session, sent, routes } = setup({
      'POST /web/api/protected/sign-in': () => json(200, { available: true, session: SESSION }),
    });
    await transport.signIn('pw');
    const status = await session.adminSignIn('pat', PASSWORD);
    routes['POST /web/api/protected/confirm'] = () => refusal(401, 'rejected', 'Wrong password.');
    const e = await session.adminConfirmPassword(PASSWORD).catch((x: unknown) => x);
    const withPassword = sent.filter((c) => JSON.stringify(c.body ?? null).includes(PASSWORD));
    expect(withPassword.map((c) => c.path)).toEqual(['/web/api/protected/sign-in', '/web/api/protected/confirm']);
    for (const c of sent) {
      expect(c.url).not.toContain(encodeURIComponent(PASSWORD));
      expect(c.url).not.toContain(PASSWORD);
      expect([...c.headers.values()].join('\n')).not.toContain(PASSWORD);
    }
    expect(JSON.stringify(status)).not.toContain(PASSWORD);
    expect(String((e as Error).message)).not.toContain(PASSWORD);
    expect(JSON.stringify(session)).not.toContain(PASSWORD);
    expect(Object.values(session as unknown as Record<string, unknown>).some((v) => v === PASSWORD)).toBe(false);
    transport.dispose();
  });
});
