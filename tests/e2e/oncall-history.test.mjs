// End-to-end: the On-Call board's history (issue #38 item 7a) in Debian Chromium against the real
// relay binary. Network's card shows Ada; a moment later Bob replaces her and a Storage card is
// added (through the record API, as another client would). Picking the earlier moment in "Board as
// of" shows the board as it was (Ada, no Storage card), read-only and labelled as a past view; Now
// returns to the live board. Export history downloads the day's changes as CSV (time, team,
// role, name, contact, time window, action), a hostile name formula-guarded.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { api, apiToken, screenshot, signedInSuite, sleep, until } from './harness.mjs';

const pad = (n) => String(n).padStart(2, '0');
/** A local moment as a datetime-local value with seconds. */
const localInput = (d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
const localDay = (d) => localInput(d).slice(0, 10);

describe('On-call history: Board as of and Export history', { timeout: 120_000 }, () => {
  const client = signedInSuite();
  let page;
  let relay;
  let token;
  let earlier;
  before(async () => {
    ({ page, relay } = client);
    token = await apiToken(relay);
    const ada = { team: 'Network', teamId: 'network', role: 'Primary', name: 'Ada', contact: '3125550101', timeWindow: '24/7', sortOrder: 0 };
    const created = await api(relay, token, 'POST', '/api/collections/oncall/records', ada);
    assert.equal(created.status, 200);
    await page.getByTestId('nav-oncall').click();
    await page.getByTestId('tab-oncall').waitFor({ state: 'visible' });
    await until(async () => (await page.getByTestId('team-card').allInnerTexts()).join().includes('Ada'), 'Ada on the board');
    await sleep(1500);
    earlier = new Date(Math.floor(Date.now() / 1000) * 1000);
    await sleep(1500);
    assert.equal((await api(relay, token, 'PATCH', `/api/collections/oncall/records/${created.json.id}`, { name: '=Bob' })).status, 200);
    const storage = { team: 'Storage', teamId: 'storage', role: 'Primary', name: 'Cy', contact: '', timeWindow: '', sortOrder: 0 };
    assert.equal((await api(relay, token, 'POST', '/api/collections/oncall/records', storage)).status, 200);
  });

  test('the live board shows the change; an earlier moment shows the earlier board, read-only, until Now', async () => {
    const cards = () => page.getByTestId('team-card').allInnerTexts();
    await until(async () => (await cards()).length === 2 && (await cards()).join().includes('=Bob'), 'the live board');
    assert.equal(await page.getByTestId('board-past-view').count(), 0);

    await page.getByTestId('board-asof').fill(localInput(earlier));
    await page.getByTestId('board-past-view').waitFor();
    assert.match(await page.getByTestId('board-past-view').innerText(), /Past view.*Read-only/s);
    await until(async () => (await cards()).length === 1, 'one card at the earlier moment');
    const past = (await cards()).join();
    assert.ok(past.includes('Ada') && !past.includes('Bob') && !past.includes('Storage'), past);
    assert.equal(await page.getByTestId('board-add').count(), 0, 'nothing edits a past view');
    assert.equal(await page.getByTestId('card-edit').count(), 0);
    await screenshot(page, 'oncall-history-past');

    await page.getByTestId('board-asof-now').click();
    await until(async () => (await cards()).length === 2, 'back to the live board');
    assert.equal(await page.getByTestId('board-past-view').count(), 0);
    assert.ok((await cards()).join().includes('=Bob'));
  });

  test('Export history downloads the range as a formula-guarded CSV', async () => {
    await page.getByTestId('history-export').click();
    const today = localDay(new Date());
    await page.getByTestId('history-from').fill(today);
    await page.getByTestId('history-to').fill(today);
    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.getByTestId('history-export-save').click()]);
    assert.equal(dl.suggestedFilename(), `oncall-history-${today}-to-${today}.csv`);
    const lines = (await readFile(await dl.path(), 'utf8')).trim().split('\r\n');
    assert.equal(lines[0], 'Time,Team,Role,Name,Contact,Time Window,Action');
    assert.equal(lines.length, 4, lines.join('\n'));
    assert.match(lines[1], /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,Network,Primary,Ada,.*,24\/7,create$/);
    assert.match(lines[2], /,Network,Primary,'=Bob,.*,update$/);
    assert.match(lines[3], /,Storage,Primary,Cy,,,create$/);
    const history = await api(relay, token, 'GET', '/api/collections/oncall_history/records?perPage=50');
    assert.equal(history.json.totalItems, 3, 'the server kept one row per change');
  });
});
