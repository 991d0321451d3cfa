// End-to-end: alert threads (issue #38 item 7b) in Debian Chromium against the real relay binary.
// One client sends an alert (Copy alert: one alert_history row); a second browser client opens
// History, continues the thread and gets UPDATE #1 from the server's numbering (the draft's
// heading, and the row the server numbered 1 in the same thread, with the event times kept); the
// first client's History then shows one thread with two sends, in order, with their senders.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, apiToken, screenshot, signedInSuite, signInNewClient, until } from './harness.mjs';

const SUBJECT = 'Database failover';

describe('Alert threads: continue a thread from a second client', { timeout: 120_000 }, () => {
  const client = signedInSuite();
  let page;
  let token;
  const rows = async () => (await api(client.relay, token, 'GET', '/api/collections/alert_history/records?perPage=50&sort=updateNumber')).json.items;
  before(async () => {
    page = client.page;
    token = await apiToken(client.relay);
    await page.getByTestId('nav-alerts').click();
    await page.getByTestId('alert-body').waitFor();
  });

  test('the first send starts a thread numbered 0 by the server', async () => {
    await page.getByTestId('sev-ISSUE').click();
    await page.getByTestId('alert-subject').fill(SUBJECT);
    await page.getByTestId('alert-body').fill('The primary database failed over to the standby.');
    await page.getByLabel('Sender').fill('NOC');
    await page.getByLabel('Event start').fill('2026-12-07T09:00');
    await page.getByTestId('alert-copy').click();
    await page.getByTestId('toasts').getByText('Alert copied and saved to history.').waitFor();
    const [first] = await rows();
    assert.equal(first.threadId, first.id);
    assert.equal(first.updateNumber, 0);
    assert.equal(first.timeZone, 'America/Chicago');
    assert.equal(first.eventStart, '2026-12-07 15:00:00.000Z');
  });

  test('a second client continues the thread as UPDATE #1 from the server', async () => {
    const other = await signInNewClient(client.browser, client.relay);
    try {
      await other.getByTestId('nav-alerts').click();
      await other.getByTestId('alert-history-open').click();
      const thread = other.getByTestId('alert-history-item').filter({ hasText: SUBJECT });
      await thread.waitFor();
      await thread.getByTestId('alert-thread-continue').click();
      await until(async () => (await other.getByTestId('alert-preview-heading').innerText()) === `UPDATE #1 — ${SUBJECT}`, 'the UPDATE #1 heading');
      assert.equal(await other.getByLabel('Event start').inputValue(), '2026-12-07T09:00');
      await other.getByTestId('alert-thread-note').waitFor();
      await other.getByTestId('alert-body').fill('The standby is serving; the primary is being rebuilt.');
      await other.getByLabel('Sender').fill('Service Desk');
      await other.getByTestId('alert-copy').click();
      await other.getByTestId('toasts').getByText('Alert copied and saved to history.').waitFor();
      assert.deepEqual(other.relayErrors, []);
    } finally {
      await other.context().close();
    }
    const sends = await rows();
    assert.equal(sends.length, 2, 'one row per send');
    assert.deepEqual(sends.map((r) => r.updateNumber), [0, 1]);
    assert.equal(sends[1].threadId, sends[0].id, 'the update is in the first send\'s thread');
    assert.equal(sends[1].sender, 'Service Desk');
    assert.equal(sends[1].eventStart, '2026-12-07 15:00:00.000Z');
  });

  test('History on the first client shows one thread with two sends, in order', async () => {
    await page.getByTestId('alert-history-open').click();
    const threads = page.getByTestId('alert-history-item');
    await until(async () => (await threads.count()) === 1 && /2 sends/.test(await page.getByTestId('alert-thread-summary').innerText()), 'one thread with two sends');
    await page.getByTestId('alert-thread-toggle').click();
    assert.deepEqual(await page.getByTestId('alert-thread-send-label').allInnerTexts(), ['Original', 'UPDATE #1']);
    const sends = await page.getByTestId('alert-thread-send').allInnerTexts();
    assert.match(sends[0], /From NOC/);
    assert.match(sends[1], /From Service Desk/);
    await screenshot(page, 'alert-threads');
    assert.deepEqual(page.relayErrors, []);
  });
});
