// End-to-end: Servers → "Sync from file…" in Debian Chromium against the real relay binary. On
// the data API: three seeded servers and a CSV that updates one (in other casing), keeps one,
// adds one and drops one; the preview names the exact removal (name and id), the current list
// downloads as JSON, Apply is disabled with its reason while offline, and after the confirmed
// apply the result counts and the stored list match the file (the stored name casing kept). A
// stale preview (a server changed through the API after it) stops with "changed after the
// preview" and writes nothing. An Excel workbook (built here, xlsx.mjs) is read by the server
// (its "Servers" sheet beside another one), previewed with the same counts as its rows and
// applied; a CSV renamed .xlsx shows the server's "not an Excel .xlsx workbook" refusal and
// changes nothing. Through the Relay Web gateway the sync batch carries the CSRF token.
// Screenshot: servers-sync.png (harness.mjs `screenshot`, into the ignored target/screenshots).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { api, apiToken, screenshot, signedInSuite, until } from './harness.mjs';
import { xlsxWorkbook } from './xlsx.mjs';

const SYNC = '/api/relay/servers/sync';
const SHEET_ROWS = '/api/relay/spreadsheet/rows';

let dir;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'relay-e2e-sync-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function csvFile(name, text) {
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
}

async function xlsxFile(name, sheets) {
  const file = path.join(dir, name);
  await writeFile(file, xlsxWorkbook(sheets));
  return file;
}

async function servers(relay, token) {
  const r = await api(relay, token, 'GET', '/api/collections/servers/records?perPage=500&sort=name');
  assert.equal(r.status, 200, r.text);
  return r.json.items;
}

async function seed(relay, token, rows) {
  const out = {};
  for (const row of rows) {
    const r = await api(relay, token, 'POST', '/api/collections/servers/records', row);
    assert.equal(r.status, 200, r.text);
    out[row.name] = r.json;
  }
  return out;
}

/** Counts the sync POSTs the page sends from now on. */
function watchSync(page) {
  const posts = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === SYNC) posts.push(r);
  });
  return posts;
}

/** Opens Servers → "Sync from file…" once the page is connected (the dialog reads online only). */
async function openSyncDialog(page) {
  await page.locator('[data-testid="status-connection"][data-state="connected"]').waitFor({ timeout: 20_000 });
  await page.getByTestId('nav-servers').click();
  await page.getByTestId('tab-servers').waitFor({ state: 'visible' });
  await page.getByTestId('server-sync').click();
  await page.getByTestId('server-sync-dialog').waitFor();
  await page.locator('[data-testid="sync-file"]:enabled').waitFor();
}

/**
 * The page's next spreadsheet read: resolves with its response, or rejects at once with the
 * reason when Chromium reports the request failed (so a failure names itself, not a timeout).
 */
function nextSheetRead(page) {
  const isSheet = (r) => new URL(r.url()).pathname === SHEET_ROWS;
  return new Promise((resolve, reject) => {
    const failed = (r) => {
      if (!isSheet(r)) return;
      page.off('requestfailed', failed);
      reject(new Error(`the spreadsheet read failed in Chromium: ${r.failure()?.errorText}`));
    };
    page.on('requestfailed', failed);
    page.waitForResponse(isSheet, { timeout: 15_000 }).then(
      (res) => { page.off('requestfailed', failed); resolve(res); },
      async (e) => {
        page.off('requestfailed', failed);
        const shown = await page.getByTestId('server-sync-dialog').innerText().catch(() => '(no dialog)');
        reject(new Error(`${e.message}\nthe dialog showed: ${shown}\npage errors: ${JSON.stringify(page.relayErrors)}`));
      },
    );
  });
}

async function openPreview(page, file) {
  await openSyncDialog(page);
  await page.getByTestId('sync-file').setInputFiles(file);
  await page.getByTestId('sync-preview').waitFor({ timeout: 15_000 });
}

const counts = async (page) => {
  const n = async (k) => Number(await page.getByTestId(`sync-count-${k}`).innerText());
  return { added: await n('added'), updated: await n('updated'), removed: await n('removed'), unchanged: await n('unchanged') };
};

describe('Servers sync on the data API', { timeout: 180_000 }, () => {
  const client = signedInSuite();
  let token;
  let seeded;
  before(async () => {
    token = await apiToken(client.relay);
    seeded = await seed(client.relay, token, [
      { name: 'web-01', os: 'Linux' },
      { name: 'db-01', owner: 'ada@example.com' },
      { name: 'old-01', os: 'AIX' },
    ]);
  });

  test('preview names the exact removal, downloads the current list, applies after confirmation', async () => {
    const { page, relay } = client;
    const posts = watchSync(page);
    const file = await csvFile('servers.csv', 'name,os,owner\nWEB-01,Windows Server 2022,\ndb-01,,ada@example.com\n new-01 ,RHEL 9,\n');
    await openPreview(page, file);
    assert.deepEqual(await counts(page), { added: 1, updated: 1, removed: 1, unchanged: 1 });
    const removals = page.getByTestId('sync-removed-item');
    assert.equal(await removals.count(), 1);
    assert.equal(await removals.first().getAttribute('data-id'), seeded['old-01'].id);
    assert.equal(await removals.first().innerText(), `old-01 (${seeded['old-01'].id})`);
    assert.deepEqual(await page.getByTestId('sync-added-item').allInnerTexts(), ['new-01']);
    assert.match(await page.getByTestId('sync-updated-item').innerText(), /^web-01 \(OS\)$/);
    await screenshot(page, 'servers-sync');

    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.getByTestId('sync-backup').click()]);
    assert.match(dl.suggestedFilename(), /^relay-servers-before-sync-\d{4}-\d{2}-\d{2}\.json$/);
    const backup = JSON.parse(await readFile(await dl.path(), 'utf8'));
    assert.deepEqual(backup.map((r) => r.name).sort(), ['db-01', 'old-01', 'web-01']);

    // Offline: Apply is disabled with the reason; back online it is enabled again. Requests the
    // page makes during the deliberate outage (a poll under load) fail with Chromium's offline
    // error; only those may be logged meanwhile.
    const beforeOutage = page.relayErrors.length;
    await page.context().setOffline(true);
    await until(async () => await page.getByTestId('sync-apply').isDisabled(), 'Apply disabled offline');
    assert.match(await page.getByTestId('sync-blocked').innerText(), /not connected/);
    await page.context().setOffline(false);
    await until(async () => !(await page.getByTestId('sync-apply').isDisabled()), 'Apply enabled online', 20_000);
    const outage = page.relayErrors.splice(beforeOutage);
    assert.deepEqual(outage.filter((e) => !/net::ERR_INTERNET_DISCONNECTED|net::ERR_NETWORK_CHANGED/.test(e)), [], 'only the outage\'s refused requests were logged');
    assert.equal(posts.length, 0, 'nothing sent before Apply');

    await page.getByTestId('sync-apply').click();
    await page.getByTestId('confirm-dialog').waitFor();
    assert.match(await page.getByTestId('confirm-dialog').innerText(), /remove 1 server/);
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('sync-done').waitFor({ timeout: 20_000 });
    assert.deepEqual(await counts(page), { added: 1, updated: 1, removed: 1, unchanged: 1 });
    assert.equal(await page.getByTestId('sync-result-errors').count(), 0);
    assert.equal(posts.length, 2, 'one batch of saves, one of removals');

    const stored = await servers(relay, token);
    assert.deepEqual(stored.map((r) => r.name), ['db-01', 'new-01', 'web-01']);
    const web = stored.find((r) => r.name === 'web-01');
    assert.equal(web.id, seeded['web-01'].id, 'updated in place, stored name casing kept');
    assert.equal(web.os, 'Windows Server 2022');
    assert.equal(stored.find((r) => r.name === 'new-01').os, 'RHEL 9');
    assert.equal(stored.find((r) => r.name === 'db-01').updated, seeded['db-01'].updated, 'the unchanged server was not written');

    await page.getByTestId('sync-close').click();
    await until(async () => (await page.locator('[data-testid="server-row"]').evaluateAll((rows) => rows.map((r) => r.dataset.name)))
      .join() === 'db-01,new-01,web-01', 'the list shows the synced servers');
    assert.deepEqual(page.relayErrors, []);
  });

  test('a server changed after the preview stops the sync with nothing further written', async () => {
    const { page, relay } = client;
    const posts = watchSync(page);
    const file = await csvFile('stale.csv', 'name,comment\nweb-01,from the file\ndb-01,\n');
    await openPreview(page, file);
    assert.deepEqual(await counts(page), { added: 0, updated: 1, removed: 1, unchanged: 1 });
    const before = await servers(relay, token);
    const peer = before.find((r) => r.name === 'db-01');
    const edit = await api(relay, token, 'PATCH', `/api/collections/servers/records/${peer.id}`, { comment: 'peer edit' });
    assert.equal(edit.status, 200, edit.text);

    await page.getByTestId('sync-apply').click();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('sync-done').waitFor({ timeout: 20_000 });
    assert.match(await page.getByTestId('sync-result-errors').innerText(), /The Servers list changed after the preview/);
    assert.deepEqual(await counts(page), { added: 0, updated: 0, removed: 0, unchanged: 1 });
    assert.equal(posts.length, 0, 'no batch was sent');
    const afterSync = await servers(relay, token);
    assert.deepEqual(afterSync.map((r) => r.name), ['db-01', 'new-01', 'web-01']);
    assert.equal(afterSync.find((r) => r.name === 'web-01').comment, '', 'web-01 untouched');
    assert.equal(afterSync.find((r) => r.name === 'db-01').comment, 'peer edit');
    await page.getByTestId('sync-close').click();
    assert.deepEqual(page.relayErrors, []);
  });

  test('a CSV renamed .xlsx shows the server\'s refusal and changes nothing', async () => {
    const { page, relay } = client;
    const posts = watchSync(page);
    const before = await servers(relay, token);
    const seen = page.relayErrors.length;
    const file = await csvFile('renamed.xlsx', 'name,os\nweb-01,Linux\n');
    await openSyncDialog(page);
    const answered = nextSheetRead(page);
    await page.getByTestId('sync-file').setInputFiles(file);
    assert.equal((await answered).status(), 415);
    await page.getByTestId('sync-errors').waitFor({ timeout: 15_000 });
    assert.equal(await page.getByTestId('sync-errors').innerText(), 'The file is not an Excel .xlsx workbook.');
    assert.equal(await page.getByTestId('sync-preview').count(), 0, 'no preview, nothing to apply');
    assert.equal(posts.length, 0, 'no batch was sent');
    assert.deepEqual(await servers(relay, token), before, 'the Servers list is unchanged');
    // Chromium logs the refused request itself; nothing else may have gone wrong.
    assert.deepEqual(page.relayErrors.splice(seen).filter((e) => !/Failed to load resource: .*\b415\b/.test(e)), []);
    await page.keyboard.press('Escape');
    await page.getByTestId('server-sync-dialog').waitFor({ state: 'detached' });
  });

  test('an .xlsx workbook is read by the server, previewed with its rows\' counts and applied', async () => {
    const { page, relay } = client;
    const posts = watchSync(page);
    // Now: db-01 (owner ada, comment "peer edit"), new-01 (RHEL 9), web-01 (Windows Server 2022).
    const file = await xlsxFile('servers.xlsx', [
      { name: 'Read me', rows: [['Exported for the sync']] },
      {
        name: 'Servers',
        rows: [
          ['name', 'os', 'owner', 'comment'],
          ['WEB-01', 'Windows Server 2022', '', ''], // unchanged (blank cells are "")
          ['db-01', 'Linux', 'ada@example.com', 'peer edit'], // os updated
          null, // a blank row: left out
          ['xl-01', 2019, 'NOC', ''], // added; a number cell arrives as text
          [4711, 'AIX'], // added
        ],
      },
    ]);
    const read = nextSheetRead(page);
    await openPreview(page, file);
    const sent = (await read).request();
    assert.equal(sent.method(), 'POST');
    assert.equal(new URL(sent.url()).searchParams.get('sheet'), 'servers');
    assert.equal(sent.headers()['content-type'], 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    assert.match(await page.getByTestId('sync-summary').innerText(), /^4 servers in servers\.xlsx, 3 servers now: /);
    assert.deepEqual(await counts(page), { added: 2, updated: 1, removed: 1, unchanged: 1 });
    assert.deepEqual((await page.getByTestId('sync-added-item').allInnerTexts()).sort(), ['4711', 'xl-01']);
    assert.match(await page.getByTestId('sync-updated-item').innerText(), /^db-01 \(OS\)$/);
    assert.match(await page.getByTestId('sync-removed-item').innerText(), /^new-01 /);

    await page.getByTestId('sync-apply').click();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('sync-done').waitFor({ timeout: 20_000 });
    assert.deepEqual(await counts(page), { added: 2, updated: 1, removed: 1, unchanged: 1 });
    assert.equal(await page.getByTestId('sync-result-errors').count(), 0);
    assert.equal(posts.length, 2, 'one batch of saves, one of removals');
    const stored = await servers(relay, token);
    assert.deepEqual(stored.map((r) => [r.name, r.os, r.owner]), [
      ['4711', 'AIX', ''],
      ['db-01', 'Linux', 'ada@example.com'],
      ['web-01', 'Windows Server 2022', ''],
      ['xl-01', '2019', 'NOC'],
    ]);
    await page.getByTestId('sync-close').click();
    assert.deepEqual(page.relayErrors, []);
  });
});

describe('Servers sync through the Relay Web gateway', { timeout: 120_000 }, () => {
  const gateway = signedInSuite({ web: true });

  test('the sync batch carries the CSRF token and applies', async () => {
    const { page, relay } = gateway;
    const token = await apiToken(relay);
    await seed(relay, token, [{ name: 'gw-01' }]);
    const file = await csvFile('gateway.csv', 'name,os\ngw-01,Linux\ngw-02,Windows\n');
    await openPreview(page, file);
    assert.deepEqual(await counts(page), { added: 1, updated: 1, removed: 0, unchanged: 0 });
    const sent = page.waitForRequest((r) => new URL(r.url()).pathname === SYNC && r.method() === 'POST', { timeout: 15_000 });
    await page.getByTestId('sync-apply').click();
    assert.ok((await sent).headers()['x-relay-csrf'], 'the gateway write carries X-Relay-CSRF');
    await page.getByTestId('sync-done').waitFor({ timeout: 20_000 });
    assert.deepEqual(await counts(page), { added: 1, updated: 1, removed: 0, unchanged: 0 });
    assert.deepEqual((await servers(relay, token)).map((r) => [r.name, r.os]), [['gw-01', 'Linux'], ['gw-02', 'Windows']]);
    assert.deepEqual(page.relayErrors, []);
  });
});
