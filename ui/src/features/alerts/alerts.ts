// Alert composer shared bits: severities (colours from lib/palette.ts), the draft and history
// record shapes, the plain-text body ⇄ stored HTML conversion (images through ./bodyImages), and
// a tiny hand-off so the due popup can load an alarm's snapshot into the composer. The draft also
// holds the "UPDATE #N" counter and the event times (./eventTimes), which are never stored: the
// alert collections have no fields for them.
import { fieldError, LIMITS } from '../../lib/limits';
import { SEVERITY_COLORS } from '../../lib/palette';
import type { BaseRecord } from '../../transport/types';
import { browserTimeZone } from './eventTimes';
import { bodyHasImages, imageTag, imageToken, lineImage, parseImgTag, tokenNumbers, decodeEntities, type BodyImage, type BodyImages } from './bodyImages';

export const SEVERITIES = [
  { id: 'ISSUE', ...SEVERITY_COLORS.ISSUE, label: 'Issue' },
  { id: 'MAINTENANCE', ...SEVERITY_COLORS.MAINTENANCE, label: 'Maintenance' },
  { id: 'INFO', ...SEVERITY_COLORS.INFO, label: 'Info' },
  { id: 'RESOLVED', ...SEVERITY_COLORS.RESOLVED, label: 'Resolved' },
] as const;
export type Severity = (typeof SEVERITIES)[number]['id'];
export const DEFAULT_SEVERITY: Severity = 'INFO';
export const SUBJECT_WARN = 80;
export const INPUT_MAX = 10_000;

export const severityColor = (s: string | undefined) => SEVERITIES.find((x) => x.id === s)?.color ?? SEVERITY_COLORS.INFO.color;
/** The text colour drawn on severityColor(s). */
export const severityText = (s: string | undefined) => SEVERITIES.find((x) => x.id === s)?.text ?? SEVERITY_COLORS.INFO.text;

export interface AlertDraft {
  severity: Severity;
  subject: string;
  /** Plain text; a line `[image N]` shows images[N]. */
  body: string;
  images: BodyImages;
  sender: string;
  recipient: string;
  /** 0: not an update; N ≥ 1: the heading reads `UPDATE #N — subject`. Draft only. */
  update: number;
  /** Event start and end as datetime-local values in `timeZone`; blank when not set. Draft only. */
  start: string;
  end: string;
  timeZone: string;
}

export const emptyDraft: AlertDraft = {
  severity: DEFAULT_SEVERITY, subject: '', body: '', images: {}, sender: '', recipient: '', update: 0, start: '', end: '', timeZone: browserTimeZone(),
};

export interface AlertHistory extends BaseRecord {
  severity?: Severity;
  subject?: string;
  bodyHtml?: string;
  sender?: string;
  recipient?: string;
  pinned?: boolean;
  label?: string;
}

/**
 * Plain-text body stored as minimal safe HTML: text escaped, line breaks as <br>, and a line
 * `[image N]` whose image is known as the sanitized `<img … class="alert-body-image">`
 * (any other placeholder stays literal text).
 */
export function bodyToHtml(body: string, images: BodyImages = {}): string {
  return body
    .split('\n')
    .map((line) => {
      const hit = lineImage(line, images);
      return (hit && imageTag(hit.image)) ?? line.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    })
    .join('<br>');
}

// A tag (quoted attribute values may hold '<' and '>'; a bare '<' ends the attempt, which keeps
// the scan linear), a run of text, or a lone '<'.
const HTML_PIECE = /<(?:[^<>"']|"[^"]*"|'[^']*')*>|[^<]+|</g;

/**
 * Inverse of bodyToHtml for loading history, templates and alarm snapshots: each image whose tag
 * passes the sanitizer becomes a placeholder line with its image beside the text (numbered
 * after any placeholder written literally in the text); any other markup is stripped to text.
 */
export function htmlToBody(html: string | undefined): { body: string; images: BodyImages } {
  const pieces: (string | BodyImage)[] = [];
  for (const [piece] of (html ?? '').matchAll(HTML_PIECE)) {
    if (piece.length > 1 && piece.startsWith('<')) {
      if (/^<br[\s/>]/i.test(piece)) pieces.push('\n');
      else if (/^<\/(p|li)[\s>]/i.test(piece)) pieces.push('\n');
      else if (/^<img[\s/>]/i.test(piece)) {
        const img = parseImgTag(piece);
        if (img) pieces.push(img);
      }
    } else pieces.push(decodeEntities(piece));
  }
  const literal = tokenNumbers(pieces.map((p) => (typeof p === 'string' ? p : '\n')).join(''));
  const images: Record<number, BodyImage> = {};
  let n = 0;
  let body = '';
  let afterImage = false;
  for (const p of pieces) {
    if (typeof p === 'string') {
      if (afterImage && p && !p.startsWith('\n')) body += '\n';
      body += p;
      afterImage = afterImage && !p;
      continue;
    }
    do n++; while (literal.has(n));
    images[n] = p;
    if (body && !body.endsWith('\n')) body += '\n';
    body += imageToken(n);
    afterImage = true;
  }
  return { body: body.replace(/\n+$/, ''), images };
}

/**
 * Why the stored HTML of a body is refused before saving (the server's limit for bodyHtml and
 * alertBodyHtml, lib/limits.ts), or null.
 */
export function bodyHtmlError(html: string, body: string, images: BodyImages): string | null {
  const err = fieldError(LIMITS.alert_history.bodyHtml, html);
  return err && bodyHasImages(body, images) ? `${err} Images count toward it: use fewer or smaller images.` : err;
}

let pendingLoad: AlertDraft | null = null;
const loaders = new Set<(d: AlertDraft) => void>();

export function requestAlertLoad(d: AlertDraft): void {
  if (loaders.size === 0) pendingLoad = d;
  for (const l of loaders) l(d);
}

export function onAlertLoad(l: (d: AlertDraft) => void): () => void {
  loaders.add(l);
  if (pendingLoad) {
    l(pendingLoad);
    pendingLoad = null;
  }
  return () => loaders.delete(l);
}
