// End-to-end: Settings → Data Manager import of an Excel .xlsx workbook (built here, xlsx.mjs)
// through the Relay Web gateway, in Debian Chromium against the real relay binary. The workbook
// goes to POST /api/relay/spreadsheet/rows?sheet=<collection> with the session's CSRF token; the
// server picks the sheet named after the chosen category's collection ("bridge_groups" for
// Groups) beside another sheet, and its text rows take the CSV path: preview counts, the preview
// table, Apply, and the group's members (a JSON array written as text in the cell) stored as a
// list. A workbook with no sheet of that name and several sheets shows the server's "which
// sheet" message as written, with no preview and nothing written.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { api, apiToken, count, signedInSuite, until } from './harness.mjs';
import { xlsxWorkbook } from './xlsx.mjs';

const SHEET_ROWS = '/api/relay/spreadsheet/rows';

let dir;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'relay-e2e-xlsx-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function xlsxFile(name, sheets) {
  const file = path.join(dir, name);
  await writeFile(file, xlsxWorkbook(sheets));
  return file;
}

describe('Data Manager .xlsx import through the Relay Web gateway', { timeout: 120_000 }, () => {
  const gateway = signedInSuite({ web: true });

  test('imports the sheet named after the collection, and shows a refusal as written', async () => {
    const { page, relay } = gateway;
    const token = await apiToken(relay);
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('dm-import').waitFor();
    await page.getByTestId('import-category').selectOption('groups');

    const good = await xlsxFile('groups.xlsx', [
      { name: 'Read me', rows: [['Bridge groups for the night shift']] },
      { name: 'Bridge_Groups', rows: [['name', 'contacts'], ['Night Bridge', '["ada@example.com","grace@example.com"]'], null, ['Empty Bridge']] },
    ]);
    const sent = page.waitForRequest((r) => new URL(r.url()).pathname === SHEET_ROWS && r.method() === 'POST', { timeout: 15_000 });
    await page.getByTestId('import-file').setInputFiles(good);
    const request = await sent;
    assert.equal(new URL(request.url()).searchParams.get('sheet'), 'bridge_groups');
    assert.ok(request.headers()['x-relay-csrf'], 'the gateway POST carries X-Relay-CSRF');
    const report = page.getByTestId('import-report');
    await report.waitFor({ timeout: 15_000 });
    assert.equal(await report.getAttribute('data-errors'), '0');
    assert.match(await page.getByTestId('import-summary').innerText(), /^groups\.xlsx → bridge_groups: 2 rows · 2 new · 0 updates · 0 errors/);
    assert.deepEqual(await page.locator('[data-testid="import-preview-rows"] tbody tr').allInnerTexts(), [
      '1\tNight Bridge\t["ada@example.com","grace@example.com"]',
      '2\tEmpty Bridge\t',
    ]);
    await page.getByTestId('import-apply').click();
    await until(async () => (await report.getAttribute('data-applied')) === 'true', 'applied');
    const groups = (await api(relay, token, 'GET', '/api/collections/bridge_groups/records?sort=name')).json.items;
    assert.deepEqual(groups.map((g) => [g.name, g.contacts]), [['Empty Bridge', []], ['Night Bridge', ['ada@example.com', 'grace@example.com']]]);

    await page.getByTestId('import-category').selectOption('contacts');
    const before = await count(relay, token, 'contacts');
    const unnamed = await xlsxFile('people.xlsx', [
      { name: 'Sheet1', rows: [['name', 'email'], ['Ada Lovelace', 'ada@example.com']] },
      { name: 'Sheet2', rows: [['name'], ['Grace Hopper']] },
    ]);
    await page.getByTestId('import-file').setInputFiles(unnamed);
    await page.getByTestId('import-error').waitFor({ timeout: 15_000 });
    assert.equal(
      await page.getByTestId('import-error').innerText(),
      'The workbook has no sheet named "contacts" and more than one sheet ("Sheet1", "Sheet2"). Rename the sheet to import or keep only that one.',
    );
    assert.equal(await report.count(), 0, 'no preview');
    assert.equal(await count(relay, token, 'contacts'), before, 'nothing written');
    assert.deepEqual(page.relayErrors, []);
  });
});
