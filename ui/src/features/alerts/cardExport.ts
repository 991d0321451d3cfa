// Exports of the alert card: the content shared by the preview and every export (heading with
// "UPDATE #N", the event time line in the device's card zone, sanitized rich body), the plain text, an HTML copy for Outlook styled
// by presentational attributes (no style attributes: see cardInlineHtml), the clipboard payload (image/png + text/html + text/plain), the PNG file name, and
// the PNG itself: the card rendered at 640 px wide at 2x by html-to-image. Only sanitized content
// goes out: the body through bodyToHtml (text escaped, images only as checked data: URLs) and the
// logos only when they are such data URLs. Refuses nothing silently: a clipboard that will not
// take the payload rejects with CLIPBOARD_REFUSED. A page without the async clipboard — Relay Web
// or a LAN browser on http://, not a secure context — cannot copy the picture at all: there Copy
// for Outlook copies the HTML and text flavours through the copy command and says why the picture
// is missing and that Save PNG still works (copyForOutlook).
import { toBlob } from 'html-to-image';
import { copyByCommand, itemWriter, pageClipboard, type ClipboardEnv } from '../../lib/clipboard';
import { localDateKey } from '../../lib/dates';
import { isSecurePage } from '../../lib/secureContext';
import { bodyText, bodyToHtml, severityColor, severityText, type AlertDraft } from './alerts';
import { escapeHtml, isSafeImageSrc } from './bodyImages';
import { DEFAULT_CARD_ZONE } from './cardZone';
import { alertHeading, eventLines, type EventLine } from './eventTimes';
import { mailBodyHtml } from './richBody';

/** The card's width in every export, in CSS pixels. */
export const EXPORT_WIDTH = 640;
/** Device pixel ratio of the PNG (so the file is 1280 px wide). */
export const EXPORT_PIXEL_RATIO = 2;
export const DEFAULT_SENDER = 'IT';
export const DEFAULT_RECIPIENT = 'All Employees';
export const CLIPBOARD_REFUSED = 'The clipboard refused the card (this browser or its permissions do not allow copying an image). Use Save PNG instead.';
/** Copy for Outlook on a page that is not a secure context: what was copied, why not the picture. */
export const OUTLOOK_NO_PICTURE_HTTP =
  'The picture of the card was not copied: Relay is open over http:// on the LAN, which is not a secure (https) page, and browsers copy pictures only on secure pages. The card was copied as formatted text for Outlook instead. Use Save PNG for the picture.';
/** Copy for Outlook in a secure page whose browser has no ClipboardItem (no picture copies). */
export const OUTLOOK_NO_PICTURE_BROWSER =
  'This browser cannot copy a picture of the card. The card was copied as formatted text for Outlook instead. Use Save PNG for the picture.';
/** Copy for Outlook on a page that is not a secure context, when the copy command was refused too. */
export const OUTLOOK_NOT_COPIED_HTTP =
  'Nothing was copied: Relay is open over http:// on the LAN, which is not a secure (https) page, so the picture cannot be copied, and the browser refused the formatted copy too. Use Save PNG instead.';

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

/** The card for `draft`, its times shown in `zone` (the device's card zone, ./cardZone). */
export function cardContent(draft: AlertDraft, zone: string = DEFAULT_CARD_ZONE): CardContent {
  return {
    severity: draft.severity,
    heading: alertHeading(draft.subject, draft.update),
    times: eventLines(draft, draft.severity, zone),
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

/** The three flavours Copy for Outlook puts on the clipboard, as one clipboard item's parts. */
export function outlookPayload(png: Blob, c: CardContent, logos: CardLogos = {}): Record<'image/png' | 'text/html' | 'text/plain', Blob> {
  return {
    'image/png': png.type === 'image/png' ? png : new Blob([png], { type: 'image/png' }),
    'text/html': new Blob([cardInlineHtml(c, logos)], { type: 'text/html' }),
    'text/plain': new Blob([cardPlainText(c)], { type: 'text/plain' }),
  };
}

/** What Copy for Outlook put on the clipboard: the whole payload, or the HTML and text only with
 * the operator-facing reason the picture is missing (`notice`) and a one-line `summary` for the toast. */
export type OutlookCopy = { picture: true } | { picture: false; notice: string; summary: string };

/**
 * Copy for Outlook. With the async clipboard (a secure page): the card rendered by `renderPng`
 * and the HTML and text as one item (outlookPayload); a refusal rejects with CLIPBOARD_REFUSED.
 * Without it (Relay Web on http://, or a browser without ClipboardItem): the HTML and text
 * through the copy command — no picture, nothing rendered — and a notice saying why and that
 * Save PNG works; when that is refused too, a rejection saying so.
 */
export async function copyForOutlook(
  content: CardContent,
  logos: CardLogos,
  renderPng: () => Promise<Blob>,
  env: ClipboardEnv = pageClipboard(),
  secure: boolean = isSecurePage(),
): Promise<OutlookCopy> {
  const write = itemWriter(env);
  if (write) {
    const png = await renderPng();
    try {
      await write(outlookPayload(png, content, logos));
    } catch {
      throw new Error(CLIPBOARD_REFUSED);
    }
    return { picture: true };
  }
  if (!copyByCommand(cardPlainText(content), cardInlineHtml(content, logos), env.doc)) {
    throw new Error(secure ? CLIPBOARD_REFUSED : OUTLOOK_NOT_COPIED_HTTP);
  }
  return secure
    ? { picture: false, notice: OUTLOOK_NO_PICTURE_BROWSER, summary: 'Alert card copied for Outlook as formatted text only (this browser cannot copy the picture: use Save PNG)' }
    : { picture: false, notice: OUTLOOK_NO_PICTURE_HTTP, summary: 'Alert card copied for Outlook as formatted text only (no picture on this http:// page: use Save PNG)' };
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
