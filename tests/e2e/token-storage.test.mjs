// End-to-end: the renderer keeps credentials in memory only, in Debian Chromium against the real
// relay binary. It records every credential the server hands this browser (the app token from
// auth-with-password / auth-refresh, and on Relay Web the CSRF token and the connection token),
// then, after sign-in and again after a reload and a navigation, searches everything the page can
// persist for them: localStorage, sessionStorage, every IndexedDB database (all object stores,
// all records), document.cookie and the context's cookie jar. PocketBase's own persistence keys
// (`pocketbase_auth`, `pb_auth`) must not exist. After a reload the direct-mode UI must ask for
// the passphrase again, since nothing it could resume from survived; Relay Web resumes from its
// HttpOnly session cookie (the only cookie allowed, which must not carry the tokens either) and
// still persists nothing, and after sign-out a reload asks again there too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, signIn, startRelay } from './harness.mjs';

const AUTH_KEY = /pocketbase_auth|pb_auth/i;
const CREDENTIAL_PATHS = /\/auth-with-password$|\/auth-refresh$|\/web\/api\/session(\/resume)?$|\/web\/api\/connection$/;

/** Collects the token and csrfToken of every credential-issuing answer this context receives. */
function recordIssued(ctx) {
  const issued = new Set();
  ctx.on('response', async (res) => {
    if (!CREDENTIAL_PATHS.test(new URL(res.url()).pathname) || res.status() !== 200) return;
    try {
      const body = await res.json();
      for (const value of [body.token, body.csrfToken]) if (typeof value === 'string' && value) issued.add(value);
    } catch {
      /* not JSON (e.g. a 204): nothing issued */
    }
  });
  return issued;
}

/** Everything the page could persist: Web Storage, IndexedDB (every record), cookies. */
async function persisted(page) {
  return page.evaluate(async () => {
    const dump = (s) => Object.keys(s).map((k) => ({ key: k, value: s.getItem(k) }));
    const readAll = (db, name) => new Promise((resolve, reject) => {
      const req = db.transaction(name, 'readonly').objectStore(name).getAll();
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const databases = [];
    for (const info of await indexedDB.databases()) {
      const db = await new Promise((resolve, reject) => {
        const req = indexedDB.open(info.name);
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      const stores = {};
      for (const name of db.objectStoreNames) stores[name] = await readAll(db, name);
      db.close();
      databases.push({ name: info.name, stores: JSON.stringify(stores) });
    }
    return { local: dump(localStorage), session: dump(sessionStorage), databases, cookie: document.cookie };
  });
}

async function assertNothingPersisted(ctx, page, issued, when) {
  assert.ok(issued.size > 0, `${when}: the server issued credentials to this browser`);
  const found = await persisted(page);
  const cookies = await ctx.cookies();
  const keys = [...found.local, ...found.session].map((e) => e.key).concat(found.databases.map((d) => d.name));
  for (const key of keys) assert.doesNotMatch(key, AUTH_KEY, `${when}: a persisted auth key ${key}`);
  const places = {
    localStorage: JSON.stringify(found.local),
    sessionStorage: JSON.stringify(found.session),
    indexedDB: JSON.stringify(found.databases),
    'document.cookie': found.cookie,
    cookies: JSON.stringify(cookies),
  };
  for (const secret of issued) {
    for (const [where, text] of Object.entries(places)) {
      assert.ok(!text.includes(secret), `${when}: an issued credential is in ${where}`);
    }
  }
  for (const cookie of cookies) {
    assert.equal(cookie.name, 'relay_web', `${when}: unexpected cookie ${cookie.name}`);
    assert.equal(cookie.httpOnly, true, `${when}: the session cookie is HttpOnly`);
  }
  assert.equal(found.cookie, '', `${when}: no cookie is readable by the page`);
}

async function signInOnPage(page, passphrase) {
  await page.getByTestId('signin-passphrase').fill(passphrase);
  await page.getByTestId('signin-submit').click();
  await page.locator('[data-testid="status-connection"][data-state="connected"]').waitFor({ timeout: 15_000 });
}

describe('credentials stay in memory', { timeout: 120_000 }, () => {
  let browser;
  const relays = [];

  before(async () => {
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    for (const relay of relays) await relay.stop();
  });

  test('direct mode: no token in any browser storage after sign-in, reload or navigation', async () => {
    const relay = await startRelay();
    relays.push(relay);
    const ctx = await browser.newContext(relay.url);
    const issued = recordIssued(ctx);
    const page = await signIn(ctx, relay);
    await page.getByTestId('nav-people').click();
    await page.getByTestId('tab-people').waitFor({ state: 'visible' });
    await assertNothingPersisted(ctx, page, issued, 'after sign-in');

    await page.reload();
    await page.getByTestId('signin-passphrase').waitFor({ timeout: 15_000 });
    await assertNothingPersisted(ctx, page, issued, 'after a reload (signed out: nothing to resume from)');
    await signInOnPage(page, relay.passphrase);
    await page.goto(relay.url + '/?after=navigation');
    await page.getByTestId('signin-passphrase').waitFor({ timeout: 15_000 });
    await assertNothingPersisted(ctx, page, issued, 'after a navigation');
    assert.deepEqual(page.relayErrors, []);
  });

  test('Relay Web: only the HttpOnly session cookie, no token in storage, after sign-in, a resumed reload and sign-out', async () => {
    const relay = await startRelay({ web: true });
    relays.push(relay);
    const ctx = await browser.newContext(relay.webUrl);
    const issued = recordIssued(ctx);
    const page = await ctx.newPage();
    await page.goto(relay.webUrl + '/');
    await signInOnPage(page, relay.passphrase);
    await page.getByTestId('nav-people').click();
    await page.getByTestId('tab-people').waitFor({ state: 'visible' });
    assert.ok(issued.size >= 2, 'the CSRF token and the connection token were seen');
    await assertNothingPersisted(ctx, page, issued, 'after web sign-in');

    // A reload resumes the session from the HttpOnly cookie (the CSRF token is fetched again,
    // never read from storage): no passphrase, and still nothing persisted.
    await page.reload();
    await page.locator('[data-testid="status-connection"][data-state="connected"]').waitFor({ timeout: 15_000 });
    assert.equal(await page.getByTestId('signin-passphrase').count(), 0, 'the reload resumed the session');
    await assertNothingPersisted(ctx, page, issued, 'after a reload (resumed)');
    // Signed out, a reload has nothing to resume: it asks again, and signing in persists nothing.
    await page.getByTestId('sign-out').click();
    await page.reload();
    await page.getByTestId('signin-passphrase').waitFor({ timeout: 15_000 });
    await assertNothingPersisted(ctx, page, issued, 'after sign-out and a reload');
    await signInOnPage(page, relay.passphrase);
    await assertNothingPersisted(ctx, page, issued, 'after signing in again');
  });
});
