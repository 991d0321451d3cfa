// End-to-end (issue #19, operator UI): Compose → Start Bridge opens the exact Teams meeting draft
// (the popup is answered locally, never by Microsoft) and records a bridge_history row; Schedule
// Bridge downloads an RFC 5545 .ics (CRLF, ≤ 75-octet lines, the chosen 90-minute duration);
// On-Call Export CSV (quoted, formula-guarded), the card menu by Shift+F10 (rename) and by
// right-click (remove), and Kiosk (no editing controls, large type, Esc exits, focus returns);
// People/Servers column sort with aria-sort, ↓ + Enter opening the detail (groups, tags,
// servers), the Supports Server and tag filters, "No matches" in lists and in the header search.
// The page logs no console error throughout.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { api, apiToken, launch, screenshot, signInNewClient, startRelay, until } from './harness.mjs';

let relay;
let browser;
let page;
let token;

/**
 * Focuses the on-call card `team` and presses Shift+F10 until its menu shows (at most 3 tries:
 * a realtime update can re-render the board between the focus and the key press).
 */
async function openCardMenuByKeyboard(team) {
  const menu = page.getByTestId('context-menu');
  for (let attempt = 1; ; attempt++) {
    await page.locator(`[data-team="${team}"]`).focus();
    await page.keyboard.press('Shift+F10');
    try {
      await menu.waitFor({ timeout: 3_000 });
      return menu;
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
}

async function go(tab) {
  await page.getByTestId(`nav-${tab}`).click();
  await page.getByTestId(`tab-${tab}`).waitFor({ state: 'visible' });
}
const post = async (collection, body) => {
  const r = await api(relay, token, 'POST', `/api/collections/${collection}/records`, body);
  assert.equal(r.status, 200, `${collection}: ${r.text}`);
  return r.json;
};
const list = async (collection, q = '') => (await api(relay, token, 'GET', `/api/collections/${collection}/records?perPage=200${q}`)).json.items;
const downloaded = async (click) => {
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), click()]);
  return { name: dl.suggestedFilename(), text: await readFile(await dl.path(), 'utf8') };
};

describe('operator UI (issue #19)', { timeout: 240_000 }, () => {
  before(async () => {
    relay = await startRelay();
    token = await apiToken(relay);
    const ann = await post('contacts', { name: 'Ann Able', email: 'ann@corp.example.com', phone: '5550001111', title: 'DBA' });
    const bob = await post('contacts', { name: 'Bob Baker', email: 'bob@corp.example.com', phone: '5550002222', title: 'Network' });
    await post('contacts', { name: 'Cy Carter', email: 'cy@corp.example.com', title: 'Zeta' });
    await post('bridge_groups', { name: 'Ops Bridge', contacts: ['ann@corp.example.com', 'bob@corp.example.com'] });
    await post('servers', { name: 'db01', businessArea: 'Finance', lob: 'Ledger', owner: 'ann@corp.example.com', contact: 'bob@corp.example.com', os: 'RHEL 9' });
    await post('servers', { name: 'app02', businessArea: 'Retail', lob: 'Web', owner: 'Bob Baker', contact: '-', os: 'Windows Server 2022' });
    await post('notes', { entityType: 'contact', entityKey: `id:${ann.id}`, note: 'Pager first', tags: ['vip'] });
    await post('notes', { entityType: 'contact', entityKey: `id:${bob.id}`, note: '', tags: ['network'] });
    for (const [team, name, contact] of [['Network', '=HYPERLINK("x")', '5551234567'], ['Database', 'Dee, "D"', '']]) {
      await post('oncall', { team, teamId: team.toLowerCase(), role: 'Primary', name, contact, timeWindow: '24/7', sortOrder: 0 });
    }
    browser = await launch();
    page = await signInNewClient(browser, relay);
    // The Teams draft opens in a popup: answer it locally so no test reaches Microsoft.
    await page.context().route('https://teams.microsoft.com/**', (r) => r.fulfill({ status: 200, contentType: 'text/html', body: '<title>teams</title>' }));
  });

  after(async () => {
    await browser?.close();
    await relay?.stop();
  });

  test('compose: Start Bridge opens the exact Teams draft and saves history; Schedule Bridge saves a valid .ics', async () => {
    await go('compose');
    await page.locator('[data-testid="group-item"][data-name="Ops Bridge"] .group-toggle').click();
    await until(async () => (await page.getByTestId('recipient-count').innerText()) === '2 recipients', '2 recipients');
    await page.getByTestId('bridge-start').click();
    const dialog = page.getByTestId('start-bridge');
    await dialog.getByText('Please ensure meeting recording is enabled.').waitFor();
    await page.getByTestId('start-bridge-subject').fill('Sev1: db01 & ledger');
    const [popup] = await Promise.all([page.context().waitForEvent('page', { timeout: 15_000 }), page.getByTestId('start-bridge-confirm').click()]);
    await popup.waitForLoadState('domcontentloaded');
    const u = new URL(popup.url());
    assert.equal(`${u.origin}${u.pathname}`, 'https://teams.microsoft.com/l/meeting/new');
    assert.equal(u.searchParams.get('subject'), 'Sev1: db01 & ledger');
    assert.equal(u.searchParams.get('attendees'), 'ann@corp.example.com,bob@corp.example.com');
    assert.match(popup.url(), /attendees=ann@corp\.example\.com,bob@corp\.example\.com$/);
    await popup.close();
    await until(async () => (await list('bridge_history')).some((h) => h.recipientCount === 2 && h.groups.includes('Ops Bridge')), 'a bridge_history row');

    await page.getByTestId('bridge-schedule').click();
    await page.getByTestId('schedule-start').fill('2030-03-04T09:30');
    await page.getByTestId('schedule-duration').selectOption('90');
    await page.getByTestId('schedule-subject').fill('Bridge; überprüfung, phase 2');
    await page.getByTestId('schedule-organizer').fill('noc@corp.example.com');
    const ics = await downloaded(() => page.getByTestId('schedule-save').click());
    assert.match(ics.name, /^relay-bridge-\d{8}T\d{6}Z\.ics$/);
    const t = ics.text;
    assert.ok(t.endsWith('\r\n') && !/[^\r]\n/.test(t), 'CRLF line endings only');
    for (const line of t.split('\r\n')) assert.ok(Buffer.byteLength(line, 'utf8') <= 75, `folded: ${line}`);
    const lines = t.replace(/\r\n /g, '').split('\r\n');
    for (const l of ['BEGIN:VCALENDAR', 'METHOD:REQUEST', 'BEGIN:VEVENT', 'END:VEVENT', 'END:VCALENDAR', 'SUMMARY:Bridge\\; überprüfung\\, phase 2', 'ORGANIZER:mailto:noc@corp.example.com']) {
      assert.ok(lines.includes(l), `has ${l}`);
    }
    const at = (k) => lines.find((l) => l.startsWith(`${k}:`)).slice(k.length + 1);
    const utc = (v) => Date.UTC(+v.slice(0, 4), +v.slice(4, 6) - 1, +v.slice(6, 8), +v.slice(9, 11), +v.slice(11, 13), +v.slice(13, 15));
    assert.equal(at('DTSTART'), new Date(2030, 2, 4, 9, 30).toISOString().replace(/[-:]|\.\d{3}/g, ''));
    assert.equal(utc(at('DTEND')) - utc(at('DTSTART')), 90 * 60_000);
    assert.match(at('UID'), /^relay-bridge-\d+-[0-9a-z]+@relay$/);
    assert.deepEqual(lines.filter((l) => l.startsWith('ATTENDEE')).map((l) => l.replace(/.*mailto:/, '')), ['ann@corp.example.com', 'bob@corp.example.com']);
    assert.ok(lines.some((l) => l.startsWith('ATTENDEE;CN="Ann Able";') && l.includes('RSVP=TRUE')));
    assert.equal(await page.getByTestId('schedule-bridge').count(), 0, 'the dialog closed');
  });

  test('on-call: Export CSV, card menu by keyboard (rename) and right-click (remove), kiosk', async () => {
    await go('oncall');
    await until(async () => (await page.getByTestId('team-card').count()) === 2, '2 cards');
    const csv = await downloaded(() => page.getByTestId('board-export').click());
    assert.match(csv.name, /^oncall-export-\d{4}-\d{2}-\d{2}\.csv$/);
    assert.deepEqual(csv.text.split('\r\n'), [
      'Team,Role,Name,Phone,Time Window',
      'Database,Primary,"Dee, ""D""",,24/7',
      `Network,Primary,"'=HYPERLINK(""x"")",(555) 123-4567,24/7`,
      '',
    ]);

    // Shift+F10 on the focused card opens its menu; Rename Team.
    const menu = await openCardMenuByKeyboard('network');
    assert.deepEqual(await menu.getByRole('menuitem').allInnerTexts(), ['Copy On-Call Info', 'Edit Team', 'Rename Team', 'Remove Team']);
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Copy On-Call Info');
    await menu.getByRole('menuitem', { name: 'Rename Team' }).click();
    await page.getByTestId('rename-team-name').fill('Database');
    await page.getByTestId('rename-team-save').click();
    await page.getByTestId('rename-team-error').getByText(/already exists/).waitFor();
    await page.getByTestId('rename-team-name').fill('Core Network');
    await page.getByTestId('rename-team-save').click();
    await page.locator('[data-team="core network"]').waitFor();
    await until(async () => (await list('oncall')).some((r) => r.team === 'Core Network' && r.teamId === 'core network'), 'renamed rows');

    // Esc closes a keyboard-opened menu and focus returns to the card.
    await openCardMenuByKeyboard('database');
    await page.keyboard.press('Escape');
    await until(async () => (await page.evaluate(() => document.activeElement?.getAttribute('data-team'))) === 'database', 'focus back on the card');

    // Right-click → Remove Team (confirmed).
    await page.locator('[data-team="database"] .team-name').click({ button: 'right' });
    await menu.getByRole('menuitem', { name: 'Remove Team' }).click();
    await page.getByTestId('confirm-ok').click();
    await until(async () => (await page.getByTestId('team-card').count()) === 1, 'one card left');
    await until(async () => (await list('oncall')).every((r) => r.teamId !== 'database'), 'rows removed');

    // Kiosk: no editing controls, large type, Esc leaves and focus returns to the Kiosk button.
    await page.getByTestId('board-kiosk').click();
    await page.getByTestId('kiosk-exit').waitFor();
    for (const id of ['board-add', 'board-lock', 'card-edit', 'board-export']) assert.equal(await page.getByTestId(id).count(), 0, `${id} hidden in kiosk`);
    const view = page.getByTestId('oncall-view');
    assert.ok(parseFloat(await view.evaluate((el) => getComputedStyle(el).fontSize)) >= 20, 'large type');
    const box = await view.boundingBox();
    assert.ok(box.x <= 0.5 && box.y <= 0.5 && box.width >= 1279, 'fills the window');
    await page.locator('[data-team="core network"]').click({ button: 'right' });
    assert.deepEqual(await menu.getByRole('menuitem').allInnerTexts(), ['Copy On-Call Info']);
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    await screenshot(page, 'oncall-kiosk');
    await page.keyboard.press('Escape');
    await page.getByTestId('kiosk-exit').waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'board-kiosk');
    await page.getByTestId('board-add').waitFor();
  });

  test('people and servers: column sort, arrow keys + Enter, filters, detail, No matches', async () => {
    await go('people');
    const names = () => page.getByTestId('contact-row-name').allInnerTexts();
    await until(async () => (await names()).length === 3, '3 contacts');
    const nameHead = page.locator('[role="columnheader"]', { has: page.getByTestId('sort-name') });
    assert.equal(await nameHead.getAttribute('aria-sort'), 'none');
    await page.getByTestId('sort-name').click();
    assert.equal(await nameHead.getAttribute('aria-sort'), 'ascending');
    assert.deepEqual(await names(), ['Ann Able', 'Bob Baker', 'Cy Carter']);
    await page.getByTestId('sort-name').click();
    assert.equal(await nameHead.getAttribute('aria-sort'), 'descending');
    assert.deepEqual(await names(), ['Cy Carter', 'Bob Baker', 'Ann Able']);
    await page.getByTestId('sort-title').click();
    assert.deepEqual(await names(), ['Ann Able', 'Bob Baker', 'Cy Carter']); // DBA, Network, Zeta

    // One tab stop; ↓ moves focus, Enter opens the detail.
    assert.equal(await page.locator('[data-testid="contact-row"][tabindex="0"]').count(), 1);
    await page.getByTestId('contact-row').first().focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement?.querySelector('[data-testid="contact-row-name"]')?.textContent), 'Bob Baker');
    await page.keyboard.press('Enter');
    const detail = page.getByTestId('contact-detail');
    await detail.getByRole('heading', { name: 'Bob Baker' }).waitFor();
    assert.match(await page.getByTestId('contact-detail-groups').innerText(), /Ops Bridge/);
    assert.match(await page.getByTestId('contact-detail-tags').innerText(), /#network/);
    const servers = await page.getByTestId('contact-detail-servers').innerText();
    assert.match(servers, /app02\s+Owner · Retail · Web/);
    assert.match(servers, /db01\s+Support · Finance · Ledger/);
    await page.keyboard.press('End');
    assert.equal(await page.evaluate(() => document.activeElement?.querySelector('[data-testid="contact-row-name"]')?.textContent), 'Cy Carter');

    // Filters: Supports Server, then a tag that leaves nothing → No matches → Clear filters.
    await page.getByRole('button', { name: 'Supports Server' }).click();
    assert.deepEqual(await names(), ['Bob Baker']);
    assert.match(await page.getByTestId('contact-row-servers').innerText(), /Owner 1\s*Support 1/);
    await page.getByTestId('people-tag-filter').selectOption('vip');
    await page.getByTestId('people-no-matches').getByText('No matches').waitFor();
    await page.getByTestId('people-no-matches').getByRole('button', { name: 'Clear filters' }).click();
    await until(async () => (await names()).length === 3, 'filters cleared');
    await page.getByTestId('people-tag-filter').selectOption('vip');
    assert.deepEqual(await names(), ['Ann Able']);
    await page.getByTestId('people-tag-filter').selectOption('');
    await page.getByTestId('global-search').fill('no-such-person');
    await page.getByTestId('people-no-matches').waitFor();
    await page.getByTestId('global-search').fill('');

    await go('servers');
    const serverNames = () => page.locator('[data-testid="server-row"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')));
    await until(async () => (await serverNames()).length === 2, '2 servers');
    await page.getByTestId('sort-os').click();
    assert.deepEqual(await serverNames(), ['db01', 'app02']); // RHEL 9 < Windows
    await page.getByTestId('sort-os').click();
    assert.deepEqual(await serverNames(), ['app02', 'db01']);
    assert.equal(await page.locator('[role="columnheader"]', { has: page.getByTestId('sort-os') }).getAttribute('aria-sort'), 'descending');
    await page.locator('[data-testid="server-row"][tabindex="0"]').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.getByTestId('server-detail').getByRole('heading', { name: 'db01' }).waitFor();
    await page.getByTestId('global-search').fill('zzz-none');
    await page.getByTestId('servers-no-matches').getByText('No matches').waitFor();
    await page.getByTestId('global-search').fill('');

    // The header search says No matches on a tab that lists its results in the dropdown.
    await go('compose');
    await page.getByTestId('global-search').fill('zzz-nothing-here');
    await page.getByTestId('search-no-matches').getByText('No matches').waitFor();
    await page.getByTestId('global-search').fill('');
  });

  test('no console errors', () => {
    assert.deepEqual(page.relayErrors, []);
  });
});
