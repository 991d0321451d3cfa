// End-to-end: keyboard paths through the shell (issue #38) in Debian Chromium against the real
// relay binary. The first Tab reaches "Skip to main content", shown only while focused; Enter on
// it puts focus on the current tab's heading. Ctrl+1 (Compose) from the page body puts focus on
// Compose's heading, not the body, so Copy All is a few Tabs away instead of past the whole
// sidebar and header; Ctrl+2 does the same for On-Call. Choosing a tab in the sidebar keeps
// focus on the chosen item (the arrows go on working).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, apiToken, signedInSuite } from './harness.mjs';

describe('Keyboard: skip link and focus on tab change', { timeout: 90_000 }, () => {
  const client = signedInSuite();
  let page;
  const focused = () => page.evaluate(() => {
    const a = document.activeElement;
    return a?.getAttribute('data-testid') ?? (a?.tagName === 'H1' ? `h1:${a.textContent}` : a?.tagName);
  });
  before(async () => {
    page = client.page;
    const token = await apiToken(client.relay);
    for (const name of ['NOC Core', 'Database Administrators']) {
      assert.equal((await api(client.relay, token, 'POST', '/api/collections/bridge_groups/records', { name, contacts: ['a@example.com'] })).status, 200);
    }
  });

  test('the first Tab reaches the skip link, shown while focused; Enter puts focus on the tab heading', async () => {
    await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'skip-link');
    const link = page.getByTestId('skip-link');
    assert.equal(await link.innerText(), 'Skip to main content');
    const box = await link.boundingBox();
    assert.ok(box && box.y >= 0 && box.height > 0, 'the focused skip link is on screen');
    await page.keyboard.press('Enter');
    assert.equal(await focused(), 'h1:Compose');
    await page.keyboard.press('Tab');
    assert.notEqual(await focused(), 'nav-compose', 'Tab goes on into the main content, not back to the sidebar');
    await page.mouse.click(5, 700); // away from the link: it goes off screen again
    const hidden = await link.boundingBox();
    assert.ok(!hidden || hidden.y + hidden.height <= 0, 'the skip link is off screen when not focused');
  });

  test('Ctrl+1 from the page body puts focus on the Compose heading; Copy All is a few Tabs away', async () => {
    await page.getByTestId('nav-notes').click();
    await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
    assert.equal(await focused(), 'BODY');
    await page.keyboard.press('Control+1');
    await page.getByTestId('tab-compose').waitFor({ state: 'visible' });
    assert.equal(await focused(), 'h1:Compose');
    let presses = 0;
    while ((await focused()) !== 'compose-copy' && presses < 40) {
      await page.keyboard.press('Tab');
      presses++;
    }
    assert.equal(await focused(), 'compose-copy');
    assert.ok(presses <= 15, `Copy All took ${presses} Tabs after Ctrl+1`);
  });

  test('Ctrl+2 puts focus on the On-Call heading; a tab chosen in the sidebar keeps focus on its nav item', async () => {
    await page.keyboard.press('Control+2');
    await page.getByTestId('tab-oncall').waitFor({ state: 'visible' });
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
    assert.equal(await focused(), 'h1:On-Call Board');
    await page.getByTestId('nav-people').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('tab-people').waitFor({ state: 'visible' });
    assert.equal(await focused(), 'nav-people');
  });
});
