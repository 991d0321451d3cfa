// End-to-end: the Relay Web gateway (relay serve --bind 0.0.0.0 --web --web-port 0) in Debian
// Chromium. Opens http://localhost:<webport>/ (the session cookie is host-only: never mix hosts),
// signs in, adds a contact, checks credentials stay out of Web Storage and document.cookie,
// refuses a write offline without any request, writes again once back online, re-authenticates
// in place after a 401 (realtime events still arrive afterwards), signs out and checks the session
// is gone. Screenshot: relay-web.png (see harness.mjs `screenshot`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, apiToken, launch, screenshot, startRelay, until } from './harness.mjs';

let relay;
let browser;
let ctx;
let page;

async function addContact(name, email) {
  await page.getByTestId('contact-new').click();
  await page.getByTestId('contact-name-input').fill(name);
  await page.getByTestId('contact-email-input').fill(email);
  await page.getByTestId('contact-save').click();
}

describe('Relay Web gateway', { timeout: 90_000 }, () => {
  before(async () => {
    relay = await startRelay({ web: true });
    assert.match(relay.webUrl, /^http:\/\/localhost:\d+$/);
    browser = await launch();
    ctx = await browser.newContext(relay.webUrl);
    page = await ctx.newPage();
    page.relayErrors = [];
    page.on('pageerror', (e) => page.relayErrors.push(String(e)));
  });

  after(async () => {
    await browser?.close();
    await relay?.stop();
  });

  test('mode detection, sign-in, a tab write, memory-only credentials, HttpOnly cookie', async () => {
    // A legacy persisted token from an old build must be removed at start in web mode too.
    await page.goto(relay.webUrl + '/');
    await page.evaluate(() => localStorage.setItem('pocketbase_auth', '{"token":"legacy"}'));
    await page.reload();
    await page.getByTestId('signin-cleartext-warning').waitFor();
    assert.equal(await page.evaluate(() => localStorage.getItem('pocketbase_auth')), null);

    // The normal data API is not the gateway.
    const mode = await fetch(relay.url + '/web/api/mode');
    assert.equal(mode.status, 404);

    await page.getByTestId('signin-passphrase').fill(relay.passphrase);
    const sessionResponse = page.waitForResponse((r) => new URL(r.url()).pathname === '/web/api/session', { timeout: 15_000 });
    await page.getByTestId('signin-submit').click();
    assert.equal((await sessionResponse).status(), 200);
    await page.locator('[data-testid="status-connection"][data-state="connected"]').waitFor({ timeout: 15_000 });
    assert.match(await page.getByTestId('cleartext-warning').innerText(), /unencrypted HTTP — LAN\/VPN only/);

    await page.getByTestId('nav-people').click();
    await page.getByTestId('tab-people').waitFor({ state: 'visible' });
    await until(async () => /^0 of 0$/.test(await page.getByTestId('people-count').innerText()), 'contacts loaded');
    await addContact('Web Ada', 'web.ada@example.com');
    await page.locator('[data-testid="contact-row"]', { hasText: 'Web Ada' }).waitFor();

    const stored = await page.evaluate(() => {
      const dump = (s) => Object.keys(s).map((k) => `${k}=${s.getItem(k)}`).join('\n');
      return { local: dump(localStorage), session: dump(sessionStorage), cookie: document.cookie };
    });
    for (const where of [stored.local, stored.session]) {
      assert.doesNotMatch(where, /eyJ[\w-]+\.[\w-]+\.[\w-]+/, 'no JWT in Web Storage');
      assert.doesNotMatch(where, /csrf|pocketbase_auth|relay_web/i, 'no CSRF/auth keys in Web Storage');
    }
    assert.doesNotMatch(stored.cookie, /relay_web/, 'relay_web is HttpOnly');
    const cookies = await ctx.cookies(relay.webUrl);
    const session = cookies.find((c) => c.name === 'relay_web');
    assert.ok(session, 'the session cookie is set');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    await screenshot(page, 'relay-web');

    // Browser log forwarding: a console.warn reaches the server log with its module name.
    const logged = page.waitForResponse((r) => new URL(r.url()).pathname === '/web/api/logs', { timeout: 10_000 });
    await page.evaluate(() => console.warn('[e2e-probe] forwarded warning 7f3a'));
    assert.equal((await logged).status(), 204);
    const line = await until(async () => relay.log.find((l) => l.includes('forwarded warning 7f3a')), 'the forwarded log line in the relay log', 5_000);
    assert.match(line, /browser: /);
    assert.match(line, /module="?e2e-?probe/);

  });

  test('offline: a write is refused in the UI with no request; back online it goes through', async () => {
    const sent = [];
    const onRequest = (r) => {
      if (r.method() !== 'GET') sent.push(`${r.method()} ${new URL(r.url()).pathname}`);
    };
    await ctx.setOffline(true);
    await until(async () => (await page.getByTestId('status-connection').getAttribute('data-state')) === 'offline', 'offline state', 10_000);
    page.on('request', onRequest);
    try {
      await addContact('Offline Bob', 'offline.bob@example.com');
      const err = page.getByTestId('contact-form-error');
      await err.waitFor();
      assert.match(await err.innerText(), /offline/i);
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(sent.filter((s) => s.includes('/api/collections/contacts')), [], 'no contact write was sent');
    } finally {
      page.off('request', onRequest);
    }
    await page.keyboard.press('Escape');

    await ctx.setOffline(false);
    await page.locator('[data-testid="status-connection"][data-state="connected"]').waitFor({ timeout: 20_000 });
    // Back online: the collection is refetched in the new generation, then writes reopen.
    await until(async () => {
      await addContact('Online Cy', 'online.cy@example.com');
      const ok = await page.locator('[data-testid="contact-row"]', { hasText: 'Online Cy' }).count();
      if (!ok) await page.keyboard.press('Escape');
      return ok > 0;
    }, 'write after reconnect', 20_000);
    assert.equal(await page.locator('[data-testid="contact-row"]', { hasText: 'Offline Bob' }).count(), 0);
  });

  test('a gateway 401 re-authenticates in place (one /web/api/connection) and the write is retried', async () => {
    let injected = 0;
    const seen = [];
    const onRequest = (r) => seen.push(`${r.method()} ${new URL(r.url()).pathname}`);
    await page.route('**/api/collections/contacts/records', async (route) => {
      if (route.request().method() === 'POST' && injected++ === 0) {
        await route.fulfill({ status: 401, contentType: 'application/json', body: '{"status":401,"message":"sign in to Relay Web","data":{}}' });
      } else await route.continue();
    });
    const isList = (r) => r.method() === 'GET' && new URL(r.url()).pathname === '/api/collections/contacts/records';
    // The re-authentication starts a new generation: the contacts are fetched again once.
    const refetched = page.waitForResponse((r) => isList(r.request()), { timeout: 15_000 });
    page.on('request', onRequest);
    try {
      await addContact('Reauth Dee', 'reauth.dee@example.com');
      await page.locator('[data-testid="contact-row"]', { hasText: 'Reauth Dee' }).waitFor();
      await refetched;
    } finally {
      page.off('request', onRequest);
      await page.unroute('**/api/collections/contacts/records');
    }
    const posts = seen.filter((s) => s.startsWith('POST'));
    assert.deepEqual(posts.filter((s) => /contacts|connection/.test(s)), [
      'POST /api/collections/contacts/records',
      'POST /web/api/connection',
      'POST /api/collections/contacts/records',
    ]);
    assert.equal(await page.getByTestId('status-connection').getAttribute('data-state'), 'connected');

    // Realtime still arrives with the new token: a contact another client adds shows up through the
    // event stream alone (no list fetch).
    const lists = [];
    const onList = (r) => isList(r) && lists.push(r.url());
    page.on('request', onList);
    try {
      const token = await apiToken(relay);
      assert.equal((await api(relay, token, 'POST', '/api/collections/contacts/records', { name: 'Realtime Eve', email: 'eve@example.com' })).status, 200);
      await page.locator('[data-testid="contact-row"]', { hasText: 'Realtime Eve' }).waitFor({ timeout: 15_000 });
    } finally {
      page.off('request', onList);
    }
    assert.deepEqual(lists, [], 'delivered by realtime, not by a refetch');
  });

  test('sign-out: back to sign-in, and the session is gone server-side', async () => {
    const logout = page.waitForResponse((r) => new URL(r.url()).pathname === '/web/api/session/logout', { timeout: 10_000 });
    await page.getByTestId('sign-out').click();
    await page.getByTestId('signin-passphrase').waitFor();
    assert.equal((await logout).status(), 204);
    const status = await page.evaluate(async () => (await fetch('/web/api/connection', { method: 'POST' })).status);
    assert.equal(status, 401);
    assert.deepEqual(page.relayErrors, []);
  });

  test('a refused re-authentication (401 from /web/api/connection) returns to sign-in and stays there', async () => {
    await page.getByTestId('signin-passphrase').fill(relay.passphrase);
    await page.getByTestId('signin-submit').click();
    await page.locator('[data-testid="status-connection"][data-state="connected"]').waitFor({ timeout: 15_000 });
    const gone = (route) => route.fulfill({ status: 401, contentType: 'application/json', body: '{"status":401,"message":"sign in to Relay Web","data":{}}' });
    await page.route('**/web/api/connection', gone);
    await page.route('**/api/collections/contacts/records', (route) => (route.request().method() === 'POST' ? gone(route) : route.continue()));
    await page.getByTestId('nav-people').click();
    await addContact('Never Saved', 'never@example.com');
    await page.getByTestId('signin-notice').waitFor({ timeout: 10_000 });
    assert.match(await page.getByTestId('signin-notice').innerText(), /session has ended/i);
    // A network failure afterwards does not bring the shell back.
    await ctx.setOffline(true);
    await new Promise((r) => setTimeout(r, 300));
    await ctx.setOffline(false);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(await page.getByTestId('signin-passphrase').count(), 1);
    assert.equal(await page.getByTestId('status-connection').count(), 0);
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  });
});
