// @vitest-environment jsdom
// Alert card exports: the PNG file name, the card content with "UPDATE #N" and zoned times, the
// plain text, the inline-styled HTML for Outlook (escaped text, the body's formatting with
// highlights as coloured bold text, only data: images, logos only as data URLs), the clipboard
// payload's three flavours, the refused-clipboard message, and Copy for Outlook on a page that is
// not a secure context (Relay Web on http://): the HTML and text through the copy command, no
// picture, and a notice saying why and that Save PNG works.
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { ClipboardEnv } from '../../lib/clipboard';
import { stubNonSecurePage } from '../../lib/nonSecureTest';
import { emptyDraft, type AlertDraft } from './alerts';
import {
  cardContent, cardInlineHtml, cardPlainText, CLIPBOARD_REFUSED, copyForOutlook, EXPORT_PIXEL_RATIO, EXPORT_WIDTH, OUTLOOK_NO_PICTURE_BROWSER,
  OUTLOOK_NO_PICTURE_HTTP, OUTLOOK_NOT_COPIED_HTTP, outlookPayload, pngFileName,
} from './cardExport';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const draft = (p: Partial<AlertDraft> = {}): AlertDraft => ({
  ...emptyDraft, severity: 'ISSUE', subject: 'Email <outage>', body: 'Mail is down.<br>[image 1]', images: { 1: { src: PNG, alt: 'graph' } },
  update: 2, start: '2026-03-08T01:00', end: '2026-03-08T04:00', timeZone: 'America/Chicago', ...p,
});

describe('pngFileName', () => {
  test('alert-<local date>.png', () => {
    expect(pngFileName(new Date(2026, 2, 8, 23, 59))).toBe('alert-2026-03-08.png');
    expect(pngFileName(new Date(2026, 11, 1, 0, 0))).toBe('alert-2026-12-01.png');
  });
  test('the export is 640 px wide at 2x', () => {
    expect(EXPORT_WIDTH * EXPORT_PIXEL_RATIO).toBe(1280);
  });
});

describe('cardContent and cardPlainText', () => {
  test('the heading carries UPDATE #N and the times their zone', () => {
    const c = cardContent(draft());
    expect(c.heading).toBe('UPDATE #2 — Email <outage>');
    expect(c.times).toEqual([{ label: 'Started', text: 'Sun 8 Mar 2026, 01:00 CST (UTC-06:00) – Sun 8 Mar 2026, 04:00 CDT (UTC-05:00)' }]);
    expect(c.sender).toBe('IT');
    expect(c.recipient).toBe('All Employees');
    expect(cardPlainText(c)).toBe(
      '[ISSUE] UPDATE #2 — Email <outage>\nStarted: Sun 8 Mar 2026, 01:00 CST (UTC-06:00) – Sun 8 Mar 2026, 04:00 CDT (UTC-05:00)\n\nMail is down.\n[image 1]',
    );
  });
  test('the times in the zone asked for (the device setting), Central Time by default', () => {
    expect(cardContent(draft({ severity: 'INFO', end: '' }), 'Europe/London').times).toEqual([{ label: 'When', text: 'Sun 8 Mar 2026, 07:00 GMT (UTC+00:00)' }]);
    expect(cardContent(draft({ severity: 'INFO', end: '', timeZone: 'Europe/London', start: '2026-03-08T07:00' })).times[0].text).toBe('Sun 8 Mar 2026, 01:00 CST (UTC-06:00)');
  });
  test('without update or times, the old "[SEV] subject" text', () => {
    expect(cardPlainText(cardContent(draft({ update: 0, start: '', end: '', body: 'x', images: {} })))).toBe('[ISSUE] Email <outage>\n\nx');
  });
});

describe('cardInlineHtml', () => {
  test('styled by attributes only (no style attribute: the CSP), text escaped, body image kept as its data URL', () => {
    const html = cardInlineHtml(cardContent(draft()));
    expect(html).toContain('UPDATE #2 — Email &lt;outage&gt;');
    expect(html).toContain('<b>Started:</b> Sun 8 Mar 2026, 01:00 CST (UTC-06:00) – Sun 8 Mar 2026, 04:00 CDT (UTC-05:00)');
    expect(html).toContain(`Mail is down.<br><img src="${PNG}" alt="graph" class="alert-body-image">`);
    expect(html).toContain('<td bgcolor="#d32f2f">');
    expect(html).toContain('color="#ffffff"');
    expect(html).toMatch(new RegExp(`^<table role="presentation" width="${EXPORT_WIDTH}"`));
    expect(html).not.toMatch(/\sstyle=|<outage>|<script|<style/);
    // Every img is a data: URL.
    expect([...html.matchAll(/<img [^>]*src="([^"]*)"/g)].every(([, src]) => src.startsWith('data:image/'))).toBe(true);
  });
  test('carries the body\'s formatting: bold, lists, links, highlights as coloured bold text', () => {
    const body = '<b>Now</b> <i>and</i> <u>then</u><ul><li>one</li></ul><ol><li>two</li></ol><a href="https://status.example.com/">status</a> by <span data-hl="deadline">5pm</span>';
    const html = cardInlineHtml(cardContent(draft({ body, images: {} })));
    expect(html).toContain('<b>Now</b> <i>and</i> <u>then</u><ul><li>one</li></ul><ol><li>two</li></ol><a href="https://status.example.com/" rel="noopener noreferrer">status</a> by <font color="#9b1c1c"><b>5pm</b></font>');
    expect(html).not.toMatch(/\sstyle=|data-hl|class="(?!alert-body-image)/);
    expect(cardContent(draft({ body, images: {} })).body).toBe('Now and then\n• one\n1. two\nstatus by 5pm');
  });
  test('hostile text stays text', () => {
    const html = cardInlineHtml(cardContent(draft({ subject: '"><script>alert(1)</script>', body: '<img src=x onerror=alert(1)><a href="javascript:alert(1)">x</a>&lt;b&gt;', images: {}, sender: '<b>me</b>' })));
    expect(html).not.toMatch(/onerror|javascript:/);
    expect(html).toContain('x&lt;b&gt;');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<b>me');
  });
  test('a logo appears only as a data URL', () => {
    const c = cardContent(draft());
    expect(cardInlineHtml(c, { company: 'blob:http://x/1', footer: 'https://evil.example/l.png' })).not.toMatch(/blob:|evil/);
    const withLogo = cardInlineHtml(c, { company: PNG });
    expect(withLogo).toContain(`<img src="${PNG}" alt="Company logo" height="40">`);
  });
});

describe('outlookPayload and copyForOutlook', () => {
  const png = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' });
  test('image/png, text/html and text/plain', async () => {
    const p = outlookPayload(png, cardContent(draft()));
    expect(Object.keys(p).sort()).toEqual(['image/png', 'text/html', 'text/plain']);
    expect(p['image/png']).toBe(png);
    expect(p['text/html'].type).toBe('text/html');
    expect(await p['text/html'].text()).toContain('UPDATE #2 — ');
    expect(await p['text/plain'].text()).toMatch(/^\[ISSUE\] UPDATE #2 — Email <outage>\n/);
  });
  test('an untyped PNG blob is typed image/png', () => {
    expect(outlookPayload(new Blob([new Uint8Array([1])]), cardContent(draft()))['image/png'].type).toBe('image/png');
  });
  class FakeItem {
    constructor(readonly parts: Record<string, Blob>) {}
  }
  const Item = FakeItem as unknown as typeof ClipboardItem;
  const content = cardContent(draft());
  const logos = { company: PNG };

  /** A document whose copy command records the flavours its copy event was given. */
  function commandDoc(result = true) {
    const copied: Record<string, string>[] = [];
    const execCommand = vi.fn(() => {
      const data = new Map<string, string>();
      const event = new Event('copy', { bubbles: true, cancelable: true });
      Object.defineProperty(event, 'clipboardData', { value: { setData: (type: string, value: string) => void data.set(type, value) } });
      document.activeElement?.dispatchEvent(event);
      copied.push(Object.fromEntries(data));
      return result;
    });
    Object.defineProperty(document, 'execCommand', { value: execCommand, configurable: true });
    return { copied, execCommand, env: { doc: document } satisfies ClipboardEnv };
  }
  afterEach(() => {
    vi.unstubAllGlobals();
    delete (document as { execCommand?: unknown }).execCommand;
  });

  test('a secure page writes one item holding every flavour', async () => {
    const write = vi.fn(async (_items: ClipboardItem[]) => {});
    const renderPng = vi.fn(async () => png);
    expect(await copyForOutlook(content, logos, renderPng, { clipboard: { write }, Item, doc: document }, true)).toEqual({ picture: true });
    expect(renderPng).toHaveBeenCalledTimes(1);
    expect(write).toHaveBeenCalledTimes(1);
    const [[items]] = write.mock.calls as unknown as [[FakeItem[]]];
    expect(items).toHaveLength(1);
    expect(Object.keys(items[0].parts).sort()).toEqual(['image/png', 'text/html', 'text/plain']);
    expect(items[0].parts['image/png']).toBe(png);
    expect(await items[0].parts['text/html'].text()).toBe(cardInlineHtml(content, logos));
  });

  test('a refusal on a secure page says so clearly', async () => {
    const refuse = async () => { throw new DOMException('denied', 'NotAllowedError'); };
    await expect(copyForOutlook(content, logos, async () => png, { clipboard: { write: refuse }, Item, doc: document }, true)).rejects.toThrow(CLIPBOARD_REFUSED);
  });

  test('a non-secure (http://) page copies the HTML and text without the picture and says why', async () => {
    stubNonSecurePage();
    const { copied } = commandDoc();
    const renderPng = vi.fn(async () => png);
    const result = await copyForOutlook(content, logos, renderPng);
    expect(result).toEqual({ picture: false, notice: OUTLOOK_NO_PICTURE_HTTP, summary: expect.stringMatching(/http:\/\/ page.*Save PNG/) });
    expect(OUTLOOK_NO_PICTURE_HTTP).toMatch(/http:\/\/ on the LAN/);
    expect(OUTLOOK_NO_PICTURE_HTTP).toMatch(/Save PNG/);
    expect(renderPng).not.toHaveBeenCalled();
    expect(copied).toEqual([{ 'text/plain': cardPlainText(content), 'text/html': cardInlineHtml(content, logos) }]);
    expect(document.querySelector('textarea')).toBeNull();
  });

  test('a non-secure page whose copy command is refused too: nothing copied, Save PNG', async () => {
    stubNonSecurePage();
    commandDoc(false);
    await expect(copyForOutlook(content, logos, async () => png)).rejects.toThrow(OUTLOOK_NOT_COPIED_HTTP);
    delete (document as { execCommand?: unknown }).execCommand;
    await expect(copyForOutlook(content, logos, async () => png)).rejects.toThrow(OUTLOOK_NOT_COPIED_HTTP);
  });

  test('a secure page in a browser without ClipboardItem copies the HTML and text and says the browser cannot', async () => {
    const { copied, env } = commandDoc();
    expect(await copyForOutlook(content, logos, async () => png, { ...env, clipboard: { write: async () => {} } }, true)).toMatchObject({ picture: false, notice: OUTLOOK_NO_PICTURE_BROWSER });
    expect(copied).toHaveLength(1);
    commandDoc(false);
    await expect(copyForOutlook(content, logos, async () => png, env, true)).rejects.toThrow(CLIPBOARD_REFUSED);
  });
});
