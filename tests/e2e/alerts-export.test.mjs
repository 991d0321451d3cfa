// End-to-end: the alert card's exports (issue #19, Alerts) in Debian Chromium against the real relay
// binary. An alert marked as UPDATE #2 with event start/end on the Chicago DST night shows
// "UPDATE #2 — <subject>" and one "Scheduled:" line (the MAINTENANCE label) with both times in the
// device's card zone (Central Time by default, where the entry zone starts too), each with its own
// abbreviation and offset; Save PNG downloads
// `alert-<date>.png` whose IHDR says 1280 px wide (640 px at 2x); Copy for Outlook puts image/png
// (also 1280 wide), text/html styled by attributes (bgcolor, <font>; a style attribute would be
// reported against the CSP when Chromium parses the HTML on write) and text/plain on the clipboard; the
// first writes an alert_history row with the plain subject (the UPDATE prefix is the thread's
// numbering, see alert-threads.test.mjs, not part of the subject), and the second, the same alert sent again
// in the same draft, writes none (one send, one row). With company and footer logos set on the server PC, both exports
// work without a console error and the HTML carries the logos as data: URLs only. A clipboard that
// refuses the write shows a clear error toast.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { api, apiToken, relayBin, screenshot, signedInSuite, signInNewClient, until } from './harness.mjs';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Width and height from a PNG's IHDR (signature, then length + "IHDR", then the two sizes). */
function pngSize(buf) {
  assert.ok(buf.subarray(0, 8).equals(SIGNATURE), 'PNG signature');
  assert.equal(buf.subarray(12, 16).toString('ascii'), 'IHDR');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

const START = 'Sun 8 Mar 2026, 01:00 CST (UTC-06:00)';
const END = 'Sun 8 Mar 2026, 04:00 CDT (UTC-05:00)';
const TIMES = `Scheduled: ${START} – ${END}`;
const REFUSED = 'The clipboard refused the card (this browser or its permissions do not allow copying an image). Use Save PNG instead.';

describe('Alert card exports: UPDATE #N, event times, Save PNG, Copy for Outlook', { timeout: 120_000 }, () => {
  const client = signedInSuite();
  let page;
  let token;
  let savedPng;
  before(async () => {
    page = client.page;
    token = await apiToken(client.relay);
    await page.getByTestId('nav-alerts').click();
    await page.getByTestId('alert-body').waitFor();
  });

  test('the draft shows UPDATE #2 and the Scheduled times in Central Time; the zone select starts on the card zone', async () => {
    assert.equal(await page.getByLabel('Time zone').inputValue(), 'America/Chicago');
    await page.getByTestId('sev-MAINTENANCE').click();
    await page.getByTestId('alert-subject').fill('Core switch upgrade');
    await page.getByTestId('alert-body').fill('Network maintenance in the data centre.\nExpect short drops.');
    await page.getByLabel('Update of an earlier alert').check();
    await page.getByLabel('Update number').fill('2');
    await page.getByLabel('Event start').fill('2026-03-08T01:00');
    await page.getByLabel('Event end').fill('2026-03-08T04:00');
    await until(async () => (await page.getByTestId('alert-preview-heading').innerText()) === 'UPDATE #2 — Core switch upgrade', 'the UPDATE #2 heading');
    assert.equal(await page.getByTestId('alert-preview-times').innerText(), TIMES);
    assert.equal(await page.getByTestId('alert-times-error').count(), 0);
    await screenshot(page, 'alerts-export');
  });

  test('Save PNG downloads alert-<date>.png, 1280 px wide (640 px at 2x)', async () => {
    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.getByTestId('alert-save-png').click()]);
    assert.match(dl.suggestedFilename(), /^alert-\d{4}-\d{2}-\d{2}\.png$/);
    savedPng = await dl.path();
    const size = pngSize(await readFile(savedPng));
    assert.equal(size.width, 1280);
    assert.ok(size.height >= 300 && size.height % 2 === 0, `height ${size.height}`);
    await page.getByTestId('toasts').getByText('Alert card downloaded as PNG and saved to history.').waitFor();
    // The export copy is gone from the page.
    assert.equal(await page.locator('.alert-export-host').count(), 0);
  });

  test('Copy for Outlook puts image/png, text/html and text/plain on the clipboard', async () => {
    await page.getByTestId('alert-copy-outlook').click();
    await page.getByTestId('toasts').getByText('Alert card copied for Outlook (already in history: sent earlier in this draft).').waitFor();
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
    assert.ok(clip.html.includes(`<b>Scheduled:</b> ${START} – ${END}`), 'the times in the HTML');
    assert.ok(clip.html.includes('<td bgcolor="#f9a825">'), 'severity colour on the heading band');
    assert.doesNotMatch(clip.html, /\sstyle=|class="(?!alert-body-image)|<style|<script/);
    assert.ok(clip.text.startsWith(`[MAINTENANCE] UPDATE #2 — Core switch upgrade\n${TIMES}\n\n`), clip.text);

    const rows = (await api(client.relay, token, 'GET', '/api/collections/alert_history/records?perPage=50')).json.items;
    assert.equal(rows.length, 1, 'Save PNG and Copy for Outlook of the same alert: one alert_history row');
    for (const r of rows) {
      assert.equal(r.subject, 'Core switch upgrade');
      assert.equal(r.severity, 'MAINTENANCE');
      assert.equal(r.bodyHtml, 'Network maintenance in the data centre.<br>Expect short drops.');
    }
    assert.deepEqual(page.relayErrors, [], 'no page errors or console errors (CSP violations would show here)');
  });

  test('with logos set: the HTML carries them as data: URLs, the PNG is still 1280 wide, no console error', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'relay-logo-'));
    try {
      const file = path.join(dir, 'logo.png');
      await copyFile(savedPng, file);
      for (const kind of ['company', 'footer']) {
        execFileSync(relayBin(), ['branding', '--data-dir', client.relay.dataDir, 'set-logo', kind, file], { stdio: 'pipe' });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const other = await signInNewClient(client.browser, client.relay);
    try {
      await other.getByTestId('nav-alerts').click();
      await other.getByTestId('alert-card-footer-logo').waitFor();
      await until(() => other.getByTestId('alert-card-company-logo').evaluate((el) => el.complete && el.naturalWidth > 0), 'company logo decoded');
      await other.getByTestId('alert-subject').fill('Branded');
      const [dl] = await Promise.all([other.waitForEvent('download', { timeout: 30_000 }), other.getByTestId('alert-save-png').click()]);
      assert.equal(pngSize(await readFile(await dl.path())).width, 1280);
      await other.getByTestId('alert-copy-outlook').click();
      await other.getByTestId('toasts').getByText('Alert card copied for Outlook (already in history: sent earlier in this draft).').waitFor();
      const html = await other.evaluate(async () => (await (await (await navigator.clipboard.read())[0].getType('text/html')).text()));
      for (const alt of ['Company logo', 'Footer logo']) assert.match(html, new RegExp(`<img src="data:image/png;base64,[A-Za-z0-9+/=]+" alt="${alt}"`));
      assert.doesNotMatch(html, /blob:/);
      assert.deepEqual(other.relayErrors, [], 'no page errors or console errors');
    } finally {
      await other.context().close();
    }
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
