// End-to-end: the layout at 1280x800 in Debian Chromium against the real relay binary (issue #38,
// operator walk-through), checked with bounding boxes. Compose: the add box has a row of its own
// and the six actions (Undo … Copy All) stay on one row; long group names show in full (up to three
// lines, nothing clipped). On-Call: the title and its team count stay on one line and every header
// action, "Add card" included, on one row beside them. Alerts: while step 3 (Delivery) is edited
// at the bottom of the form, the live preview stays in view (sticky).
// Screenshots: layout-compose.png, layout-oncall.png, layout-alerts-step3.png (target/screenshots).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, apiToken, screenshot, signedInSuite, VIEWPORT } from './harness.mjs';

const LONG_GROUPS = ['Database Administrators On Call', 'Service Desk Tier 2 Escalations', 'Major Incident Bridge'];

/** The top edges of `locator`'s matches, rounded. */
const tops = async (locator) => (await locator.evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().top))));

describe('Layout at 1280x800', { timeout: 120_000 }, () => {
  const client = signedInSuite();
  let page;
  before(async () => {
    page = client.page;
    assert.deepEqual(page.viewportSize(), VIEWPORT);
    const token = await apiToken(client.relay);
    for (const name of LONG_GROUPS) {
      assert.equal((await api(client.relay, token, 'POST', '/api/collections/bridge_groups/records', { name, contacts: ['a@example.com', 'b@example.com'] })).status, 200);
    }
    for (const team of ['Network', 'Database', 'Service Desk']) {
      const row = { team, teamId: team.toLowerCase(), role: 'Primary', name: 'Alex Kim', contact: '3125550101', timeWindow: 'Mon-Fri 8am-5pm', sortOrder: 0 };
      assert.equal((await api(client.relay, token, 'POST', '/api/collections/oncall/records', row)).status, 200);
    }
  });

  test('Compose: the actions stay on one row under the add box; long group names are not cut', async () => {
    await page.getByTestId('nav-compose').click();
    await page.locator('[data-testid="group-item"]').nth(LONG_GROUPS.length - 1).waitFor();
    const actions = page.getByTestId('compose-actions').getByRole('button');
    assert.equal(await actions.count(), 6);
    const rows = new Set(await tops(actions));
    assert.equal(rows.size, 1, `the Compose actions wrap onto ${rows.size} rows`);
    const input = await page.getByTestId('compose-add-input').boundingBox();
    const first = await actions.first().boundingBox();
    assert.ok(input.y + input.height <= first.y, 'the add box sits above the actions');
    for (const name of LONG_GROUPS) {
      const label = page.locator(`[data-testid="group-item"][data-name="${name}"] .group-name`);
      const { clipped, text } = await label.evaluate((el) => ({ clipped: el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1, text: el.textContent }));
      assert.equal(text, name);
      assert.equal(clipped, false, `group name "${name}" is cut`);
    }
    await screenshot(page, 'layout-compose');
  });

  test('On-Call: the title on one line and every header action, Add card included, on one row', async () => {
    await page.getByTestId('nav-oncall').click();
    await page.getByTestId('team-card').first().waitFor();
    const title = page.locator('[data-testid="oncall-view"] .view-title');
    const lineHeight = await title.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || parseFloat(getComputedStyle(el).fontSize) * 1.4);
    const tb = await title.boundingBox();
    assert.ok(tb.height < lineHeight * 1.5, `"On-Call Board" wraps (${tb.height}px tall, line ${lineHeight}px)`);
    const state = await page.getByTestId('board-state').boundingBox();
    assert.ok(state.height < 30 && Math.abs(state.y - tb.y) < tb.height, 'the team count beside the title, on one line');
    const buttons = page.getByTestId('board-actions').getByRole('button');
    const rows = new Set(await tops(buttons));
    assert.equal(rows.size, 1, `the On-Call header actions wrap onto ${rows.size} rows`);
    const add = await page.getByTestId('board-add').boundingBox();
    assert.ok(add.y < tb.y + tb.height, 'Add card on the title row');
    assert.ok(add.x + add.width <= VIEWPORT.width, 'Add card inside the window');
    await screenshot(page, 'layout-oncall');
  });

  test('Alerts: the live preview stays in view while step 3 is edited', async () => {
    await page.getByTestId('nav-alerts').click();
    await page.getByTestId('alert-subject').fill('Core switch upgrade');
    await page.getByTestId('alert-body').fill('Network maintenance in the data centre.\nExpect short drops.');
    await page.getByTestId('alert-end').scrollIntoViewIfNeeded();
    await page.getByTestId('alert-end').click();
    const scrolled = await page.locator('main.content').evaluate((el) => el.scrollTop);
    assert.ok(scrolled > 100, `the form scrolled (${scrolled}px) to reach step 3`);
    const content = await page.locator('main.content').boundingBox();
    const preview = await page.getByTestId('alert-preview').boundingBox();
    assert.ok(preview.y >= content.y - 1, `the preview top (${preview.y}) scrolled above the content (${content.y})`);
    const heading = await page.getByTestId('alert-preview-heading').boundingBox();
    assert.ok(heading.y >= content.y && heading.y + heading.height <= content.y + content.height, 'the preview heading is visible');
    assert.equal(await page.getByTestId('alert-preview-heading').innerText(), 'Core switch upgrade');
    await screenshot(page, 'layout-alerts-step3');
  });
});
