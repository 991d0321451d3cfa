// End-to-end: Settings → System health in Debian Chromium against the real relay binary. Signs
// in, opens the panel, and checks every server subsystem is listed as "Running" in a real table
// with its sparkline, that database size and uptime are shown, and that the open panel asks the
// server again within a few seconds. Screenshot: system-health.png (see harness.mjs
// `screenshot`: target/screenshots/, docs/screenshots/ only with RELAY_UPDATE_SCREENSHOTS=1).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { screenshot, signedInSuite } from './harness.mjs';

const SUBSYSTEMS = ['store', 'auth', 'realtime', 'presence', 'privileged', 'web_sessions'];

let page;

describe('System health', { timeout: 90_000 }, () => {
  const client = signedInSuite();
  before(() => {
    page = client.page;
  });

  test('Settings → System health lists every subsystem running, with size, uptime and refresh', async () => {
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('tab-settings').waitFor({ state: 'visible' });
    const toggle = page.getByTestId('system-health-toggle');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    const first = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/relay/health', { timeout: 10_000 });
    await toggle.click();
    assert.equal((await first).status(), 200);
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');

    const table = page.getByRole('table', { name: /Subsystems/ });
    await table.waitFor();
    for (const name of SUBSYSTEMS) {
      const row = page.getByTestId(`health-row-${name}`);
      await row.waitFor();
      assert.equal(await row.getByRole('rowheader').innerText(), name);
      const state = row.getByTestId('health-state');
      assert.equal(await state.getAttribute('data-state'), 'running', name);
      assert.match(await state.innerText(), /Running/, `${name}: the state is written, not only coloured`);
      assert.equal(await row.getByTestId('health-restarts').innerText(), '0', name);
      const spark = row.getByRole('img');
      assert.match(await spark.getAttribute('aria-label'), /last 10 minutes/, name);
    }
    assert.match(await page.getByTestId('health-db-size').innerText(), /^\d+(\.\d)? (B|KiB|MiB|GiB)$/);
    assert.match(await page.getByTestId('health-uptime').innerText(), /^\d+ (s|min)$/);

    // While open, the panel asks again within a few seconds.
    const again = await page.waitForResponse((r) => new URL(r.url()).pathname === '/api/relay/health', { timeout: 10_000 });
    assert.equal(again.status(), 200);

    await page.getByTestId('system-health').scrollIntoViewIfNeeded();
    await screenshot(page, 'system-health');
    assert.deepEqual(page.relayErrors, [], 'no page errors or console errors (CSP violations would show here)');
  });
});
