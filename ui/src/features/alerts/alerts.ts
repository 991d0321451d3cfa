// Alert composer shared bits: severities (colours from lib/palette.ts), the draft and history
// record shapes, the rich body ⇄ stored HTML conversion (./richBody, images as in ./bodyImages), and
// a tiny hand-off so the due popup can load an alarm's snapshot into the composer. The draft also
// holds the "UPDATE #N" counter and the event times (./eventTimes); a send stores the times and
// its thread (./alertThreads), and the server numbers the send within its thread. A new draft's
// times are entered in the device's card zone (./cardZone) until another is chosen.
import { fieldError, LIMITS } from '../../lib/limits';
import { SEVERITY_COLORS } from '../../lib/palette';
import type { BaseRecord } from '../../transport/types';
import { readCardZone } from './cardZone';
import type { BodyImages } from './bodyImages';
import { bodyHasImages, richLength, richToStored, richToText, storedToRich } from './richBody';

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
  /** Rich text in ./richBody's canonical form; a line `[image N]` shows images[N]. */
  body: string;
  images: BodyImages;
  sender: string;
  recipient: string;
  /** 0: not an update; N ≥ 1: the heading reads `UPDATE #N — subject`. */
  update: number;
  /** Event start and end as datetime-local values in `timeZone`; blank when not set. */
  start: string;
  end: string;
  timeZone: string;
  /** The alert thread a send continues (./alertThreads); '' starts a new thread. */
  threadId: string;
}

export const emptyDraft: AlertDraft = {
  severity: DEFAULT_SEVERITY, subject: '', body: '', images: {}, sender: '', recipient: '', update: 0, start: '', end: '', timeZone: readCardZone(), threadId: '',
};

/** A fresh draft, its entry zone the device's card zone as it is now (Settings may have changed it). */
export function newDraft(): AlertDraft {
  return { ...emptyDraft, timeZone: readCardZone() };
}

export interface AlertHistory extends BaseRecord {
  severity?: Severity;
  subject?: string;
  bodyHtml?: string;
  sender?: string;
  recipient?: string;
  pinned?: boolean;
  label?: string;
  /** The thread's first send's id; empty on rows from before threads (./alertThreads). */
  threadId?: string;
  /** Server-assigned: 0 for a thread's first send, then 1, 2, … */
  updateNumber?: number;
  /** Event times as instants ('' when unset) and the zone they were entered in. */
  eventStart?: string;
  eventEnd?: string;
  timeZone?: string;
}

/**
 * The draft's rich body (./richBody.ts canonical form, `[image N]` lines for images) as the stored
 * HTML: sanitized to the allowlist, a known placeholder line as the sanitized
 * `<img … class="alert-body-image">` (any other placeholder stays literal text). A plain-text
 * body older versions stored reads back unchanged: escaped text and <br>.
 */
export function bodyToHtml(body: string, images: BodyImages = {}): string {
  return richToStored(body, images);
}

/**
 * Inverse of bodyToHtml for loading history, templates and alarm snapshots: sanitized to the
 * allowlist, each image whose tag passes the sanitizer a placeholder line with its image beside
 * the text (numbered after any placeholder written literally in the text).
 */
export function htmlToBody(html: string | undefined): { body: string; images: BodyImages } {
  return storedToRich(html);
}

/** The body's plain text (lists as "• item", images as their placeholder lines). */
export const bodyText = (body: string) => richToText(body);

/**
 * Why a body is refused before saving: its text over INPUT_MAX, or its stored HTML over the
 * server's limit for bodyHtml and alertBodyHtml (lib/limits.ts); else null.
 */
export function bodyHtmlError(html: string, body: string, images: BodyImages): string | null {
  const length = richLength(body);
  if (length > INPUT_MAX) return `Alert body must be at most ${INPUT_MAX.toLocaleString('en-US')} characters (now ${length.toLocaleString('en-US')}).`;
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
