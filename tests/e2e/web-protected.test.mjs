// End-to-end (issue #18, Relay Web protected sign-in), Debian Chromium against the real relay
// binary with Relay Web on. The Publisher `pat` is created, assigned, given a password and
// activated with `relay admin` (server-local). In a browser on the gateway, Settings shows the
// web Administration surface: a wrong password is refused, `pat` signs in, sees only the Wiki
// section (no account management), uploads a PDF through the page's file chooser (chunked,
// SHA-256 in the page), publishes it, trashes it and deletes it after confirming the password
// on the server. No protected answer carries the password, a token, a proof or a key, and
// nothing protected lands in the page's storage or readable cookies. Signing out of Relay Web
// ends the protected session: after signing in again, Settings asks for the protected sign-in.
// Every wait is bounded; page errors fail the test.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launch, screenshot, signInOnGateway, startRelay } from './harness.mjs';
import { cli } from './fakeGrail.mjs';
import { buildPdf } from './pdf.mjs';

const ADMIN_PW = 'admin-password-e2e-web-01';
const PUBLISHER_PW = 'publisher-password-e2e-web-01';
const TITLE = 'Web published runbook';

let relay;
let browser;
let page;
let tmp;
/** Every answer of /web/api/protected/* the page received: [path, status, body text]. */
const protectedAnswers = [];

async function openSettings() {
  await page.getByTestId('nav-settings').click();
  await page.locator('[data-testid="administration"][data-surface="web"]').waitFor({ timeout: 15_000 });
}

async function signInProtected(password) {
  await page.getByTestId('admin-signin-username').fill('pat');
  await page.getByTestId('admin-signin-password').fill(password);
  await page.getByTestId('admin-signin-submit').click();
}

describe('Relay Web protected sign-in', { timeout: 240_000 }, () => {
  before(async () => {
    relay = await startRelay({ web: true });
    const admin = (args, stdin = '') => cli(relay.dataDir, ['admin', ...args], stdin);
    await admin(['set-password', '--username', 'charles'], `${ADMIN_PW}\n`);
    await admin(['activate', '--username', 'charles']);
    await admin(['create-account', '--as', 'charles', '--username', 'pat', '--display-name', 'Pat Publisher', '--kind', 'publisher'], `${ADMIN_PW}\n`);
    await admin(['assign-publisher', '--as', 'charles', '--username', 'pat'], `${ADMIN_PW}\n`);
    await admin(['set-password', '--username', 'pat'], `${PUBLISHER_PW}\n`);
    await admin(['activate', '--username', 'pat']);
    tmp = await mkdtemp(path.join(tmpdir(), 'relay-e2e-web-protected-'));
    browser = await launch();
    page = await signInOnGateway(browser, relay);
    page.on('response', async (r) => {
      const p = new URL(r.url()).pathname;
      if (!p.startsWith('/web/api/protected/')) return;
      protectedAnswers.push([p, r.status(), await r.text().catch(() => '')]);
    });
  });

  after(async () => {
    await browser?.close();
    await relay?.stop();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  test('a Publisher signs in, uploads, publishes and deletes with a password confirmed on the server', async () => {
    await openSettings();
    await page.getByTestId('admin-web-note').waitFor();
    assert.match(await page.getByTestId('admin-web-note').innerText(), /managed on the Relay server PC/);

    await signInProtected('wrong-password-0001');
    await page.getByTestId('admin-message').waitFor({ timeout: 10_000 });
    assert.match(await page.getByTestId('admin-message').innerText(), /Wrong username or password/);
    assert.equal(await page.getByTestId('admin-signin-password').inputValue(), '', 'the password field is cleared after a failure');

    await signInProtected(PUBLISHER_PW);
    await page.getByTestId('admin-session').waitFor({ timeout: 10_000 });
    assert.match(await page.getByTestId('admin-session').innerText(), /pat.*Publisher/s);
    await page.getByTestId('admin-wiki').waitFor({ timeout: 10_000 });
    assert.equal(await page.getByTestId('admin-accounts-readonly').count(), 0, 'a Publisher sees no accounts');
    for (const id of ['admin-create', 'admin-pair', 'admin-revoke', 'admin-logos']) {
      assert.equal(await page.getByTestId(id).count(), 0, `${id} is not on the web surface`);
    }

    // Upload through the page's chooser: chunked, hashed in the page (no WebCrypto needed).
    const file = path.join(tmp, 'web-runbook.pdf');
    await writeFile(file, buildPdf([['Web upload page one'], ['Web upload page two: quartzvoyager']]));
    const chooser = page.waitForEvent('filechooser', { timeout: 10_000 });
    await page.getByTestId('admin-wiki-upload-button').click();
    await (await chooser).setFiles(file);
    await page.getByTestId('admin-wiki-review-title').waitFor({ timeout: 60_000 });
    await page.getByTestId('admin-wiki-review-title').fill(TITLE);
    await page.getByTestId('admin-wiki-publish').click();
    const row = page.locator('[data-testid="admin-wiki-document"]', { hasText: TITLE });
    await row.waitFor({ timeout: 30_000 });
    await screenshot(page, 'web-protected-publisher');

    await row.getByTestId('admin-wiki-trash').click();
    await row.getByTestId('admin-wiki-delete').waitFor({ timeout: 15_000 });
    await row.getByTestId('admin-wiki-delete').click();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('admin-fresh-password-dialog').waitFor({ timeout: 10_000 });
    await page.getByTestId('admin-fresh-password').fill(PUBLISHER_PW);
    await page.getByTestId('admin-fresh-password-dialog').getByTestId('admin-dialog-submit').click();
    await row.waitFor({ state: 'detached', timeout: 15_000 });

    const confirmed = protectedAnswers.filter(([p]) => p === '/web/api/protected/confirm').map(([, s]) => s);
    assert.deepEqual(confirmed, [200], 'the delete was approved by one password confirmation on the server');
    const chunks = protectedAnswers.filter(([p, s]) => p === '/web/api/protected/wiki/chunks' && s === 200);
    assert.ok(chunks.length >= 1, 'the PDF went up through the chunk route');
    for (const [p, , body] of protectedAnswers) {
      assert.ok(!body.includes(PUBLISHER_PW), `${p} never echoes the password`);
      assert.ok(!/"(token|proof|reauthProof|privateKey|publicJwk|secret)"/i.test(body), `${p} carries no credential: ${body.slice(0, 200)}`);
    }
    const stored = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }));
    assert.ok(!stored.includes(PUBLISHER_PW) && !/relay_web|proof|privileged/i.test(stored), `nothing protected is stored: ${stored}`);
    assert.deepEqual(page.relayErrors, []);
  });

  test('signing out of Relay Web ends the protected session', async () => {
    await page.getByTestId('sign-out').click();
    await page.getByTestId('signin-passphrase').waitFor({ timeout: 15_000 });
    await page.getByTestId('signin-passphrase').fill(relay.passphrase);
    await page.getByTestId('signin-submit').click();
    await page.locator('[data-testid="status-connection"][data-state="connected"]').waitFor({ timeout: 15_000 });
    await openSettings();
    await page.getByTestId('admin-signin').waitFor({ timeout: 10_000 });
    assert.equal(await page.getByTestId('admin-session').count(), 0);
    assert.deepEqual(page.relayErrors, []);
  });
});
