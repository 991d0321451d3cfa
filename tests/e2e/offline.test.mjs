// End-to-end: the server goes away before the On-Call board was ever loaded in this browser.
// The board says "Offline — no cached data" (not "Loading…" forever), the status bar neither
// claims cached data nor counts "0 on-call rows", and a reminder chip dismissed earlier today
// (on the server, unknown to this client) does not come back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, apiToken, launch, signIn, startRelay, until } from './harness.mjs';

const todayLocal = () => {
  const d = new Date();
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
};

describe('Relay web UI offline with nothing cached', { timeout: 120_000 }, () => {
  let relay;
  let browser;
  let page;

  before(async () => {
    relay = await startRelay();
    const token = await apiToken(relay);
    await api(relay, token, 'POST', '/api/collections/oncall/records', { team: 'Network', teamId: 'network', role: 'Primary', name: 'Ada', timeWindow: '24/7', sortOrder: 0 });
    for (const alertType of ['first-responder', 'weekly-schedule', 'sql-dba', 'oracle-dba']) {
      assert.equal((await api(relay, token, 'POST', '/api/collections/oncall_dismissals/records', { alertType, dateKey: todayLocal() })).status, 200);
    }
    browser = await launch();
    page = await signIn(await browser.newContext(relay.url), relay);
  });

  after(async () => {
    await browser?.close();
    await relay?.stop();
  });

  test('On-Call shows an honest offline state, no count, no resurrected chip', async () => {
    // The tab's code is prefetched after sign-in (its data is not).
    await until(() => page.evaluate(() => performance.getEntriesByType('resource').some((e) => /OnCallView-[^/]*\.js$/.test(e.name))), 'On-Call code prefetched');
    await relay.stop();
    await until(async () => (await page.getByTestId('status-connection').getAttribute('data-state')) === 'offline', 'offline state', 20_000);
    await page.getByTestId('nav-oncall').click();
    await page.getByTestId('tab-oncall').waitFor({ state: 'visible' });
    await until(async () => (await page.getByTestId('board-unavailable').count()) === 1, 'unavailable board', 10_000);
    assert.match(await page.getByTestId('board-unavailable').innerText(), /Offline — no cached data/);
    assert.equal(await page.getByTestId('board-state').innerText(), 'Offline — no cached data');
    assert.equal(await page.getByTestId('status-connection').innerText(), 'Offline — no cached data');
    assert.equal(await page.getByTestId('status-count').innerText(), '', 'no "0 on-call rows"');
    assert.equal(await page.getByTestId('reminder-chip').count(), 0, 'dismissed chip not shown again');
    // A tab whose data was loaded before the outage still says it uses cached data.
    await page.getByTestId('nav-compose').click();
    await until(async () => (await page.getByTestId('status-connection').innerText()) === 'Offline — using cached data', 'cached label on Compose');
  });
});
