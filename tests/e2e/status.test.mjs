// End-to-end: the Status tab ("Command Center") in Debian Chromium against the real relay binary,
// on the data API and through the Relay Web gateway. This build's feed poller has no upstream
// (every feed reports "feed not available in this build"), so the board must say so honestly:
// 14 cards (the four Mist regions are one row), each "Feed unavailable" with its last error,
// posture 0 of 14 impacted, worst severity Unknown, no toast. The filter narrows the cards, the
// Mist card has its region chips, a manual refresh is accepted once and the next one within 30 s
// is refused with "Refreshed recently — try again in N s" (gateway: with its CSRF token).
// Screenshot: status-board.png (see harness.mjs `screenshot`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, screenshot, signIn, startRelay, until } from './harness.mjs';

const STATUS = '/api/relay/status';
const REFRESH = '/api/relay/status/refresh';

/** The status payload as the UI's session sees it (same origin, same credentials). */
async function openStatus(page) {
  await page.getByTestId('nav-status').click();
  await page.getByTestId('tab-status').waitFor({ state: 'visible' });
  const view = page.getByTestId('status-view');
  assert.equal(await view.locator('h1').innerText(), 'Status');
  assert.match(await view.innerText(), /Command Center/i); // shown in capitals (CSS)
  await page.getByTestId('status-filter').waitFor({ timeout: 15_000 });
  return view;
}

/** Clicks Refresh and returns the refresh response's status. */
async function refresh(page) {
  const response = page.waitForResponse((r) => new URL(r.url()).pathname === REFRESH, { timeout: 10_000 });
  await page.getByTestId('status-refresh').click();
  return (await response).status();
}

describe('Status tab on the data API', { timeout: 120_000 }, () => {
  let relay;
  let browser;
  let page;

  before(async () => {
    relay = await startRelay();
    browser = await launch();
    const ctx = await browser.newContext(relay.url);
    page = await signIn(ctx, relay);
  });

  after(async () => {
    await browser?.close();
    await relay?.stop();
  });

  test('the board: 14 rows, every feed unavailable and said so, posture of 14, no toast', async () => {
    // Before the tab is opened, nothing asks for the snapshot.
    let asked = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === STATUS) asked++;
    });
    await page.waitForTimeout(500);
    assert.equal(asked, 0, 'no status request before the Status tab is opened');
    await openStatus(page);
    assert.ok(asked >= 1);

    const cards = page.locator('[data-testid^="status-card-"]');
    assert.equal(await cards.count(), 14);
    // The first poll runs at start; until it lands a card may say "No data yet".
    await until(async () => (await page.getByText('Feed unavailable', { exact: true }).count()) === 14, '14 cards say Feed unavailable', 20_000);
    const github = page.getByTestId('status-card-github');
    assert.equal(await github.getAttribute('data-state'), 'unknown');
    assert.match(await github.getByTestId('status-last-error').innerText(), /^Last check failed: feed not available in this build$/);
    assert.equal(await github.getByRole('link', { name: /Status page/ }).getAttribute('href'), 'https://www.githubstatus.com/');
    assert.equal(await github.getByRole('link', { name: /Status page/ }).getAttribute('target'), '_blank');
    assert.equal(await github.getByRole('link', { name: /^X/ }).getAttribute('href'), 'https://x.com/githubstatus');
    assert.equal(await page.getByTestId('status-card-anthropic').getByRole('link', { name: /^X/ }).count(), 0, 'Claude has no X link');

    assert.match(await page.getByTestId('posture-active').innerText(), /Active issues\s+0\s+None/);
    assert.match(await page.getByTestId('posture-impacted').innerText(), /0 of 14/);
    assert.match(await page.getByTestId('posture-worst').innerText(), /Unknown[\s\S]*14 providers without current data/);
    assert.match(await page.getByTestId('posture-quiet').innerText(), /0 of 14/);
    assert.match(await page.getByTestId('status-updated').innerText(), /^Updated (just now|\d+ s ago)$/);
    for (const s of ['active', 'recent', 'resolved']) assert.match(await page.getByTestId(`status-section-${s}`).innerText(), /\(0\)/);
    assert.equal(await page.getByTestId('toast').count(), 0, 'no toast on load');
    await screenshot(page, 'status-board');
  });

  test('filter chips narrow the cards; the Mist card has its region filter', async () => {
    await page.getByTestId('status-chip-github').click();
    assert.equal(await page.getByTestId('status-chip-github').getAttribute('aria-pressed'), 'true');
    assert.equal(await page.locator('[data-testid^="status-card-"]').count(), 1);
    await page.getByTestId('status-chip-mist').click();
    const regions = page.getByTestId('status-mist-regions');
    assert.deepEqual(await regions.getByRole('button').allInnerTexts(), ['All', 'Global', 'EMEA', 'APAC', 'Federal']);
    await page.getByTestId('status-region-emea').click();
    assert.equal(await page.getByTestId('status-region-emea').getAttribute('aria-pressed'), 'true');
    assert.match(await page.getByTestId('status-card-mist').getByTestId('status-last-error').innerText(), /^Last check failed: feed not available in this build$/);
    await page.getByTestId('status-chip-all').click();
    assert.equal(await page.locator('[data-testid^="status-card-"]').count(), 14);
  });

  test('refresh: accepted once, then "Refreshed recently — try again in N s"', async () => {
    assert.equal(await refresh(page), 202);
    await until(async () => (await page.getByTestId('status-refresh').getAttribute('aria-busy')) === 'false', 'spinner ends');
    assert.equal(await refresh(page), 429);
    const notice = page.getByTestId('status-notice');
    await until(async () => /^Refreshed recently — try again in \d+ s$/.test(await notice.innerText()), 'the rate-limit notice');
    assert.equal(await notice.getAttribute('role'), 'status');
    // Chromium logs the refused refresh as a failed resource; nothing else may be logged.
    assert.deepEqual(page.relayErrors.filter((e) => !/Failed to load resource: .*429/.test(e)), []);
  });
});

describe('Status tab through the Relay Web gateway', { timeout: 120_000 }, () => {
  let relay;
  let browser;
  let page;

  before(async () => {
    relay = await startRelay({ web: true });
    browser = await launch();
    const ctx = await browser.newContext(relay.webUrl);
    page = await ctx.newPage();
    page.relayErrors = [];
    page.on('pageerror', (e) => page.relayErrors.push(String(e)));
    await page.goto(relay.webUrl + '/');
    await page.getByTestId('signin-passphrase').fill(relay.passphrase);
    await page.getByTestId('signin-submit').click();
    await page.locator('[data-testid="status-connection"][data-state="connected"]').waitFor({ timeout: 15_000 });
  });

  after(async () => {
    await browser?.close();
    await relay?.stop();
  });

  test('same board and the refresh write carries the CSRF token', async () => {
    await openStatus(page);
    assert.equal(await page.locator('[data-testid^="status-card-"]').count(), 14);
    const sent = page.waitForRequest((r) => new URL(r.url()).pathname === REFRESH && r.method() === 'POST', { timeout: 10_000 });
    const response = page.waitForResponse((r) => new URL(r.url()).pathname === REFRESH, { timeout: 10_000 });
    await page.getByTestId('status-refresh').click();
    assert.ok((await sent).headers()['x-relay-csrf'], 'the gateway write carries X-Relay-CSRF');
    assert.equal((await response).status(), 202);
    assert.deepEqual(page.relayErrors, []);
  });
});
