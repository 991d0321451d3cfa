// End-to-end: the Radar tab in Debian Chromium against the real relay binary, on the data API and
// through the Relay Web gateway. The test server has no stored Radar session, so the server must
// never have read the page and must say a sign-in is needed: the tab shows the sign-in panel
// (no link, no URL), "Never updated", no board, and the nav item says "Radar: sign-in needed"
// with no toast. A manual refresh answers the snapshot (200) after the attempted read; on the
// gateway the refresh write carries its CSRF token. Screenshot: radar-signin.png (harness.mjs
// `screenshot`, into the ignored target/screenshots).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { clickAndWatchPost, screenshot, signedInSuite, until } from './harness.mjs';

const RADAR = '/api/relay/radar';
const REFRESH = '/api/relay/radar/refresh';

async function openRadar(page) {
  await page.getByTestId('nav-radar').click();
  await page.getByTestId('tab-radar').waitFor({ state: 'visible' });
  const view = page.getByTestId('radar-view');
  assert.equal(await view.locator('h1').innerText(), 'Radar');
  await page.getByTestId('radar-signin').waitFor({ timeout: 15_000 });
  return view;
}

describe('Radar tab on the data API', { timeout: 120_000 }, () => {
  const client = signedInSuite();
  let page;
  before(() => {
    page = client.page;
  });

  test('polled from sign-in on every tab: the nav item says sign-in needed, no toast', async () => {
    const indicator = page.getByTestId('nav-radar').getByTestId('radar-indicator');
    await indicator.waitFor({ timeout: 15_000 });
    assert.equal(await page.getByTestId('nav-radar').getAttribute('title'), null);
    assert.equal(await indicator.getAttribute('title'), 'Radar: sign-in needed');
    // The button's accessible name carries the state in words.
    const snap = await page.getByTestId('nav-radar').ariaSnapshot();
    assert.equal(await page.getByRole('button', { name: 'Radar: sign-in needed' }).count(), 1, snap);
    assert.equal(await page.getByTestId('toast').count(), 0, 'no toast on load');
  });

  test('the tab: sign-in-needed panel without a link, never updated, no board', async () => {
    const view = await openRadar(page);
    assert.match(await page.getByTestId('radar-signin').innerText(), /Radar sign-in needed: sign in to the CW Dashboard on the Relay server PC\./);
    assert.equal(await view.locator('a').count(), 0, 'no link anywhere on the Radar tab');
    assert.doesNotMatch(await view.innerText(), /https?:\/\//);
    assert.equal(await page.getByTestId('radar-updated').innerText(), 'Never updated');
    assert.equal(await page.getByTestId('radar-board').count(), 0);
    assert.equal(await page.locator('h1:visible').count(), 1);
    assert.equal(await page.locator('main').getAttribute('aria-label'), 'Radar');
    await screenshot(page, 'radar-signin');
  });

  test('refresh: the server answers the snapshot after the read; the view keeps the sign-in panel', async () => {
    const response = page.waitForResponse((r) => new URL(r.url()).pathname === REFRESH, { timeout: 15_000 });
    const reread = page.waitForResponse((r) => new URL(r.url()).pathname === RADAR && r.request().method() === 'GET', { timeout: 15_000 });
    await page.getByTestId('radar-refresh').click();
    const r = await response;
    assert.equal(r.status(), 200);
    const body = await r.json();
    assert.equal(body.signInRequired, true);
    assert.equal(body.lastUpdated, 0);
    assert.equal((await reread).status(), 200, 'a GET follows the manual refresh');
    await until(async () => (await page.getByTestId('radar-refresh').getAttribute('aria-busy')) === 'false', 'spinner ends');
    await page.getByTestId('radar-signin').waitFor();
    assert.deepEqual(page.relayErrors, []);
  });
});

describe('Radar tab through the Relay Web gateway', { timeout: 120_000 }, () => {
  const gateway = signedInSuite({ web: true });

  test('same sign-in state and the refresh write carries the CSRF token', async () => {
    const { page } = gateway;
    await openRadar(page);
    const post = await clickAndWatchPost(page, 'radar-refresh', REFRESH, 15_000);
    assert.ok(post.headers['x-relay-csrf'], 'the gateway write carries X-Relay-CSRF');
    assert.equal(post.status, 200);
    assert.deepEqual(page.relayErrors, []);
  });
});
