// Exports of the alert card: the content shared by the preview and every export (heading with
// "UPDATE #N", event time lines, sanitized rich body), the plain text, an HTML copy for Outlook styled
// by presentational attributes (no style attributes: see cardInlineHtml), the clipboard payload (image/png + text/html + text/plain), the PNG file name, and
// the PNG itself: the card rendered at 640 px wide at 2x by html-to-image. Only sanitized content
// goes out: the body through bodyToHtml (text escaped, images only as checked data: URLs) and the
// logos only when they are such data URLs. Refuses nothing silently: a clipboard that will not
// take the payload rejects with CLIPBOARD_REFUSED.
import { toBlob } from 'html-to-image';
import { localDateKey } from '../../lib/dates';
import { bodyText, bodyToHtml, severityColor, severityText, type AlertDraft } from './alerts';
import { escapeHtml, isSafeImageSrc } from './bodyImages';
import { alertHeading, eventLines, type EventLine } from './eventTimes';
import { mailBodyHtml } from './richBody';

/** The card's width in every export, in CSS pixels. */
export const EXPORT_WIDTH = 640;
/** Device pixel ratio of the PNG (so the file is 1280 px wide). */
export const EXPORT_PIXEL_RATIO = 2;
export const DEFAULT_SENDER = 'IT';
export const DEFAULT_RECIPIENT = 'All Employees';
export const CLIPBOARD_REFUSED = 'The clipboard refused the card (this browser or its permissions do not allow copying an image). Use Save PNG instead.';

/** `alert-YYYY-MM-DD.png`, the local date of `at`. */
export function pngFileName(at: Date): string {
  return `alert-${localDateKey(at)}.png`;
}

export interface CardContent {
  severity: string;
  /** Subject with the `UPDATE #N — ` prefix when the draft is an update. */
  heading: string;
  times: EventLine[];
  /** Plain-text body (lists as "• item", image placeholders kept). */
  body: string;
  /** The body as sanitized stored HTML (bodyToHtml). */
  bodyHtml: string;
  sender: string;
  recipient: string;
}

export function cardContent(draft: AlertDraft): CardContent {
  return {
    severity: draft.severity,
    heading: alertHeading(draft.subject, draft.update),
    times: eventLines(draft),
    body: bodyText(draft.body),
    bodyHtml: bodyToHtml(draft.body, draft.images),
    sender: draft.sender.trim() || DEFAULT_SENDER,
    recipient: draft.recipient.trim() || DEFAULT_RECIPIENT,
  };
}

/** `[SEVERITY] heading`, the time lines, a blank line, then the body. */
export function cardPlainText(c: CardContent): string {
  const head = [`[${c.severity}] ${c.heading}`, ...c.times.map((t) => `${t.label}: ${t.text}`)].join('\n');
  return `${head}\n\n${c.body}`;
}

export interface CardLogos {
  company?: string | null;
  footer?: string | null;
}

const FACE = 'Segoe UI, Arial, Helvetica, sans-serif';
const logoTag = (src: string | null | undefined, alt: string, height: number) =>
  isSafeImageSrc(src) ? `<img src="${src}" alt="${alt}" height="${height}"><br>` : '';
/** One padded band of the card: a full-width table whose single cell has `pad` px padding. */
const band = (pad: number, inner: string, bg = '#ffffff') =>
  `<tr><td bgcolor="${bg}"><table role="presentation" width="100%" cellpadding="${pad}" cellspacing="0" border="0"><tr><td>${inner}</td></tr></table></td></tr>`;

/**
 * The card as nested tables styled by presentational attributes only (bgcolor, cellpadding,
 * <font>, <b>): what Outlook keeps when pasting. No `style` attribute: Chromium parses text/html
 * on clipboard.write in the page's context, where Relay's CSP (style-src 'self') reports every
 * inline style attribute as an error. Text is escaped, the body is bodyToHtml's sanitized markup
 * with highlights as coloured bold text (richBody's mailBodyHtml; its images are at most 516 px
 * wide, inside the 600 px text column), and a logo appears only as a checked data: URL.
 */
export function cardInlineHtml(c: CardContent, logos: CardLogos = {}): string {
  const bg = severityColor(c.severity);
  const fg = severityText(c.severity);
  const times = c.times.map((t) => `<b>${t.label}:</b> ${escapeHtml(t.text)}`).join('<br>');
  return [
    `<table role="presentation" width="${EXPORT_WIDTH}" cellpadding="0" cellspacing="0" border="0" bgcolor="#ffffff">`,
    band(20, `${logoTag(logos.company, 'Company logo', 40)}<font face="${FACE}" color="${fg}" size="1"><b>${escapeHtml(c.severity)}</b></font><br><font face="${FACE}" color="${fg}" size="5"><b>${escapeHtml(c.heading || 'Subject')}</b></font>`, bg),
    times ? band(20, `<font face="${FACE}" color="#1a1a1a" size="2">${times}</font>`) : '',
    band(20, `<font face="${FACE}" color="#1a1a1a" size="3">${mailBodyHtml(c.bodyHtml)}</font>`),
    `<tr><td bgcolor="#dddddd" height="1"></td></tr>`,
    band(12, `<font face="${FACE}" color="#555555" size="2">From ${escapeHtml(c.sender)} · To ${escapeHtml(c.recipient)}</font>${logos.footer && isSafeImageSrc(logos.footer) ? `<br>${logoTag(logos.footer, 'Footer logo', 32)}` : ''}`),
    `</table>`,
  ].join('');
}

/** The three flavours Copy for Outlook puts on the clipboard, as one ClipboardItem's parts. */
export function outlookPayload(png: Blob, c: CardContent, logos: CardLogos = {}): Record<'image/png' | 'text/html' | 'text/plain', Blob> {
  return {
    'image/png': png.type === 'image/png' ? png : new Blob([png], { type: 'image/png' }),
    'text/html': new Blob([cardInlineHtml(c, logos)], { type: 'text/html' }),
    'text/plain': new Blob([cardPlainText(c)], { type: 'text/plain' }),
  };
}

export interface RichClipboard {
  write(items: ClipboardItem[]): Promise<void>;
}

/** Writes the payload as one clipboard item; rejects with CLIPBOARD_REFUSED when it is refused. */
export async function writeOutlookPayload(
  payload: Record<string, Blob>,
  clipboard: RichClipboard | undefined = typeof navigator === 'undefined' ? undefined : navigator.clipboard,
  Item: typeof ClipboardItem | undefined = typeof ClipboardItem === 'undefined' ? undefined : ClipboardItem,
): Promise<void> {
  if (!clipboard?.write || !Item) throw new Error(CLIPBOARD_REFUSED);
  try {
    await clipboard.write([new Item(payload)]);
  } catch {
    throw new Error(CLIPBOARD_REFUSED);
  }
}

/** An image URL (a logo's blob: URL) redrawn as a PNG data URL, or null; no fetch (CSP connect-src). */
export function imageDataUrl(url: string | null): Promise<string | null> {
  if (!url) return Promise.resolve(null);
  if (isSafeImageSrc(url)) return Promise.resolve(url);
  return new Promise((resolve) => {
    const img = new Image();
    img.onload = () => {
      try {
        const canvas = document.createElement('canvas');
        canvas.width = img.naturalWidth;
        canvas.height = img.naturalHeight;
        canvas.getContext('2d')?.drawImage(img, 0, 0);
        const data = canvas.toDataURL('image/png');
        resolve(isSafeImageSrc(data) ? data : null);
      } catch {
        resolve(null);
      }
    };
    img.onerror = () => resolve(null);
    img.src = url;
  });
}

/**
 * The card element rendered to a PNG, EXPORT_WIDTH wide at EXPORT_PIXEL_RATIO: a copy is laid
 * out off screen at that width (test ids and ids dropped, logos as data URLs so nothing is
 * fetched), drawn, and removed.
 */
export async function renderCardPng(card: HTMLElement): Promise<Blob> {
  const host = document.createElement('div');
  host.setAttribute('aria-hidden', 'true');
  host.className = 'alert-export-host';
  const copy = card.cloneNode(true) as HTMLElement;
  for (const el of [copy, ...copy.querySelectorAll<HTMLElement>('[data-testid], [id]')]) {
    el.removeAttribute('data-testid');
    el.removeAttribute('id');
  }
  copy.removeAttribute('aria-label');
  await Promise.all(
    [...copy.querySelectorAll('img')].map(async (img) => {
      const data = await imageDataUrl(img.getAttribute('src'));
      if (data) img.setAttribute('src', data);
      else img.remove();
    }),
  );
  host.appendChild(copy);
  document.body.appendChild(host);
  try {
    const height = Math.ceil(copy.getBoundingClientRect().height);
    const blob = await toBlob(copy, { width: EXPORT_WIDTH, height, pixelRatio: EXPORT_PIXEL_RATIO, skipFonts: true, backgroundColor: '#ffffff', cacheBust: false });
    if (!blob) throw new Error('The card could not be drawn.');
    return blob;
  } finally {
    host.remove();
  }
}
