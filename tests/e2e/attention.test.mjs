// End-to-end (issue #19): the window's attention signals and Compose's context menus, against
// the real relay binary. A due alarm and a lost connection each change the window title and the
// favicon (a red-dot data: URL) and both are restored when resolved; the loss shows a role=alert
// banner with the time; the alarm tone plays only while "Sound on" (aria-pressed, per device).
// Compose: a recipient's menu saves an unknown address as a contact (form prefilled) and manages
// its groups; a bridge history entry's menu copies, reuses and deletes (confirmed) it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, apiToken, launch, signIn, startRelay, until } from './harness.mjs';
import { after, before } from 'node:test';

const iso = (ms) => new Date(ms).toISOString();
/** Console errors a deliberate outage causes (the browser reports the refused requests). */
const OUTAGE_NOISE = /ERR_INTERNET_DISCONNECTED|Failed to load resource|ERR_NETWORK_CHANGED/;

describe('Relay attention signals and Compose context menus', { timeout: 200_000 }, () => {
  let relay;
  let browser;
  let ctx;
  let page;
  let token;

  before(async () => {
    relay = await startRelay();
    token = await apiToken(relay);
    assert.equal((await api(relay, token, 'POST', '/api/collections/contacts/records', { name: 'Ada Lovelace', email: 'ada@example.com', title: 'NOC', phone: '' })).status, 200);
    assert.equal((await api(relay, token, 'POST', '/api/collections/bridge_groups/records', { name: 'NOC Core', contacts: ['ada@example.com'] })).status, 200);
    browser = await launch();
    ctx = await browser.newContext(relay.url);
    // Count the fallback pulses' oscillators, so the test can tell whether either tone plays
    // (the MP3 itself is a hidden <audio data-testid="alarm-audio">; alarm-sound.test.mjs covers it).
    await ctx.addInitScript(() => {
      window.__tones = 0;
      const AC = window.AudioContext;
      if (!AC) return;
      const orig = AC.prototype.createOscillator;
      AC.prototype.createOscillator = function (...a) { window.__tones += 1; return orig.apply(this, a); };
    });
    page = await signIn(ctx, relay);
  });

  after(async () => {
    await browser?.close();
    await relay?.stop();
  });

  const title = () => page.title();
  const favicon = () => page.evaluate(() => document.querySelector('link[rel~="icon"]').getAttribute('href'));
  const tones = () => page.evaluate(() => window.__tones);
  /** The MP3 plays (or the pulses sound): the audio element is playing, or oscillators were made. */
  const ringing = () => page.evaluate(() => {
    const a = document.querySelector('audio[data-testid="alarm-audio"]');
    return Boolean(a && !a.paused) || window.__tones > 0;
  });
  const mp3Present = () => page.evaluate(() => document.querySelector('audio[data-testid="alarm-audio"]') !== null);

  test('a due alarm changes the title and favicon, rings only with Sound on, and both are restored', async () => {
    assert.equal(await title(), 'Relay');
    assert.equal(await favicon(), '/favicon.svg');
    const toggle = page.getByTestId('sound-toggle');
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    assert.match(await toggle.innerText(), /Sound on/);
    assert.equal(await toggle.getAttribute('data-armed'), 'true', 'the sign-in click armed the sound');

    const made = await api(relay, token, 'POST', '/api/collections/alert_reminders/records', {
      title: 'Send the DC-2 update', dueAt: iso(Date.now() - 60_000), status: 'pending',
    });
    assert.equal(made.status, 200, made.text);
    const popup = page.getByTestId('due-popup');
    await popup.waitFor({ timeout: 35_000 });
    await until(async () => (await title()) === 'Alarm due — Relay', 'alarm title');
    const href = await favicon();
    assert.match(href, /^data:image\/svg\+xml,/);
    assert.match(decodeURIComponent(href), /<circle[^>]*fill="#e5383b"/);
    await until(ringing, 'alarm tone playing');

    // Sound off (the popup covers the header, so it has its own toggle): both toggles say so,
    // the choice is kept on this device, and the tone stops.
    const popupToggle = popup.getByTestId('due-sound-toggle');
    assert.equal(await popupToggle.getAttribute('aria-pressed'), 'true');
    await popupToggle.click();
    assert.equal(await popupToggle.getAttribute('aria-pressed'), 'false');
    assert.match(await popupToggle.innerText(), /Sound off/);
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    assert.match(await toggle.innerText(), /Sound off/);
    assert.equal(await page.evaluate(() => localStorage.getItem('relay-alarm-sound')), 'off');
    const quiet = await tones();
    await new Promise((r) => setTimeout(r, 2_000));
    assert.equal(await tones(), quiet, 'no pulses while Sound off');
    assert.equal(await mp3Present(), false, 'no MP3 while Sound off');
    assert.ok(await popup.isVisible(), 'the popup still shows with sound off');

    await page.getByTestId('due-dismiss').click();
    await popup.waitFor({ state: 'detached' });
    await until(async () => (await title()) === 'Relay', 'title restored');
    assert.equal(await favicon(), '/favicon.svg');
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    assert.equal(await page.evaluate(() => localStorage.getItem('relay-alarm-sound')), 'on');
  });

  test('recipient menu: Save to Contacts (prefilled) for an unknown address, Manage Groups saves at once', async () => {
    await page.getByTestId('nav-compose').click();
    await page.locator('[data-testid="group-item"][data-name="NOC Core"] .group-toggle').click();
    await page.getByTestId('compose-add-input').fill('zed@example.com');
    await page.getByTestId('compose-add-input').press('Enter');
    const zed = page.locator('[data-testid="recipient-row"][data-email="zed@example.com"]');
    await zed.waitFor();

    // A known contact's menu has no Save to Contacts.
    await page.locator('[data-testid="recipient-row"][data-email="ada@example.com"]').click({ button: 'right' });
    const menu = page.getByTestId('recipient-menu');
    assert.deepEqual(await menu.getByRole('menuitem').allInnerTexts(), ['Manage Groups', 'Remove from List']);
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });

    await zed.click({ button: 'right' });
    assert.deepEqual(await menu.getByRole('menuitem').allInnerTexts(), ['Save to Contacts', 'Manage Groups', 'Remove from List']);
    await menu.getByRole('menuitem', { name: 'Save to Contacts' }).click();
    const form = page.getByTestId('save-contact');
    await form.waitFor();
    assert.equal(await page.getByTestId('contact-email-input').inputValue(), 'zed@example.com');
    await page.getByTestId('contact-name-input').fill('Zed Ops');
    await page.getByTestId('contact-save').click();
    await form.waitFor({ state: 'detached' });
    await until(async () => (await api(relay, token, 'GET', `/api/collections/contacts/records?filter=${encodeURIComponent("email = 'zed@example.com'")}`)).json.items[0]?.name === 'Zed Ops', 'contact saved');
    await until(async () => /Zed Ops/.test(await zed.innerText()), 'row shows the new contact name');

    // Keyboard: Shift+F10 on the focused row; the address is a contact now.
    await zed.focus();
    await page.keyboard.press('Shift+F10');
    await menu.waitFor();
    assert.deepEqual(await menu.getByRole('menuitem').allInnerTexts(), ['Manage Groups', 'Remove from List']);
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Manage Groups', 'focus on the first item');
    await page.keyboard.press('Enter');
    const dialog = page.getByTestId('manage-groups');
    await dialog.waitFor();
    const check = dialog.locator('[data-testid="manage-group-check"][data-name="NOC Core"]');
    assert.equal(await check.isChecked(), false);
    await check.check();
    const inGroup = async (yes) => {
      const g = (await api(relay, token, 'GET', `/api/collections/bridge_groups/records?filter=${encodeURIComponent("name = 'NOC Core'")}`)).json.items[0];
      return (g.contacts ?? []).includes('zed@example.com') === yes;
    };
    await until(() => inGroup(true), 'zed added to NOC Core');
    await check.uncheck();
    await until(() => inGroup(false), 'zed removed from NOC Core');
    await check.check();
    await until(() => inGroup(true), 'zed added again');
    await page.getByTestId('manage-groups-done').click();
    await dialog.waitFor({ state: 'detached' });
    // The ContextMenu key opens the menu too; Remove from List drops the row.
    await zed.focus();
    await page.keyboard.press('ContextMenu');
    await menu.waitFor();
    await menu.getByRole('menuitem', { name: 'Remove from List' }).click();
    await zed.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Undo' }).click();
    await zed.waitFor();
  });

  test('bridge history menu: Copy recipients, Use again, Delete with confirm', async () => {
    await page.getByTestId('compose-copy').click();
    const row = await until(async () => (await api(relay, token, 'GET', '/api/collections/bridge_history/records')).json.items[0], 'history row');
    assert.deepEqual([...row.contacts].sort(), ['ada@example.com', 'zed@example.com']);
    await page.getByRole('button', { name: 'Reset' }).click();
    await until(async () => (await page.getByTestId('recipient-row').count()) === 0, 'compose reset');

    await page.getByTestId('compose-history').click();
    const entry = page.getByTestId('history-item').first().locator('.history-load');
    await entry.click({ button: 'right' });
    const menu = page.getByTestId('history-menu');
    assert.deepEqual(await menu.getByRole('menuitem').allInnerTexts(), ['Use again', 'Copy recipients', 'Save as Group', 'Delete']);
    await page.evaluate(() => navigator.clipboard.writeText(''));
    await menu.getByRole('menuitem', { name: 'Copy recipients' }).click();
    await until(async () => (await page.evaluate(() => navigator.clipboard.readText())) === row.contacts.join('; '), 'recipients copied');

    await entry.focus();
    await page.keyboard.press('Shift+F10');
    await menu.getByRole('menuitem', { name: 'Use again' }).click();
    await page.getByTestId('bridge-history').waitFor({ state: 'detached' });
    await until(async () => (await page.getByTestId('recipient-row').count()) === 2, 'recipients loaded again');

    await page.getByTestId('compose-history').click();
    await entry.click({ button: 'right' });
    await menu.getByRole('menuitem', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('bridge-history').waitFor();
    assert.equal((await api(relay, token, 'GET', '/api/collections/bridge_history/records')).json.totalItems, 1, 'cancel keeps it');
    await entry.click({ button: 'right' });
    await menu.getByRole('menuitem', { name: 'Delete' }).click();
    await page.getByTestId('confirm-ok').click();
    await until(async () => (await api(relay, token, 'GET', '/api/collections/bridge_history/records')).json.totalItems === 0, 'history entry deleted');
    await until(async () => (await page.getByTestId('history-item').count()) === 0, 'entry gone from the list');
    await page.keyboard.press('Escape');
    await page.getByTestId('bridge-history').waitFor({ state: 'detached' });
  });

  test('connection loss: a role=alert banner with the time, title and favicon change, all restored', async () => {
    const before = page.relayErrors.length;
    const lostFrom = Date.now();
    await ctx.setOffline(true);
    const banner = page.getByTestId('connection-banner');
    try {
      await banner.waitFor({ timeout: 20_000 });
      assert.equal(await banner.getAttribute('role'), 'alert');
      const at = new Date(await page.getByTestId('connection-lost-at').getAttribute('datetime')).getTime();
      assert.ok(at >= lostFrom - 1_000 && at <= Date.now(), `lost-at ${at} within the outage`);
      assert.match(await banner.innerText(), /Connection lost at \d{2}:\d{2} — (Reconnecting…|Offline)/);
      await until(async () => (await title()) === 'Connection lost — Relay', 'lost title');
      assert.match(await favicon(), /^data:image\/svg\+xml,/);
    } finally {
      await ctx.setOffline(false);
    }
    await page.locator('[data-testid="status-connection"][data-state="connected"]').waitFor({ timeout: 30_000 });
    await banner.waitFor({ state: 'detached' });
    await until(async () => (await title()) === 'Relay', 'title restored');
    assert.equal(await favicon(), '/favicon.svg');
    const outage = page.relayErrors.splice(before);
    assert.deepEqual(outage.filter((e) => !OUTAGE_NOISE.test(e)), [], 'only the outage\'s refused requests were logged');
    assert.deepEqual(page.relayErrors, [], 'no page or console errors');
  });
});
