// End-to-end: the alert card's exports (issue #19, Alerts) in Debian Chromium against the real relay
// binary. An alert marked as UPDATE #2 with event start/end on the Chicago DST night shows
// "UPDATE #2 — <subject>" and both times with their own abbreviation and offset; Save PNG downloads
// `alert-<date>.png` whose IHDR says 1280 px wide (640 px at 2x); Copy for Outlook puts image/png
// (also 1280 wide), text/html styled by attributes (bgcolor, <font>; a style attribute would be
// reported against the CSP when Chromium parses the HTML on write) and text/plain on the clipboard; both write an
// alert_history row holding only the stored fields (the subject without the prefix: the collection
// has no update or time fields). A clipboard that refuses the write shows a clear error toast.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { api, apiToken, screenshot, signedInSuite, until } from './harness.mjs';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Width and height from a PNG's IHDR (signature, then length + "IHDR", then the two sizes). */
function pngSize(buf) {
  assert.ok(buf.subarray(0, 8).equals(SIGNATURE), 'PNG signature');
  assert.equal(buf.subarray(12, 16).toString('ascii'), 'IHDR');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

const START = 'Sun 8 Mar 2026, 01:00 CST (UTC-06:00)';
const END = 'Sun 8 Mar 2026, 04:00 CDT (UTC-05:00)';
const REFUSED = 'The clipboard refused the card (this browser or its permissions do not allow copying an image). Use Save PNG instead.';

describe('Alert card exports: UPDATE #N, event times, Save PNG, Copy for Outlook', { timeout: 120_000 }, () => {
  const client = signedInSuite();
  let page;
  let token;
  before(async () => {
    page = client.page;
    token = await apiToken(client.relay);
    await page.getByTestId('nav-alerts').click();
    await page.getByTestId('alert-body').waitFor();
  });

  test('the draft shows UPDATE #2 and zoned times; the zone select starts on the browser zone', async () => {
    const browserZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    assert.equal(await page.getByLabel('Time zone').inputValue(), browserZone);
    await page.getByTestId('sev-MAINTENANCE').click();
    await page.getByTestId('alert-subject').fill('Core switch upgrade');
    await page.getByTestId('alert-body').fill('Network maintenance in the data centre.\nExpect short drops.');
    await page.getByLabel('Update of an earlier alert').check();
    await page.getByLabel('Update number').fill('2');
    await page.getByLabel('Event start').fill('2026-03-08T01:00');
    await page.getByLabel('Event end').fill('2026-03-08T04:00');
    await page.getByLabel('Time zone').selectOption('America/Chicago');
    await until(async () => (await page.getByTestId('alert-preview-heading').innerText()) === 'UPDATE #2 — Core switch upgrade', 'the UPDATE #2 heading');
    assert.equal(await page.getByTestId('alert-preview-times').innerText(), `Start: ${START}\nEnd: ${END}`);
    assert.equal(await page.getByTestId('alert-times-error').count(), 0);
    await screenshot(page, 'alerts-export');
  });

  test('Save PNG downloads alert-<date>.png, 1280 px wide (640 px at 2x)', async () => {
    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.getByTestId('alert-save-png').click()]);
    assert.match(dl.suggestedFilename(), /^alert-\d{4}-\d{2}-\d{2}\.png$/);
    const size = pngSize(await readFile(await dl.path()));
    assert.equal(size.width, 1280);
    assert.ok(size.height >= 300 && size.height % 2 === 0, `height ${size.height}`);
    await page.getByTestId('toasts').getByText('Alert card downloaded as PNG and saved to history.').waitFor();
    // The export copy is gone from the page.
    assert.equal(await page.locator('.alert-export-host').count(), 0);
  });

  test('Copy for Outlook puts image/png, text/html and text/plain on the clipboard', async () => {
    await page.getByTestId('alert-copy-outlook').click();
    await page.getByTestId('toasts').getByText('Alert card copied for Outlook and saved to history.').waitFor();
    const clip = await page.evaluate(async () => {
      const [item] = await navigator.clipboard.read();
      const png = new Uint8Array(await (await item.getType('image/png')).arrayBuffer());
      return {
        types: [...item.types].sort(),
        html: await (await item.getType('text/html')).text(),
        text: await (await item.getType('text/plain')).text(),
        png: btoa(String.fromCharCode(...png.subarray(0, 64))),
      };
    });
    assert.deepEqual(clip.types, ['image/png', 'text/html', 'text/plain']);
    assert.equal(pngSize(Buffer.from(clip.png, 'base64')).width, 1280);
    assert.ok(clip.html.includes('UPDATE #2 — Core switch upgrade'), 'heading in the HTML');
    assert.ok(clip.html.includes(`<b>Start:</b> ${START}`), 'start time in the HTML');
    assert.ok(clip.html.includes('<td bgcolor="#f9a825">'), 'severity colour on the heading band');
    assert.doesNotMatch(clip.html, /\sstyle=|class="(?!alert-body-image)|<style|<script/);
    assert.ok(clip.text.startsWith(`[MAINTENANCE] UPDATE #2 — Core switch upgrade\nStart: ${START}\nEnd: ${END}\n\n`), clip.text);

    const rows = await until(async () => {
      const items = (await api(client.relay, token, 'GET', '/api/collections/alert_history/records?perPage=50')).json.items;
      return items.length === 2 ? items : null;
    }, 'two alert_history rows');
    for (const r of rows) {
      assert.equal(r.subject, 'Core switch upgrade');
      assert.equal(r.severity, 'MAINTENANCE');
      assert.equal(r.bodyHtml, 'Network maintenance in the data centre.<br>Expect short drops.');
    }
    assert.deepEqual(page.relayErrors, [], 'no page errors or console errors (CSP violations would show here)');
  });

  test('a clipboard that refuses the write shows a clear message', async () => {
    await page.evaluate(() => {
      navigator.clipboard.write = () => Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError'));
    });
    await page.getByTestId('alert-copy-outlook').click();
    const toast = page.getByTestId('toasts').getByText(REFUSED);
    await toast.waitFor();
    assert.deepEqual(page.relayErrors, []);
  });
});
