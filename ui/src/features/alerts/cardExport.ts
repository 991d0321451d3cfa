// Exports of the alert card: the content shared by the preview and every export (heading with
// "UPDATE #N", event time lines, sanitized body), the plain text, an HTML copy with inline styles
// for Outlook, the clipboard payload (image/png + text/html + text/plain), the PNG file name, and
// the PNG itself: the card rendered at 640 px wide at 2x by html-to-image. Only sanitized content
// goes out: the body through bodyToHtml (text escaped, images only as checked data: URLs) and the
// logos only when they are such data URLs. Refuses nothing silently: a clipboard that will not
// take the payload rejects with CLIPBOARD_REFUSED.
import { toBlob } from 'html-to-image';
import { localDateKey } from '../../lib/dates';
import { bodyToHtml, severityColor, severityText, type AlertDraft } from './alerts';
import { escapeHtml, isSafeImageSrc } from './bodyImages';
import { alertHeading, eventLines, type EventLine } from './eventTimes';

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
  /** Plain-text body (image placeholders kept). */
  body: string;
  /** The body as sanitized HTML (bodyToHtml). */
  bodyHtml: string;
  sender: string;
  recipient: string;
}

export function cardContent(draft: AlertDraft): CardContent {
  return {
    severity: draft.severity,
    heading: alertHeading(draft.subject, draft.update),
    times: eventLines(draft),
    body: draft.body,
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

const FONT = "font-family:'Segoe UI',Arial,Helvetica,sans-serif;";
const logoTag = (src: string | null | undefined, alt: string, style: string) =>
  isSafeImageSrc(src) ? `<img src="${src}" alt="${alt}" style="${style}">` : '';

/**
 * The card as one table with inline styles only (what Outlook keeps when pasting). Text is
 * escaped, the body is bodyToHtml's sanitized markup with its images styled inline, and a logo
 * appears only as a checked data: URL.
 */
export function cardInlineHtml(c: CardContent, logos: CardLogos = {}): string {
  const bg = severityColor(c.severity);
  const fg = severityText(c.severity);
  const body = c.bodyHtml.replaceAll('class="alert-body-image">', 'class="alert-body-image" style="display:block;max-width:100%;height:auto;margin:4px 0;">');
  const times = c.times.length
    ? `<tr><td style="padding:12px 20px 0;font-size:14px;color:#1a1a1a;">${c.times.map((t) => `<strong>${t.label}:</strong> ${escapeHtml(t.text)}`).join('<br>')}</td></tr>`
    : '';
  return [
    `<table role="presentation" width="${EXPORT_WIDTH}" cellpadding="0" cellspacing="0" style="width:${EXPORT_WIDTH}px;border-collapse:collapse;background:#ffffff;color:#1a1a1a;${FONT}">`,
    `<tr><td style="background:${bg};color:${fg};padding:16px 20px;">`,
    logoTag(logos.company, 'Company logo', 'display:block;max-height:40px;max-width:160px;margin-bottom:8px;'),
    `<div style="font-size:11px;font-weight:700;letter-spacing:0.1em;">${escapeHtml(c.severity)}</div>`,
    `<div style="font-size:20px;font-weight:700;margin-top:4px;">${escapeHtml(c.heading || 'Subject')}</div>`,
    `</td></tr>`,
    times,
    `<tr><td style="padding:20px;font-size:14px;line-height:1.5;color:#1a1a1a;">${body}</td></tr>`,
    `<tr><td style="padding:10px 20px;border-top:1px solid #dddddd;color:#555555;font-size:12px;">From ${escapeHtml(c.sender)} · To ${escapeHtml(c.recipient)}`,
    logoTag(logos.footer, 'Footer logo', 'display:block;max-height:32px;max-width:160px;margin-top:8px;'),
    `</td></tr></table>`,
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
