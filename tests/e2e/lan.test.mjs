// The LAN pass (issue #38): Relay opened as the operators open it, by a LAN name over plain HTTP,
// which is not a secure context (no crypto.randomUUID, crypto.subtle, async clipboard or
// ClipboardItem). Chromium maps the names to 127.0.0.1 (`--host-resolver-rules`, harness.mjs), so
// no packet leaves loopback. Each page asserts `window.isSecureContext === false` and that the
// origin is the LAN name, so the pass cannot quietly turn into a localhost test, and any uncaught
// page error or console error fails it. On the data API (`relay-server.lan`) and on Relay Web
// (`<hostname>.local`): sign in, every tab, presence, Copy (plain text through the fallback, read
// back from a secure page of the same browser), Save PNG, Copy for Outlook (a clear message, not
// an error), On-Call and data exports, a Dynatrace dashboard (its id is made without randomUUID),
// the Knowledge PDF viewer (its checksum without crypto.subtle), the on-call pop-out (signed in
// with its opener's session), and a reload on the data API that links to Relay Web.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { api, apiToken, LAN_GATEWAY_NAME, LAN_SERVER_NAME, launch, screenshot, startRelay, until, watchPageErrors } from './harness.mjs';
import { cli } from './fakeGrail.mjs';
import { buildPdf } from './pdf.mjs';

const TABS = ['compose', 'alerts', 'oncall', 'notes', 'status', 'people', 'servers', 'radar', 'problems', 'knowledge', 'settings'];
const OWNER_PW = 'owner-password-e2e-lan-001';
const RUNBOOK = buildPdf([['Page 1 LAN runbook: restart the edge collector'], ['Page 2 Then check the alarms']]);

/** Collects `page`'s uncaught errors and console errors in `page.lanErrors` (harness.mjs). */
function watchErrors(page) {
  page.lanErrors = watchPageErrors(page);
  return page.lanErrors;
}

/** The page is on `origin` by its LAN name, and not a secure context. */
async function assertLanPage(page, origin) {
  const where = await page.evaluate(() => ({ origin: location.origin, secure: window.isSecureContext, randomUUID: typeof crypto.randomUUID, subtle: typeof crypto.subtle }));
  assert.equal(where.origin, origin, 'the page is opened by its LAN name');
  assert.equal(where.secure, false, 'a plain-HTTP LAN page is not a secure context');
  assert.equal(where.randomUUID, 'undefined', 'no crypto.randomUUID here (the API the black page died on)');
  assert.equal(where.subtle, 'undefined', 'no crypto.subtle here');
}

/** Opens `origin` in `ctx` and signs in with the passphrase; resolves once Connected. */
async function signInAt(ctx, origin, passphrase, pathAndQuery = '/') {
  const page = await ctx.newPage();
  watchErrors(page);
  await page.goto(origin + pathAndQuery);
  await assertLanPage(page, origin);
  await page.getByTestId('signin-passphrase').fill(passphrase);
  await page.getByTestId('signin-submit').click();
  await page.locator('[data-testid="status-connection"][data-state="connected"]').waitFor({ timeout: 15_000 }).catch((e) => {
    throw new Error(`not connected after sign-in on ${origin} (page errors: ${JSON.stringify(page.lanErrors)}): ${e.message}`);
  });
  return page;
}

/** Every tab of the sidebar renders, the shell stays connected and nothing throws. */
async function visitEveryTab(page) {
  for (const tab of TABS) {
    await page.getByTestId(`nav-${tab}`).click();
    await page.getByTestId(`tab-${tab}`).waitFor({ state: 'visible' });
    assert.deepEqual(page.lanErrors, [], `no error after opening ${tab}`);
  }
  await page.locator('[data-testid="status-connection"][data-state="connected"]').waitFor();
}

/** A download started by `click`: its suggested name and text. */
async function downloaded(page, click) {
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), click()]);
  return { name: dl.suggestedFilename(), bytes: await readFile(await dl.path()) };
}

/** The text on the browser's clipboard, read from a secure (loopback) page of the same browser. */
async function clipboardText(ctx, secureOrigin) {
  const reader = await ctx.newPage();
  try {
    await reader.goto(`${secureOrigin}/api/health`);
    await reader.bringToFront();
    return await reader.evaluate(() => navigator.clipboard.readText());
  } finally {
    await reader.close();
  }
}

describe('LAN pass: Relay by name over plain HTTP (not a secure context)', { timeout: 240_000 }, () => {
  let relay;
  let browser;
  let token;
  let dir;
  let runbook;
  let direct;

  before(async () => {
    relay = await startRelay({ web: true });
    token = await apiToken(relay);
    dir = await mkdtemp(path.join(tmpdir(), 'relay-e2e-lan-'));
    await cli(relay.dataDir, ['admin', 'set-password', '--username', 'ryan'], `${OWNER_PW}\n`);
    await cli(relay.dataDir, ['admin', 'activate', '--username', 'ryan']);
    const file = path.join(dir, 'lan-runbook.pdf');
    await writeFile(file, RUNBOOK);
    const uploaded = await cli(relay.dataDir, ['wiki', 'upload', '--as', 'ryan', file], `${OWNER_PW}\n`);
    const line = uploaded.split('\n').find((l) => l.includes('lan-runbook.pdf') && l.trim().endsWith('ready'));
    assert.ok(line, uploaded);
    await cli(relay.dataDir, ['wiki', 'publish', '--as', 'ryan', line.trim().split(/\s+/)[0], '--title', 'LAN runbook', '--type', 'sop'], `${OWNER_PW}\n`);
    runbook = (await api(relay, token, 'GET', `/api/collections/wiki_documents/records?filter=${encodeURIComponent('title="LAN runbook"')}`)).json.items[0];
    assert.ok(runbook, 'the runbook is published');
    for (const [name, email] of [['Ada Lovelace', 'ada@example.com'], ['Bob Ops', 'bob@example.com']]) {
      assert.equal((await api(relay, token, 'POST', '/api/collections/contacts/records', { name, email, phone: '5551234567', title: 'Engineer' })).status, 200);
    }
    assert.equal((await api(relay, token, 'POST', '/api/collections/oncall/records', { team: 'Network', teamId: 'network', role: 'Primary', name: 'Ada Lovelace', contact: '5551234567', timeWindow: '24/7', sortOrder: 0 })).status, 200);
    assert.equal((await api(relay, token, 'POST', '/api/collections/bridge_groups/records', { name: 'NOC Core', contacts: ['ada@example.com', 'bob@example.com'] })).status, 200);
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await relay?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('data API by name: sign in, every tab, presence counts this browser', async () => {
    const ctx = await browser.newContext(relay.url);
    direct = await signInAt(ctx, relay.lanUrl, relay.passphrase);
    assert.match(relay.lanUrl, new RegExp(`^http://${LAN_SERVER_NAME.replace(/\./g, '\\.')}:\\d+$`));
    await visitEveryTab(direct);
    await direct.getByTestId('nav-compose').click();
    // The heartbeat carries this tab's session id (made without crypto.randomUUID).
    await until(async () => /^[1-9]\d* clients?$/.test(await direct.getByTestId('client-count').innerText()), 'presence count', 20_000);
    const sessionId = await direct.evaluate(() => sessionStorage.getItem('relay:client-presence-session-id'));
    assert.match(sessionId ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await screenshot(direct, 'lan-direct-compose');
  });

  test('data API by name: Copy puts the recipients on the clipboard without the async clipboard API', async () => {
    await direct.locator('[data-testid="group-item"][data-name="NOC Core"] .group-toggle').click();
    await direct.getByTestId('compose-copy').click();
    const text = await until(() => clipboardText(direct.context(), relay.url), 'clipboard text');
    assert.equal(text, 'ada@example.com; bob@example.com');
    assert.deepEqual(direct.lanErrors, []);
  });

  test('data API by name: Save PNG downloads the card; Copy for Outlook says what works instead', async () => {
    await direct.getByTestId('nav-alerts').click();
    await direct.getByTestId('alert-subject').fill('LAN check');
    await direct.getByTestId('alert-body').fill('Edge collector restart.');
    const png = await downloaded(direct, () => direct.getByTestId('alert-save-png').click());
    assert.match(png.name, /^alert-\d{4}-\d{2}-\d{2}\.png$/);
    assert.equal(png.bytes.subarray(1, 4).toString('ascii'), 'PNG');
    await direct.getByTestId('alert-copy-outlook').click();
    // No image can go on the clipboard of a non-secure page: the formatted card goes as HTML and
    // text, and a notice says why the picture is missing and what to use instead.
    const notice = direct.getByTestId('alert-copy-outlook-notice');
    await notice.waitFor();
    assert.match(await notice.innerText(), /http:\/\/[\s\S]*Save PNG/);
    const reader = await direct.context().newPage();
    try {
      await reader.goto(`${relay.url}/api/health`);
      await reader.bringToFront();
      const clip = await until(() => reader.evaluate(async () => {
        const [item] = await navigator.clipboard.read();
        return item.types.includes('text/html') ? { types: [...item.types].sort(), html: await (await item.getType('text/html')).text() } : null;
      }), 'the card on the clipboard');
      assert.deepEqual(clip.types, ['text/html', 'text/plain'], 'HTML and text, no picture');
      assert.match(clip.html, /LAN check/);
    } finally {
      await reader.close();
    }
    await direct.getByTestId('alert-copy-outlook-notice-dismiss').click();
    await notice.waitFor({ state: 'detached' });
    assert.deepEqual(direct.lanErrors, []);
  });

  test('data API by name: On-Call and data exports download', async () => {
    await direct.getByTestId('nav-oncall').click();
    const board = await downloaded(direct, () => direct.getByTestId('board-export').click());
    assert.match(board.name, /^oncall-export-\d{4}-\d{2}-\d{2}\.csv$/);
    assert.match(board.bytes.toString('utf8'), /^Team,Role,Name,Phone,Time Window/);
    await direct.getByTestId('nav-settings').click();
    await direct.getByTestId('export-category').selectOption('contacts');
    await direct.getByTestId('export-format').selectOption('csv');
    const contacts = await downloaded(direct, () => direct.getByTestId('export-run').click());
    assert.match(contacts.bytes.toString('utf8'), /ada@example\.com/);
    assert.deepEqual(direct.lanErrors, []);
  });

  test('data API by name: a Dynatrace dashboard is saved (its id made without randomUUID)', async () => {
    await direct.getByTestId('settings-dynatrace-dashboards').scrollIntoViewIfNeeded();
    await direct.getByTestId('dt-dashboard-name').fill('NOC overview');
    await direct.getByTestId('dt-dashboard-url').fill('https://abc12345.apps.dynatrace.com/ui/dashboards/1');
    await direct.getByTestId('dt-dashboard-save').click();
    await direct.getByTestId('dt-dashboards-list').getByText('NOC overview').waitFor();
    await direct.getByTestId('dt-launcher').waitFor();
    assert.deepEqual(direct.lanErrors, []);
  });

  test('data API by name: the Knowledge viewer checks the PDF without crypto.subtle and draws it', async () => {
    await direct.getByTestId('nav-knowledge').click();
    await direct.locator(`[data-testid="knowledge-document"][data-id="${runbook.id}"]`).click();
    await direct.getByTestId('pdf-viewer').waitFor();
    await direct.locator('.pdf-page[data-page="1"][data-drawn="true"]').waitFor({ timeout: 20_000 });
    assert.equal(await direct.getByTestId('pdf-error').count(), 0, 'no checksum or load error');
    const pdf = await downloaded(direct, () => direct.getByTestId('pdf-download').click());
    assert.ok(pdf.bytes.equals(RUNBOOK), 'Download saves the published bytes');
    await direct.keyboard.press('Escape');
    await direct.getByTestId('pdf-viewer').waitFor({ state: 'detached' });
    assert.deepEqual(direct.lanErrors, []);
  });

  test('data API by name: Pop out opens the board signed in with the opener\'s session', async () => {
    await direct.getByTestId('nav-oncall').click();
    const [pop] = await Promise.all([direct.context().waitForEvent('page', { timeout: 15_000 }), direct.getByTestId('board-popout').click()]);
    watchErrors(pop);
    await pop.waitForLoadState('domcontentloaded');
    await assertLanPage(pop, relay.lanUrl);
    // No passphrase asked: the opener lent its in-memory session (lib/sessionHandoff).
    await pop.locator('[data-team="network"]').waitFor({ timeout: 15_000 });
    assert.equal(await pop.getByTestId('signin-passphrase').count(), 0);
    assert.equal(await pop.getByTestId('board-add').count(), 0, 'the pop-out is read-only');
    assert.deepEqual(pop.lanErrors, []);
    await pop.close();
  });

  test('data API by name: a reload explains itself and links to Relay Web by a name it accepts', async () => {
    await direct.reload();
    await assertLanPage(direct, relay.lanUrl);
    const note = direct.getByTestId('signin-direct-note');
    await note.waitFor();
    assert.match(await note.innerText(), /reload/);
    const link = direct.getByTestId('signin-relay-web-link');
    assert.equal(await link.getAttribute('href'), `${relay.lanWebUrl}/`);
    await screenshot(direct, 'lan-direct-reload');
    await link.click();
    await direct.waitForURL(`${relay.lanWebUrl}/`);
    await direct.getByTestId('signin-passphrase').waitFor();
    await assertLanPage(direct, relay.lanWebUrl);
    assert.deepEqual(direct.lanErrors, []);
  });

  test('Relay Web by <hostname>.local: sign in, every tab, a reload resumes', async () => {
    assert.ok(relay.lanWebUrl?.startsWith(`http://${LAN_GATEWAY_NAME}:`), relay.lanWebUrl);
    const ctx = await browser.newContext(relay.webUrl);
    const web = await signInAt(ctx, relay.lanWebUrl, relay.passphrase);
    await visitEveryTab(web);
    await web.getByTestId('nav-compose').click();
    await until(async () => /^[1-9]\d* clients?$/.test(await web.getByTestId('client-count').innerText()), 'presence count', 20_000);
    await web.reload();
    await assertLanPage(web, relay.lanWebUrl);
    await web.locator('[data-testid="status-connection"][data-state="connected"]').waitFor({ timeout: 15_000 });
    await web.getByTestId('nav-knowledge').click();
    await web.locator(`[data-testid="knowledge-document"][data-id="${runbook.id}"]`).click();
    await web.locator('.pdf-page[data-page="1"][data-drawn="true"]').waitFor({ timeout: 20_000 });
    await web.keyboard.press('Escape');
    await screenshot(web, 'lan-relay-web');
    assert.deepEqual(web.lanErrors, []);
    assert.deepEqual(direct.lanErrors, []);
  });
});
