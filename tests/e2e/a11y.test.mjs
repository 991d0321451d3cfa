// Accessibility (issue #19, WCAG 2.2 AA) in Debian Chromium: axe-core (WCAG 2.0/2.1/2.2 A and AA
// rules) over every tab of the nav and every dialog or popover that can be opened, with zero
// serious/critical violations allowed; the page structure axe cannot judge (one <h1> per view,
// labelled landmarks, live regions, a visible focus ring); and a keyboard-only walkthrough
// (sign in, nav with Tab/arrows/Enter, a modal opened and closed with Esc, a form sent with Enter)
// that checks document.activeElement at each step. Writes no file.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { api, apiToken, launch, signIn, startRelay } from './harness.mjs';

const AXE_SOURCE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'];
const BLOCKING = new Set(['serious', 'critical']);

let relay;
let browser;
let ctx;
let page;
let token;
/** Every axe violation seen, by state name: [{ id, impact, help, targets }]. */
const seen = new Map();

/** Runs axe on the page as it is now and records its violations under `state`. */
async function axe(state, on = page) {
  // Evaluated through the DevTools protocol: the page's CSP (script-src 'self') refuses a <script>.
  if (!(await on.evaluate(() => typeof window.axe === 'object'))) await on.evaluate(AXE_SOURCE);
  const violations = await on.evaluate(async (tags) => {
    const r = await window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  }, AXE_TAGS);
  seen.set(state, violations);
  return violations;
}

/** Serious/critical violations of the states recorded since the `from`-th one. */
function blocking(from = 0) {
  const out = [];
  for (const [state, vs] of [...seen].slice(from)) for (const v of vs) if (BLOCKING.has(v.impact)) out.push(`${state}: [${v.impact}] ${v.id} (${v.help})\n    ${v.targets.slice(0, 8).join('\n    ')}`);
  return out;
}

function byImpact() {
  const n = {};
  for (const vs of seen.values()) for (const v of vs) n[v.impact] = (n[v.impact] ?? 0) + 1;
  return n;
}

async function go(tab) {
  await page.getByTestId(`nav-${tab}`).click();
  await page.getByTestId(`tab-${tab}`).waitFor({ state: 'visible' });
  await page.waitForLoadState('networkidle').catch(() => {});
}

/** Opens a dialog with `open()`, checks it with axe under `state`, closes it with Esc. */
async function dialog(state, open, selector = '[role="dialog"], [role="alertdialog"]') {
  await open();
  await page.locator(selector).first().waitFor({ state: 'visible' });
  await axe(state);
  await page.keyboard.press('Escape');
  await page.locator(selector).first().waitFor({ state: 'detached' });
}

/** WCAG contrast ratio of two CSS `rgb()`/`rgba()` colours (alpha ignored). */
function contrast(a, b) {
  const lum = (css) => {
    const [r, g, bl] = css.match(/[\d.]+/g).slice(0, 3).map(Number).map((c) => {
      const s = c / 255;
      return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

describe('Accessibility (WCAG 2.2 AA)', { timeout: 240_000 }, () => {
  before(async () => {
    relay = await startRelay();
    token = await apiToken(relay);
    const post = async (c, body) => assert.equal((await api(relay, token, 'POST', `/api/collections/${c}/records`, body)).status, 200, c);
    await post('contacts', { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958', title: 'Engineer' });
    await post('contacts', { name: 'Bob Ops', email: 'bob@example.com', phone: '5551234567', title: 'Operator' });
    await post('bridge_groups', { name: 'NOC Core', contacts: ['ada@example.com', 'bob@example.com'] });
    await post('oncall', { team: 'Network', teamId: 'network', role: 'Primary', name: 'Ada Lovelace', contact: '5551234567', timeWindow: 'rotating', sortOrder: 0 });
    await post('servers', { name: 'db-01', owner: 'ada@example.com', os: 'linux', businessArea: 'Core' });
    await post('standalone_notes', { title: 'Runbook', content: 'Restart the bridge.', color: 'blue' });
    browser = await launch();
    ctx = await browser.newContext(relay.url);
    page = await signIn(ctx, relay);
  });

  after(async () => {
    console.log(`axe: ${seen.size} states checked; violations by impact:`, JSON.stringify(byImpact()));
    await browser?.close();
    await relay?.stop();
  });

  test('axe: every tab in the nav has no serious or critical violation', async () => {
    const from = seen.size;
    const tabs = await page.locator('nav [data-testid^="nav-"]').evaluateAll((els) => els.map((e) => e.dataset.testid.slice(4)));
    assert.ok(tabs.length >= 8, `nav lists ${tabs.join(', ')}`);
    for (const tab of tabs) {
      await go(tab);
      await axe(`tab ${tab}`);
    }
    const bad = blocking(from);
    assert.equal(bad.length, 0, `axe found serious/critical violations:\n${bad.join('\n')}`);
  });

  test('axe: every dialog and popover has no serious or critical violation', async () => {
    const from = seen.size;
    await go('compose');
    await page.locator('[data-testid="group-item"][data-name="NOC Core"] .group-toggle').click();
    await page.getByTestId('recipient-row').first().waitFor();
    await axe('compose with recipients');
    await dialog('group new', () => page.getByTestId('group-new').click());
    await dialog('group edit', () => page.locator('[data-testid="group-item"][data-name="NOC Core"] [data-testid="group-edit"]').click());
    await dialog('group delete', () => page.locator('[data-testid="group-item"][data-name="NOC Core"] [data-testid="group-delete"]').click());
    await dialog('bridge history', () => page.getByTestId('compose-history').click());
    await dialog('start bridge', () => page.getByTestId('bridge-start').click());
    await dialog('schedule bridge', () => page.getByTestId('bridge-schedule').click());
    await page.locator('[data-testid="group-item"][data-name="NOC Core"]').click({ button: 'right' });
    await page.getByTestId('context-menu').waitFor();
    await axe('group context menu');
    await page.keyboard.press('Escape');
    await dialog('shortcuts help', () => page.getByTestId('shortcuts-open').click());
    await page.getByTestId('clock').click();
    await page.getByTestId('clock-popover').waitFor();
    await axe('clock popover');
    await page.keyboard.press('Escape');
    await page.getByTestId('clock-popover').waitFor({ state: 'detached' });
    await page.getByTestId('global-search').fill('ada');
    await page.getByTestId('search-results').waitFor();
    await axe('global search results');
    await page.getByTestId('global-search').press('Escape');

    await go('alerts');
    await dialog('alarm schedule', () => page.getByTestId('alarm-schedule').click());
    await dialog('alarm manager', () => page.getByTestId('alarms-open').click());
    await dialog('alert history', () => page.getByTestId('alert-history-open').click());
    await dialog('pin template', () => page.getByTestId('alert-pin').click());
    for (const sev of ['ISSUE', 'MAINTENANCE', 'INFO', 'RESOLVED']) {
      await page.locator('.sev-card', { hasText: new RegExp(sev, 'i') }).first().click();
      await axe(`alerts severity ${sev}`);
    }
    // The rich body editor with bold, a highlight, a list and its link form open.
    await page.getByTestId('alert-body').click();
    await page.keyboard.type('Deploy by Friday');
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Control+b');
    await page.keyboard.press('Control+2');
    await page.getByTestId('rich-insertUnorderedList').click();
    await page.getByTestId('rich-link').click();
    await page.getByTestId('rich-link-form').waitFor();
    await axe('alerts body editor (bold, highlight, list, link form)');
    await page.getByTestId('rich-link-url').press('Escape');
    await page.getByTestId('rich-link-form').waitFor({ state: 'detached' });
    // The due-alarm popup (alertdialog): an alarm made due by another client.
    await page.getByTestId('alert-subject').fill('Core switch outage');
    await page.getByTestId('alarm-schedule').click();
    await page.getByTestId('alarm-save').click();
    await page.getByTestId('alarm-form').waitFor({ state: 'detached' });
    const alarms = (await api(relay, token, 'GET', '/api/collections/alert_reminders/records')).json.items;
    assert.equal(alarms.length, 1);
    await api(relay, token, 'PATCH', `/api/collections/alert_reminders/records/${alarms[0].id}`, { dueAt: new Date(Date.now() - 60_000).toISOString() });
    await page.getByRole('alertdialog').waitFor();
    await axe('alarm due popup');
    await page.getByTestId('due-snooze').click();
    await page.getByRole('alertdialog').waitFor({ state: 'detached' });

    await go('oncall');
    await dialog('add card', () => page.getByTestId('board-add').click());
    await dialog('edit team', () => page.locator('[data-team="network"] [data-testid="card-edit"]').click());
    await page.locator('[data-team="network"]').focus();
    await page.keyboard.press('Shift+F10');
    await page.getByTestId('context-menu').waitFor();
    await axe('team card menu');
    await page.getByRole('menuitem', { name: 'Rename Team' }).click();
    await page.getByTestId('rename-team').waitFor();
    await axe('rename team');
    await page.keyboard.press('Escape');
    await page.getByTestId('rename-team').waitFor({ state: 'detached' });
    await page.getByTestId('board-kiosk').click();
    await page.getByTestId('kiosk-exit').waitFor();
    await axe('on-call kiosk');
    await page.keyboard.press('Escape');
    await page.getByTestId('kiosk-exit').waitFor({ state: 'detached' });

    await go('notes');
    await dialog('note new', () => page.getByTestId('note-new').click());

    await go('people');
    await dialog('add contact', () => page.getByTestId('contact-new').click());
    await page.getByTestId('contact-row').first().click();
    await page.getByTestId('contact-detail').waitFor();
    await axe('people detail');
    await page.getByTestId('tab-people').getByTestId('sort-name').click();
    await axe('people sorted by name');
    await page.getByTestId('global-search').fill('zzz-no-such-contact');
    await page.getByTestId('people-no-matches').waitFor();
    await axe('people no matches');
    await page.getByTestId('global-search').fill('');
    await dialog('edit contact', () => page.getByTestId('contact-edit').click());
    await dialog('contact notes', () => page.getByTestId('contact-notes').click());
    await page.locator('[data-testid="contact-row"]').first().focus();
    await page.keyboard.press('Shift+F10');
    await page.getByTestId('person-menu').waitFor();
    await axe('person context menu');
    await dialog('person manage groups', () => page.getByRole('menuitem', { name: 'Manage Groups' }).click());

    await go('servers');
    await dialog('add server', () => page.getByTestId('server-new').click());
    await page.getByTestId('server-row').first().click();
    await page.getByTestId('server-detail').waitFor();
    await axe('servers detail');
    await page.getByTestId('server-sync').click();
    await page.getByTestId('sync-file').setInputFiles({ name: 's.csv', mimeType: 'text/csv', buffer: Buffer.from('name,os\na11y-new-01,Linux\n') });
    await page.getByTestId('sync-preview').waitFor();
    await axe('servers sync preview');
    await page.keyboard.press('Escape');
    await page.getByTestId('server-sync-dialog').waitFor({ state: 'detached' });

    await go('settings');
    for (const accent of ['red', 'orange', 'blue', 'green', 'pink', 'purple']) {
      await page.getByTestId(`accent-${accent}`).click();
      await axe(`settings accent ${accent}`);
    }
    await page.getByTestId('import-file').setInputFiles({ name: 'c.csv', mimeType: 'text/csv', buffer: Buffer.from('name,email\nCy Ops,cy@example.com\n"Unclosed,x\n') });
    await page.getByTestId('import-parse-errors').waitFor();
    await axe('settings import preview');

    const bad = blocking(from);
    assert.equal(bad.length, 0, `axe found serious/critical violations:\n${bad.join('\n')}`);
  });

  test('structure: one <h1> per view, labelled landmarks, live regions, a visible focus ring', async () => {
    const tabs = await page.locator('nav [data-testid^="nav-"]').evaluateAll((els) => els.map((e) => [e.dataset.testid.slice(4), e.dataset.label ?? e.textContent.trim()]));
    for (const [tab, label] of tabs) {
      await go(tab);
      const h1s = await page.evaluate(() => [...document.querySelectorAll('h1')].filter((h) => h.getClientRects().length > 0).map((h) => h.textContent.trim()));
      assert.equal(h1s.length, 1, `${tab}: visible <h1>s ${JSON.stringify(h1s)}`);
      assert.equal(await page.locator('main').getAttribute('aria-label'), label, `${tab}: main is labelled with the view`);
    }
    const landmarks = await page.evaluate(() => ['header', 'nav', 'main', 'footer'].map((t) => {
      const els = [...document.querySelectorAll(t)].filter((el) => !el.closest('main, section, article, aside, nav') || el.tagName === 'NAV' || el.tagName === 'MAIN');
      return [t, els.length, els.map((el) => el.getAttribute('aria-label'))];
    }));
    for (const [tag, n, labels] of landmarks) {
      assert.equal(n, 1, `one <${tag}> landmark, found ${n}`);
      assert.ok(labels[0], `<${tag}> landmark is labelled`);
    }
    // Live regions exist before anything is announced: toasts polite, connection loss assertive.
    const toasts = page.getByTestId('toasts');
    assert.equal(await toasts.getAttribute('aria-live'), 'polite');
    assert.equal(await page.getByTestId('connection-live-assertive').getAttribute('aria-live'), 'assertive');
    assert.equal(await page.getByTestId('connection-live-polite').getAttribute('aria-live'), 'polite');
    await go('compose');
    await page.getByTestId('compose-copy').click();
    await toasts.getByTestId('toast').first().waitFor();
    // Keyboard focus shows a solid outline of at least 2 px that contrasts 3:1 with the page.
    await page.getByTestId('nav-alerts').focus();
    await page.keyboard.press('ArrowDown');
    const ring = await page.evaluate(() => {
      const el = document.activeElement;
      const cs = getComputedStyle(el);
      const bg = getComputedStyle(el.closest('.sidebar')).backgroundColor;
      return { id: el.dataset.testid, visible: el.matches(':focus-visible'), style: cs.outlineStyle, width: parseFloat(cs.outlineWidth), color: cs.outlineColor, bg };
    });
    assert.equal(ring.id, 'nav-oncall');
    assert.ok(ring.visible && ring.style === 'solid' && ring.width >= 2, `focus ring ${JSON.stringify(ring)}`);
    assert.ok(contrast(ring.color, ring.bg) >= 3, `focus ring ${ring.color} on ${ring.bg}: ${contrast(ring.color, ring.bg).toFixed(2)}:1`);
  });

  test('keyboard only: sign in, nav with arrows and Enter, a modal closed with Esc, a form sent with Enter', async () => {
    const kb = await ctx.newPage();
    const focused = () => kb.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName);
    await kb.goto(relay.url + '/');
    await kb.getByTestId('signin-passphrase').waitFor();
    assert.equal(await focused(), 'signin-passphrase', 'the passphrase field has focus on load');
    const from = seen.size;
    await axe('sign-in screen', kb);
    assert.deepEqual(blocking(from), [], 'axe on the sign-in screen');
    assert.equal(await focused(), 'signin-passphrase');
    await kb.keyboard.type(relay.passphrase);
    await kb.keyboard.press('Enter');
    await kb.locator('[data-testid="status-connection"][data-state="connected"]').waitFor();
    // The skip link is the first thing Tab reaches, the nav the next; arrows move along it, Enter opens a tab.
    await kb.keyboard.press('Tab');
    assert.equal(await focused(), 'skip-link');
    await kb.keyboard.press('Tab');
    assert.equal(await focused(), 'nav-compose');
    for (let i = 0; i < 5; i++) await kb.keyboard.press('ArrowDown');
    assert.equal(await focused(), 'nav-people');
    await kb.keyboard.press('Enter');
    await kb.getByTestId('tab-people').waitFor({ state: 'visible' });
    assert.equal(await kb.getByTestId('nav-people').getAttribute('aria-current'), 'page');
    assert.equal(await focused(), 'nav-people', 'focus stays on the chosen nav item');
    await kb.keyboard.press('End');
    assert.equal(await focused(), 'nav-settings', 'End reaches the last nav item (Settings)');
    await kb.keyboard.press('ArrowDown');
    assert.equal(await focused(), 'nav-compose', 'ArrowDown wraps to the top');
    for (let i = 0; i < 6; i++) await kb.keyboard.press('ArrowUp'); // Settings, Knowledge, Problems, Radar, Servers, People
    assert.equal(await focused(), 'nav-people');
    // Tab on to "Add contact", open it with Enter, close it with Esc: focus goes back to the opener.
    let presses = 0;
    while ((await focused()) !== 'contact-new' && presses++ < 30) await kb.keyboard.press('Tab');
    assert.equal(await focused(), 'contact-new', 'Tab reaches Add contact');
    await kb.keyboard.press('Enter');
    const dialog = kb.locator('[role="dialog"][aria-label="Add contact"]');
    await dialog.waitFor();
    assert.equal(await focused(), 'contact-name-input', 'the dialog opens on its first field');
    await kb.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await focused(), 'contact-new', 'Esc closes and focus returns to the opener');
    // Open it again and send the form with Enter.
    await kb.keyboard.press('Enter');
    await dialog.waitFor();
    await kb.keyboard.type('Kay Board');
    await kb.keyboard.press('Tab');
    assert.equal(await focused(), 'contact-email-input');
    await kb.keyboard.type('kay@example.com');
    await kb.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await kb.locator('[data-testid="contact-row"]', { hasText: 'Kay Board' }).waitFor();
    assert.equal(await focused(), 'contact-new', 'after saving, focus returns to the opener');
    await kb.close();
  });

  test('connection loss is announced assertively', async () => {
    const assertive = page.getByTestId('connection-live-assertive');
    assert.equal(await assertive.innerText(), '');
    await relay.stop();
    await page.waitForFunction(() => /Connection lost/.test(document.querySelector('[data-testid="connection-live-assertive"]')?.textContent ?? ''), null, { timeout: 20_000 });
    assert.equal(await page.getByTestId('connection-live-polite').innerText(), '');
  });
});
