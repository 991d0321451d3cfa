// End-to-end: the Status tab ("Command Center") in Debian Chromium against the real relay binary.
// On the data API the server polls the recorded-format fixtures served by fixtureUpstream.mjs
// (every status endpoint overridden to it): 14 cards (the four Mist regions are one row), GitHub
// and the other Statuspage providers impacted from their fixture, feeds read without error. Through
// the Relay Web gateway every endpoint points at a closed port, so the board must say so honestly:
// each card "Feed unavailable", posture Unknown, no toast. The filter narrows the cards, the Mist
// card has its region chips, a manual refresh is accepted once and the next one within 30 s is
// refused with "Refreshed recently — try again in N s" (gateway: with its CSRF token).
// Screenshot: status-board.png (see harness.mjs `screenshot`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { clickAndWatchPost, closedUpstreams, launch, screenshot, signedInSuite, signInNewClient, startRelay, until } from './harness.mjs';
import { startFixtureUpstream } from './fixtureUpstream.mjs';

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
  let upstream;
  let relay;
  let browser;
  let page;

  before(async () => {
    upstream = await startFixtureUpstream();
    relay = await startRelay({ env: closedUpstreams(upstream.origin) });
    browser = await launch();
    page = await signInNewClient(browser, relay);
  });

  after(async () => {
    await browser?.close();
    await relay?.stop();
    await upstream?.close();
  });

  test('the board from the recorded feeds: 14 rows, impacted providers first, links, no toast on load', async () => {
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
    // The first poll runs two seconds after start; until it lands a card may say "No data yet".
    const github = page.getByTestId('status-card-github');
    await until(async () => (await github.getAttribute('data-state')) === 'outage', 'GitHub shows its fixture outage', 20_000);
    assert.equal(await github.getByTestId('status-last-error').count(), 0, 'the feed was read');
    assert.equal(await page.getByText('Feed unavailable', { exact: true }).count(), 0, 'every fixture feed was read');
    assert.equal(await github.getByRole('link', { name: /Status page/ }).getAttribute('href'), 'https://www.githubstatus.com/');
    assert.equal(await github.getByRole('link', { name: /Status page/ }).getAttribute('target'), '_blank');
    assert.equal(await github.getByRole('link', { name: /^X/ }).getAttribute('href'), 'https://x.com/githubstatus');
    assert.equal(await page.getByTestId('status-card-anthropic').getByRole('link', { name: /^X/ }).count(), 0, 'Claude has no X link');
    assert.doesNotMatch(await page.getByTestId('posture-impacted').innerText(), /\b0 of 14/);
    assert.match(await page.getByTestId('posture-worst').innerText(), /Outage/);
    assert.match(await page.getByTestId('status-updated').innerText(), /^Updated (just now|\d+ s ago)$/);
    assert.doesNotMatch(await page.getByTestId('status-section-active').innerText(), /\(0\)/);
    assert.equal(await page.getByTestId('toast').count(), 0, 'no toast on load');
    assert.ok(upstream.requests.includes('POST /community/s/sfsites/aura'), 'the Proofpoint flow ran');
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
    assert.equal(await page.getByTestId('status-card-mist').getByTestId('status-last-error').count(), 0);
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
  const gateway = signedInSuite({ web: true });

  test('an unreachable upstream reads as "Feed unavailable", and the refresh write carries the CSRF token', async () => {
    const { page } = gateway;
    await openStatus(page);
    assert.equal(await page.locator('[data-testid^="status-card-"]').count(), 14);
    await until(async () => (await page.getByText('Feed unavailable', { exact: true }).count()) === 14, '14 cards say Feed unavailable', 20_000);
    assert.match(await page.getByTestId('posture-worst').innerText(), /Unknown/);
    assert.match(await page.getByTestId('posture-impacted').innerText(), /0 of 14/);
    assert.equal(await page.getByTestId('toast').count(), 0);
    const post = await clickAndWatchPost(page, 'status-refresh', REFRESH);
    assert.ok(post.headers['x-relay-csrf'], 'the gateway write carries X-Relay-CSRF');
    assert.equal(post.status, 202);
    assert.deepEqual(page.relayErrors, []);
  });
});
