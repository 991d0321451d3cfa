// End-to-end: the alert body's rich editor (issue #19, Alerts) in Debian Chromium against the real
// relay binary. Typed text is made bold with Ctrl+B and highlighted with Ctrl+2 (warning), Ctrl+0
// and the highlight menu remove a highlight, the menu applies one, the list button makes a bulleted list, and a paste of hostile HTML (an
// <img onerror>, a javascript: link, style and class attributes, a script) keeps only the
// allowlist: none of it reaches the editor's DOM, the preview card, the Copy for Outlook HTML, the
// saved alert_history row or the scheduled alarm's alertBodyHtml, and nothing runs. The preview
// and the Outlook HTML show the formatting (highlights there as coloured bold text, no style
// attribute). A plain-text body stored by an older version loads as text with its line breaks,
// and a formatted one loads back formatted. Compact and Enhance change the body and turning both
// off gives the typed text back. Selections are set through the DOM (the shortcuts
// act on whatever is selected); no step waits on a timer.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, apiToken, screenshot, signedInSuite, until } from './harness.mjs';

const HOSTILE = [
  '<meta charset="utf-8"><p>Pasted <b style="color:red" onclick="window.__pwned=1">bold</b> and ',
  '<img src=x onerror="window.__pwned=2"><a href="javascript:window.__pwned=3">bad link</a> ',
  '<a href="https://status.example.com/" target="_blank" onmouseover="window.__pwned=4">good link</a> ',
  '<span class="evil" style="background:red">styled</span><script>window.__pwned=5</script><style>body{display:none}</style></p>',
].join('');
const FORBIDDEN = /<img|onerror|onclick|onmouseover|javascript:|\sstyle=|class="evil"|<script|<style|display:none|__pwned/i;

/** Selects `text` (one text node) inside the editor. */
function selectText(page, text) {
  return page.getByTestId('alert-body').evaluate((el, text) => {
    el.focus();
    const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    while (w.nextNode()) {
      const t = w.currentNode;
      const i = t.data.indexOf(text);
      if (i < 0) continue;
      const r = document.createRange();
      r.setStart(t, i);
      r.setEnd(t, i + text.length);
      const s = getSelection();
      s.removeAllRanges();
      s.addRange(r);
      return;
    }
    throw new Error(`no text ${text}`);
  }, text);
}
/** Puts the caret at the end of the editor. */
const caretAtEnd = (page) => page.getByTestId('alert-body').evaluate((el) => {
  el.focus();
  const r = document.createRange();
  r.selectNodeContents(el);
  r.collapse(false);
  getSelection().removeAllRanges();
  getSelection().addRange(r);
});
const html = (page, id) => page.getByTestId(id).evaluate((el) => el.innerHTML);

describe('Alert rich body editor', { timeout: 120_000 }, () => {
  const client = signedInSuite();
  let page;
  let token;
  before(async () => {
    page = client.page;
    token = await apiToken(client.relay);
    await page.getByTestId('nav-alerts').click();
    await page.getByTestId('alert-body').waitFor();
  });

  test('the editor is a labelled multi-line textbox with a counter', async () => {
    const box = page.getByRole('textbox', { name: 'Body' });
    assert.equal(await box.getAttribute('aria-multiline'), 'true');
    assert.equal(await box.getAttribute('data-testid'), 'alert-body');
    assert.equal(await page.getByTestId('alert-body-count').innerText(), '0/10,000 characters');
  });

  test('Ctrl+B, Ctrl+2, Ctrl+0 and the list button format the body', async () => {
    await page.getByTestId('alert-subject').fill('VPN outage');
    await page.getByTestId('alert-body').click();
    await page.keyboard.type('Deploy the fix by Friday noon');
    await selectText(page, 'Deploy');
    await page.keyboard.press('Control+b');
    await until(async () => (await html(page, 'alert-body')).includes('<b>Deploy</b>'), 'Deploy in bold');
    assert.equal(await page.getByTestId('rich-bold').getAttribute('aria-pressed'), 'true');

    await selectText(page, 'Friday');
    await page.keyboard.press('Control+2');
    await until(async () => (await html(page, 'alert-body')).includes('<span data-hl="warning">Friday</span>'), 'Friday highlighted');
    assert.equal(await page.getByTestId('rich-hl').inputValue(), 'warning', 'the highlight menu shows the highlight at the selection');
    await selectText(page, 'noon');
    await page.keyboard.press('Control+1');
    await until(async () => (await html(page, 'alert-body')).includes('<span data-hl="deadline">noon</span>'), 'noon highlighted');
    await selectText(page, 'noon');
    await page.keyboard.press('Control+0');
    await until(async () => !(await html(page, 'alert-body')).includes('data-hl="deadline"'), 'noon no longer highlighted');
    // The menu does the same as the keys: "fix" as a service, then back to none.
    await selectText(page, 'fix');
    await page.getByTestId('rich-hl').selectOption('service');
    await until(async () => (await html(page, 'alert-body')).includes('<span data-hl="service">fix</span>'), 'fix highlighted from the menu');
    await selectText(page, 'fix');
    await page.getByTestId('rich-hl').selectOption('');
    await until(async () => !(await html(page, 'alert-body')).includes('data-hl="service"'), 'fix no longer highlighted');

    await caretAtEnd(page);
    await page.keyboard.press('Enter');
    await page.getByTestId('rich-insertUnorderedList').click();
    await page.keyboard.type('VPN');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Mail');
    await until(async () => /<ul><li>VPN<\/li><li>Mail(<br>)?<\/li><\/ul>/.test(await html(page, 'alert-body')), 'a bulleted list');
    assert.equal(await page.getByTestId('rich-insertUnorderedList').getAttribute('aria-pressed'), 'true');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter'); // an empty item leaves the list
  });

  test('a paste of hostile HTML keeps only the allowlist and runs nothing', async () => {
    await page.getByTestId('alert-body').evaluate((el, hostile) => {
      el.focus();
      const dt = new DataTransfer();
      dt.setData('text/html', hostile);
      dt.setData('text/plain', 'Pasted bold and bad link good link styled');
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    }, HOSTILE);
    const body = await html(page, 'alert-body');
    assert.match(body, /Pasted <b>bold<\/b> and bad link <a href="https:\/\/status\.example\.com\/" rel="noopener noreferrer">good link<\/a> styled/);
    assert.doesNotMatch(body, FORBIDDEN);
    assert.equal(await page.getByTestId('alert-body').locator('img, script, [style], [class], [onerror], [onclick]').count(), 0);
    // A plain-text paste goes in as text.
    await page.getByTestId('alert-body').evaluate((el) => {
      el.focus();
      const dt = new DataTransfer();
      dt.setData('text/plain', ' <i>not italic</i>');
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    });
    await until(async () => (await page.getByTestId('alert-body').innerText()).includes('<i>not italic</i>'), 'plain text pasted as text');
    assert.equal(await page.getByTestId('alert-body').locator('i').count(), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
  });

  test('the preview card shows the formatting and nothing of the paste\'s hostile parts', async () => {
    const preview = await html(page, 'alert-preview-body');
    assert.ok(preview.includes('<b>Deploy</b>'), preview);
    assert.ok(preview.includes('<span data-hl="warning">Friday</span>'), preview);
    assert.match(preview, /<ul><li>VPN<\/li><li>Mail<\/li><\/ul>/);
    assert.ok(preview.includes('<a href="https://status.example.com/" target="_blank" rel="noopener noreferrer">good link</a>'), preview);
    assert.doesNotMatch(preview, FORBIDDEN);
    const bg = await page.getByTestId('alert-preview-body').locator('[data-hl="warning"]').evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.equal(bg, 'rgb(255, 241, 194)', 'the warning highlight is drawn from styles.css');
    await screenshot(page, 'alert-editor');
  });

  test('Copy for Outlook carries the formatting by markup only; the history row is sanitized', async () => {
    await page.getByTestId('alert-copy-outlook').click();
    await page.getByTestId('toasts').getByText('Alert card copied for Outlook and saved to history.').waitFor();
    const clip = await page.evaluate(async () => {
      const [item] = await navigator.clipboard.read();
      return { html: await (await item.getType('text/html')).text(), text: await (await item.getType('text/plain')).text() };
    });
    assert.ok(clip.html.includes('<b>Deploy</b>'), clip.html);
    assert.ok(clip.html.includes('<font color="#7a4100"><b>Friday</b></font>'), 'the warning highlight as coloured bold text');
    assert.match(clip.html, /<ul><li>VPN<\/li><li>Mail<\/li><\/ul>/);
    assert.ok(clip.html.includes('<a href="https://status.example.com/" rel="noopener noreferrer">good link</a>'));
    assert.doesNotMatch(clip.html, FORBIDDEN);
    assert.doesNotMatch(clip.html, /data-hl|class="(?!alert-body-image)/);
    assert.match(clip.text, /^\[INFO\] VPN outage\n\nDeploy the fix by Friday noon\n• VPN\n• Mail\nPasted bold and bad link good link styled <i>not italic<\/i>$/);

    const row = await until(async () => (await api(client.relay, token, 'GET', '/api/collections/alert_history/records?perPage=5')).json.items[0], 'the history row');
    assert.equal(row.bodyHtml,
      '<b>Deploy</b> the fix by <span data-hl="warning">Friday</span> noon<ul><li>VPN</li><li>Mail</li></ul>'
      + 'Pasted <b>bold</b> and bad link <a href="https://status.example.com/" rel="noopener noreferrer">good link</a> styled &lt;i&gt;not italic&lt;/i&gt;');
    assert.deepEqual(page.relayErrors, [], 'no page errors or console errors (CSP violations would show here)');
  });

  test('the scheduled alarm stores the same sanitized body', async () => {
    await page.getByTestId('alarm-schedule').click();
    await page.getByTestId('alarm-save').click();
    await page.getByTestId('alarm-form').waitFor({ state: 'detached' });
    const alarm = await until(async () => (await api(client.relay, token, 'GET', '/api/collections/alert_reminders/records')).json.items[0], 'the alarm');
    assert.ok(alarm.alertBodyHtml.startsWith('<b>Deploy</b> the fix by <span data-hl="warning">Friday</span>'), alarm.alertBodyHtml);
    assert.doesNotMatch(alarm.alertBodyHtml, FORBIDDEN);
  });

  test('an old plain-text body loads as text with its line breaks; a formatted one loads formatted', async () => {
    await api(client.relay, token, 'POST', '/api/collections/alert_history/records', {
      severity: 'ISSUE', subject: 'Legacy', bodyHtml: 'Line &lt;b&gt;one&lt;/b&gt; &amp; more<br>Line two', pinned: true, label: 'Legacy plain',
    });
    await page.getByTestId('template-chip').getByText('Legacy plain').click();
    const body = page.getByTestId('alert-body');
    await until(async () => (await body.innerText()).replace(/\n+$/, '') === 'Line <b>one</b> & more\nLine two', 'the legacy text');
    assert.equal(await body.locator('b').count(), 0);
    assert.equal(await page.getByTestId('alert-preview-body').innerText(), 'Line <b>one</b> & more\nLine two');

    await page.getByTestId('alert-history-open').click();
    await page.getByTestId('alert-history').getByRole('button', { name: /VPN outage/ }).first().click();
    await until(async () => (await html(page, 'alert-body')).includes('<b>Deploy</b>'), 'the formatted body back');
    assert.equal(await body.locator('[data-hl="warning"]').innerText(), 'Friday');
    assert.equal(await body.locator('ul li').count(), 2);
    assert.deepEqual(page.relayErrors, []);
  });

  test('Compact and Enhance transform the body; both off restore it', async () => {
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    const body = page.getByTestId('alert-body');
    await body.click();
    await page.keyboard.type('Please note that mail is down until 14:30.');
    await page.getByTestId('alert-compact').check();
    await until(async () => (await body.innerText()).trim() === 'Mail is down until 14:30.', 'compacted');
    await page.getByTestId('alert-enhance').check();
    await until(async () => (await html(page, 'alert-body')) === 'Mail is <span data-hl="warning">down</span> until <span data-hl="deadline">14:30</span>.', 'enhanced');
    assert.equal(await page.getByTestId('alert-preview-body').locator('[data-hl="deadline"]').innerText(), '14:30');
    await page.getByTestId('alert-compact').uncheck();
    await page.getByTestId('alert-enhance').uncheck();
    await until(async () => (await body.innerText()).trim() === 'Please note that mail is down until 14:30.', 'the original back');
    assert.equal(await body.locator('[data-hl]').count(), 0);
    assert.deepEqual(page.relayErrors, []);
  });
});
