// End-to-end (issue #19, Sessions and People's own Manage Groups menu), Debian Chromium against
// the real relay binary with Relay Web on:
// - a reload of a signed-in Relay Web window keeps the session (no passphrase asked: the page
//   resumes from the HttpOnly cookie via POST /web/api/session/resume) and realtime updates still
//   arrive afterwards; after sign-out a reload asks for the passphrase again;
// - the window's Compose recipients and alert draft (severity, subject, body) survive that reload
//   (sessionStorage, per window), a sent alert (Copy) and a Compose Reset clear them, and a corrupt
//   stored value is ignored without an error;
// - a People row's context menu offers Manage Groups, by mouse (right-click) and by keyboard
//   (Shift+F10 on the focused row, Enter), and each checkbox change is saved to the group.
// Every wait is bounded; page errors fail the test.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, apiToken, launch, startRelay, until } from './harness.mjs';

let relay;
let browser;
let page;
let token;

const connected = () => page.locator('[data-testid="status-connection"][data-state="connected"]').waitFor({ timeout: 20_000 });

async function go(tab) {
  await page.getByTestId(`nav-${tab}`).click();
  await page.getByTestId(`tab-${tab}`).waitFor({ state: 'visible' });
}

/** Reloads and waits for the signed-in shell; every credential request of the reload is returned. */
async function reloadSignedIn() {
  const paths = [];
  const onRequest = (r) => {
    const p = new URL(r.url()).pathname;
    if (p.startsWith('/web/api/session') || p === '/web/api/connection') paths.push(p);
  };
  page.on('request', onRequest);
  try {
    await page.reload();
    await connected();
  } finally {
    page.off('request', onRequest);
  }
  assert.equal(await page.getByTestId('signin-passphrase').count(), 0, 'no passphrase asked after the reload');
  return paths;
}

const drafts = () => page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith('relay-draft:')).sort());

async function groupMembers(name) {
  const g = (await api(relay, token, 'GET', `/api/collections/bridge_groups/records?filter=${encodeURIComponent(`name = '${name}'`)}`)).json.items[0];
  return g.contacts ?? [];
}

describe('sessions and per-window drafts (Relay Web)', { timeout: 180_000 }, () => {
  before(async () => {
    relay = await startRelay({ web: true });
    token = await apiToken(relay);
    await api(relay, token, 'POST', '/api/collections/contacts/records', { name: 'Ada Lovelace', email: 'ada@example.com', title: 'Engineer' });
    await api(relay, token, 'POST', '/api/collections/contacts/records', { name: 'No Mail', title: 'Contractor' });
    await api(relay, token, 'POST', '/api/collections/bridge_groups/records', { name: 'NOC Core', contacts: ['grace@example.com'] });
    browser = await launch();
    const ctx = await browser.newContext(relay.webUrl);
    page = await ctx.newPage();
    page.relayErrors = [];
    page.on('pageerror', (e) => page.relayErrors.push(String(e)));
    await page.goto(relay.webUrl + '/');
    await page.getByTestId('signin-passphrase').fill(relay.passphrase);
    await page.getByTestId('signin-submit').click();
    await connected();
  });

  after(async () => {
    await browser?.close();
    await relay?.stop();
  });

  test('a reload keeps the session, the Compose recipients and the alert draft; realtime still arrives', async () => {
    await go('compose');
    await page.getByTestId('compose-add-input').fill('zed@example.com');
    await page.getByTestId('compose-add-input').press('Enter');
    await page.locator('[data-testid="recipient-row"][data-email="zed@example.com"]').waitFor();

    await go('alerts');
    await page.getByTestId('sev-ISSUE').click();
    await page.getByTestId('alert-subject').fill('VPN concentrator down');
    await page.getByTestId('alert-body').fill('Remote users cannot connect.');
    await until(async () => (await drafts()).length === 2, 'both drafts stored');

    const paths = await reloadSignedIn();
    assert.deepEqual(paths, ['/web/api/session/resume', '/web/api/connection'], 'resumed from the cookie, no sign-in');

    await go('compose');
    await page.locator('[data-testid="recipient-row"][data-email="zed@example.com"]').waitFor();
    await go('alerts');
    assert.equal(await page.getByTestId('alert-subject').inputValue(), 'VPN concentrator down');
    assert.equal(await page.getByTestId('sev-ISSUE').getAttribute('aria-checked'), 'true');
    assert.match(await page.getByTestId('alert-preview-body').innerText(), /Remote users cannot connect\./);

    // Realtime after the reload: a contact created elsewhere appears without another reload.
    await go('people');
    await page.locator('[data-testid="contact-row"]', { hasText: 'Ada Lovelace' }).waitFor();
    const lists = [];
    const onList = (r) => r.method() === 'GET' && new URL(r.url()).pathname === '/api/collections/contacts/records' && lists.push(r.url());
    page.on('request', onList);
    try {
      await api(relay, token, 'POST', '/api/collections/contacts/records', { name: 'Realtime Rita', email: 'rita@example.com' });
      await page.locator('[data-testid="contact-row"]', { hasText: 'Realtime Rita' }).waitFor({ timeout: 15_000 });
    } finally {
      page.off('request', onList);
    }
    assert.deepEqual(lists, [], 'delivered by realtime, not by a refetch');
    // A write after the reload carries the resumed CSRF token.
    await page.getByTestId('contact-new').click();
    await page.getByTestId('contact-name-input').fill('Written After Reload');
    await page.getByTestId('contact-email-input').fill('after.reload@example.com');
    await page.getByTestId('contact-save').click();
    await page.locator('[data-testid="contact-row"]', { hasText: 'Written After Reload' }).waitFor();
    assert.deepEqual(page.relayErrors, []);
  });

  test('sent or reset drafts are gone after a reload; a corrupt stored draft is ignored', async () => {
    await go('alerts');
    await page.getByTestId('alert-copy').click();
    await until(async () => !(await drafts()).includes('relay-draft:alert'), 'the sent alert draft cleared');
    await go('compose');
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    await until(async () => (await drafts()).length === 0, 'the reset Compose draft cleared');

    await page.evaluate(() => {
      sessionStorage.setItem('relay-draft:alert', '{"v":1,"data":{"subject":');
      sessionStorage.setItem('relay-draft:compose', '{"v":1,"data":{"adds":"not a list"}}');
    });
    await reloadSignedIn();
    await go('compose');
    assert.equal(await page.getByTestId('recipient-row').count(), 0);
    await go('alerts');
    assert.equal(await page.getByTestId('alert-subject').inputValue(), '');
    assert.deepEqual(await drafts(), [], 'corrupt values removed');
    assert.deepEqual(page.relayErrors, []);
  });

  test("People: a row's context menu offers Manage Groups, by mouse and by keyboard", async () => {
    await go('people');
    const ada = page.locator('[data-testid="contact-row"]', { hasText: 'Ada Lovelace' });
    await ada.click({ button: 'right' });
    const menu = page.getByTestId('person-menu');
    await menu.waitFor();
    assert.deepEqual(await menu.getByRole('menuitem').allInnerTexts(), ['Add to Composer', 'Manage Groups', 'Notes', 'Edit', 'Delete']);
    await menu.getByRole('menuitem', { name: 'Manage Groups' }).click();
    const dialog = page.getByTestId('manage-groups');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Groups for ada@example\.com/);
    const check = dialog.locator('[data-testid="manage-group-check"][data-name="NOC Core"]');
    assert.equal(await check.isChecked(), false);
    await check.check();
    await until(async () => (await groupMembers('NOC Core')).includes('ada@example.com'), 'Ada added to NOC Core');
    assert.deepEqual(await groupMembers('NOC Core'), ['grace@example.com', 'ada@example.com']);
    await page.getByTestId('manage-groups-done').click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByTestId('contact-detail-groups').getByText('NOC Core').waitFor();

    // Keyboard: Shift+F10 on the focused row, focus on the first item, ArrowDown, Enter.
    await ada.focus();
    await page.keyboard.press('Shift+F10');
    await menu.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Add to Composer', 'focus on the first item');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Manage Groups');
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    assert.equal(await check.isChecked(), true);
    await check.press('Space');
    await until(async () => !(await groupMembers('NOC Core')).includes('ada@example.com'), 'Ada removed from NOC Core');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // No email, no groups: Manage Groups is there but disabled.
    await page.locator('[data-testid="contact-row"]', { hasText: 'No Mail' }).click({ button: 'right' });
    await menu.waitFor();
    assert.equal(await menu.getByRole('menuitem', { name: 'Manage Groups' }).isDisabled(), true);
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    assert.deepEqual(page.relayErrors, []);
  });

  test('after sign-out a reload asks for the passphrase again and no draft is left', async () => {
    await go('compose');
    await page.getByTestId('compose-add-input').fill('left@example.com');
    await page.getByTestId('compose-add-input').press('Enter');
    await until(async () => (await drafts()).includes('relay-draft:compose'), 'a Compose draft stored');
    await page.getByTestId('sign-out').click();
    await page.getByTestId('signin-passphrase').waitFor();
    assert.deepEqual(await drafts(), [], 'sign-out clears the window drafts');
    await page.reload();
    await page.getByTestId('signin-passphrase').waitFor({ timeout: 15_000 });
    assert.equal(await page.getByTestId('sign-out').count(), 0);
    assert.deepEqual(page.relayErrors, []);
  });
});
