// End-to-end: Dynatrace dashboards in Debian Chromium against the real relay binary (Relay Web
// transport). Settings → Dynatrace dashboards refuses a lookalike host and plain http with the
// message at the field, saves a dashboard per device (it survives a reload), the sidebar
// launcher appears and opens the dashboard in a new tab (answered locally, never by Dynatrace),
// several dashboards become a keyboard menu, and the browser has no "Clear Dynatrace session"
// (that is the desktop popout's store).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, signIn, signInNewClient, startRelay, until } from './harness.mjs';

describe('Dynatrace dashboards', { timeout: 180_000 }, () => {
  let relay;
  let browser;
  let page;
  before(async () => {
    relay = await startRelay();
    browser = await launch();
    page = await signInNewClient(browser, relay);
    await page.context().route('https://*.dynatrace.com/**', (r) =>
      r.fulfill({ status: 200, contentType: 'text/html', body: '<title>dashboard</title>' }),
    );
  });
  after(async () => {
    await browser?.close();
    await relay?.stop();
  });

  const save = async (name, url) => {
    await page.getByTestId('dt-dashboard-name').fill(name);
    await page.getByTestId('dt-dashboard-url').fill(url);
    await page.getByTestId('dt-dashboard-save').click();
  };

  test('bad URLs are refused at the field; a good one is saved and the launcher opens it', async () => {
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('settings-dynatrace-dashboards').waitFor();
    assert.equal(await page.getByTestId('dt-launcher').count(), 0, 'no launcher without dashboards');
    assert.equal(await page.getByTestId('dt-clear-session').count(), 0, 'no session to clear in a browser');
    await save('NOC overview', 'https://abc12345.apps.dynatrace.com.evil.net/ui');
    assert.equal(await page.getByTestId('dt-dashboard-url-error').innerText(), 'Enter a Dynatrace URL under dynatrace.com.');
    await save('NOC overview', 'http://abc12345.apps.dynatrace.com/ui');
    assert.equal(await page.getByTestId('dt-dashboard-url-error').innerText(), 'The Dynatrace URL must use HTTPS.');
    await save('NOC overview', 'https://abc12345.apps.dynatrace.com/ui/dashboards/1');
    await page.getByTestId('dt-dashboards-list').getByText('NOC overview').waitFor();
    const launcher = page.getByTestId('dt-launcher');
    await launcher.waitFor();
    const [tab] = await Promise.all([page.context().waitForEvent('page', { timeout: 15_000 }), launcher.click()]);
    await tab.waitForLoadState('domcontentloaded');
    assert.equal(tab.url(), 'https://abc12345.apps.dynatrace.com/ui/dashboards/1');
    assert.equal(await tab.evaluate(() => window.opener), null, 'opened without an opener');
    await tab.close();
  });

  test('several dashboards make a keyboard menu; the list is kept per device', async () => {
    await save('Databases', 'https://abc12345.apps.dynatrace.com/ui/dashboards/2');
    await until(async () => /Dashboards \(2\)/.test(await page.getByTestId('dt-launcher').innerText()), 'the launcher counts 2');
    await page.getByTestId('dt-launcher').click();
    const items = page.getByRole('menuitem');
    await until(async () => (await items.count()) === 2, 'two menu items');
    await page.keyboard.press('Escape');
    await until(async () => (await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))) === 'dt-launcher', 'focus back on the launcher');
    assert.deepEqual(page.relayErrors ?? [], []);
    // A new window of the same browser profile (the token is memory-only, so it signs in again).
    const again = await signIn(page.context(), relay);
    await until(async () => /Dashboards \(2\)/.test(await again.getByTestId('dt-launcher').innerText()), 'the list is kept per device');
    const elsewhere = await signInNewClient(browser, relay);
    assert.equal(await elsewhere.getByTestId('dt-launcher').count(), 0, 'another device has its own list');
    await elsewhere.context().close();
  });
});
