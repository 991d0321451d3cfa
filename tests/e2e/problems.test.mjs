// End-to-end: the Problems tab in Debian Chromium against the real relay binary and a fake
// Dynatrace (a loopback server speaking Grail's query:execute / query:poll JSON, reached through
// the debug-only RELAY_TEST_UPSTREAM_DYNATRACE override). Before any configuration the tab shows
// the "not configured" empty state, naming the `relay dynatrace` commands on the server PC (a
// browser has no Administration screen). The Owner configures the environment and the platform token
// with `relay dynatrace` (server-local, password and token on stdin) and `relay dynatrace sync`
// fills the problems: the open problem appears live (no reload) with its severity, root cause and
// entities; the Addressed checkbox writes `dynatrace_problem_states` (a second client sees it
// checked); a note is appended with its author (`dynatrace_problem_notes`, create only) and the
// session stays signed in; a problem created by a later sync raises a "New Dynatrace problem"
// toast; Alt+↓ walks the unaddressed problems and Alt+N reaches the note field.
// Screenshot: problems.png (harness.mjs `screenshot`, into the ignored target/screenshots).
import { before, after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, apiToken, count, screenshot, signInNewClient, signedInSuite, until } from './harness.mjs';
import { cli, fakeGrail, grailProblem } from './fakeGrail.mjs';

const OWNER_PW = 'owner-password-e2e-0001';
const TOKEN = 'dt0s16.E2ETEST.SECRETPART0123456789';
const ENV_URL = 'https://abc12345.apps.dynatrace.com';

const grail = await fakeGrail();

describe('Problems tab against a fake Dynatrace', { timeout: 180_000 }, () => {
  const client = signedInSuite({ env: { RELAY_TEST_UPSTREAM_DYNATRACE: grail.origin } });
  let page;
  let token;
  before(async () => {
    page = client.page;
    token = await apiToken(client.relay);
  });
  after(() => grail.close());

  test('not configured: the empty state, one h1', async () => {
    await cli(client.relay.dataDir, ['dynatrace', 'sync']).catch(() => {}); // writes the "disabled" sync record
    await page.getByTestId('nav-problems').click();
    const view = page.getByTestId('problems-view');
    await view.waitFor();
    assert.equal(await view.locator('h1').count(), 1);
    assert.equal(await view.locator('h1').innerText(), 'Problems');
    await page.getByTestId('problems-not-configured').waitFor({ timeout: 15_000 });
    const empty = await page.getByTestId('problems-not-configured').innerText();
    assert.match(empty, /Dynatrace is not configured/);
    // A browser has no Settings → Administration: it names the command on the server PC.
    assert.match(empty, /Ask the administrator of the Relay server to run relay dynatrace --data-dir DATA configure and relay dynatrace --data-dir DATA set-token on the server PC/);
  });

  test('configured and synced: the open problem appears live with its details', async () => {
    const dir = client.relay.dataDir;
    await cli(dir, ['admin', 'set-password', '--username', 'ryan'], `${OWNER_PW}\n`);
    await cli(dir, ['admin', 'activate', '--username', 'ryan']);
    await cli(dir, ['dynatrace', 'configure', '--as', 'ryan', '--url', ENV_URL], `${OWNER_PW}\n`);
    await cli(dir, ['dynatrace', 'set-token', '--as', 'ryan'], `${OWNER_PW}\n${TOKEN}\n`);
    grail.records.push(grailProblem('-1111_0001V2', 'P-0001', 'Checkout unavailable', 65));
    const synced = await cli(dir, ['dynatrace', 'sync']);
    assert.doesNotMatch(synced, new RegExp(TOKEN));
    const row = page.locator('[data-testid="problem"][data-problem-id="-1111_0001V2"]');
    await row.waitFor({ timeout: 15_000 });
    assert.equal(await row.getByRole('heading', { level: 2 }).innerText(), 'Checkout unavailable');
    assert.match(await row.getByTestId('problem-severity').innerText(), /Availability/);
    assert.equal(await row.getByTestId('problem-status').innerText(), 'Open');
    assert.match(await row.getByTestId('problem-time').innerText(), /^Open for 1 h \d+ min$/);
    assert.equal(await row.getByTestId('problem-root-cause').innerText(), 'db-01');
    assert.match(await row.getByTestId('problem-entities').innerText(), /checkout/);
    await page.getByTestId('problems-sync').waitFor();
    assert.match(await page.getByTestId('problems-sync').innerText(), /Up to date/);
  });

  test('Addressed writes the problem state; a second client sees it', async () => {
    const row = page.locator('[data-testid="problem"][data-problem-id="-1111_0001V2"]');
    const box = row.getByRole('checkbox', { name: /Addressed \(P-0001\)/ });
    await box.check();
    await until(async () => (await count(client.relay, token, 'dynatrace_problem_states', 'addressed=true')) === 1, 'the addressed state');
    assert.equal(await box.isChecked(), true);
    const second = await signInNewClient(client.browser, client.relay);
    await second.getByTestId('nav-problems').click();
    const other = second.locator('[data-testid="problem"][data-problem-id="-1111_0001V2"]').getByTestId('problem-addressed');
    await until(async () => other.isChecked(), 'the second client sees Addressed');
    // Un-addressing updates the same record (never a second one, never a delete).
    await box.uncheck();
    await until(async () => (await count(client.relay, token, 'dynatrace_problem_states', 'addressed=false')) === 1, 'the state cleared');
    assert.equal(await count(client.relay, token, 'dynatrace_problem_states'), 1);
    await second.context().close();
  });

  test('a note is appended with its author; the session stays signed in', async () => {
    const row = page.locator('[data-testid="problem"][data-problem-id="-1111_0001V2"]');
    const toggle = row.getByTestId('problem-notes-toggle');
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    await row.getByLabel('Add a note').fill('Restarted the checkout pods.');
    await row.getByLabel('Your name').fill('Ann Operator');
    await row.getByTestId('problem-note-add').click();
    const note = row.getByTestId('problem-note').first();
    await note.waitFor();
    assert.equal(await note.locator('.problem-note-text').innerText(), 'Restarted the checkout pods.');
    assert.equal(await note.getByTestId('problem-note-by').innerText(), 'Ann Operator');
    const stored = await api(client.relay, token, 'GET', '/api/collections/dynatrace_problem_notes/records');
    assert.equal(stored.json.items.length, 1);
    assert.equal(stored.json.items[0].author, 'Ann Operator');
    assert.equal(await page.getByTestId('signin-passphrase').count(), 0);
    assert.equal(await page.locator('[data-testid="status-connection"]').getAttribute('data-state'), 'connected');
    await screenshot(page, 'problems');
  });

  test('a problem created by a later sync raises a toast', async () => {
    grail.records.push(grailProblem('-2222_0002V2', 'P-0002', 'Payments slow', 2, 'PERFORMANCE'));
    await cli(client.relay.dataDir, ['dynatrace', 'sync']);
    const toast = page.getByTestId('toast').filter({ hasText: 'New Dynatrace problem P-0002' });
    await toast.waitFor({ timeout: 15_000 });
    assert.match(await toast.innerText(), /Slowdown\): Payments slow/);
    assert.deepEqual(page.relayErrors, []);
  });

  test('Alt+↓ walks the unaddressed problems in list order; Alt+N goes to the note field', async () => {
    await page.getByTestId('problems-view').locator('h1').click();
    const focused = () =>
      page.evaluate(() => document.activeElement?.closest('[data-testid="problem"]')?.getAttribute('data-problem-id') ?? null);
    await page.keyboard.press('Alt+ArrowDown');
    await until(async () => (await focused()) === '-2222_0002V2', 'the newest unaddressed problem focused');
    await page.keyboard.press('Alt+ArrowDown');
    await until(async () => (await focused()) === '-1111_0001V2', 'the next unaddressed problem focused');
    await page.keyboard.press('Alt+ArrowDown');
    await until(async () => (await focused()) === '-2222_0002V2', 'the walk wraps around');
    await page.keyboard.press('Alt+n');
    await until(
      async () => (await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))) === 'problem-note-input',
      'the note field focused',
    );
    assert.equal(await focused(), '-2222_0002V2', 'the note field of the focused problem');
    assert.deepEqual(page.relayErrors, []);
  });
});
