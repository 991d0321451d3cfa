// The alert composer's per-window draft (lib/windowDrafts): which stored value is an AlertDraft.
// The draft is stored and restored whole: every field of `emptyDraft` is taken from the stored
// value when it has the same shape (so fields added to AlertDraft later are kept without changes
// here), then the few fields with rules are checked: a known severity (else the default), the
// UPDATE counter clamped like the form does, and only images with a safe data-URL source. An
// empty draft (only the time zone differs) is not kept. AlertsView saves on every change and
// clears it once the alert has been sent (copied or exported, and saved to History).
// Also what counts as "sent": a draft's send key (every field a send puts out) is remembered by
// AlertsView per draft session, so one alert sent three ways (Save PNG, Copy for Outlook, Copy
// alert) is one history row, and a draft with changes not yet sent is never replaced without
// asking (the due popup's Load Alert asks hasUnsentAlertDraft: AlertsView's answer while it is
// mounted, else the stored draft, which exists only until sent).
import { isRecord, loadDraft, overTemplate } from '../../lib/windowDrafts';
import { DEFAULT_SEVERITY, emptyDraft, SEVERITIES, type AlertDraft } from './alerts';
import { isSafeImageSrc, type BodyImage } from './bodyImages';
import { clampUpdate } from './eventTimes';

/** Name of the alert draft in the window's storage. */
export const ALERT_DRAFT = 'alert';
/** Most images a restored draft keeps. */
export const DRAFT_IMAGES_MAX = 50;

function safeImages(v: unknown): Record<number, BodyImage> {
  const out: Record<number, BodyImage> = {};
  if (!isRecord(v)) return out;
  for (const [k, img] of Object.entries(v).slice(0, DRAFT_IMAGES_MAX)) {
    const n = Number(k);
    if (Number.isInteger(n) && n > 0 && isRecord(img) && isSafeImageSrc(img.src) && typeof img.alt === 'string') out[n] = { src: img.src, alt: img.alt };
  }
  return out;
}

/** A stored value as an AlertDraft, or null when it is not a draft at all. */
export function restoreAlertDraft(data: unknown): AlertDraft | null {
  const d = overTemplate(emptyDraft, data);
  if (!d) return null;
  return {
    ...d,
    severity: SEVERITIES.some((s) => s.id === d.severity) ? d.severity : DEFAULT_SEVERITY,
    update: d.update > 0 ? clampUpdate(d.update) : 0,
    images: safeImages(d.images),
  };
}

/** Nothing typed yet: every field as in emptyDraft (the time zone may differ). */
export function isEmptyAlertDraft(d: AlertDraft): boolean {
  return (Object.keys(emptyDraft) as (keyof AlertDraft)[]).every((k) => k === 'timeZone' || JSON.stringify(d[k]) === JSON.stringify(emptyDraft[k]));
}

/** Every field a send puts out (the canonical body with its images): equal keys are the same alert. */
export function draftSendKey(d: AlertDraft): string {
  return JSON.stringify([d.severity, d.subject, d.body, d.images, d.sender, d.recipient, d.update, d.start, d.end, d.timeZone, d.threadId]);
}

/** Typed work not sent as it stands: not empty, and not what the last send of this session put out. */
export function isUnsentDraft(d: AlertDraft, lastSentKey: string | null): boolean {
  return !isEmptyAlertDraft(d) && draftSendKey(d) !== lastSentKey;
}

let unsentProbe: (() => boolean) | null = null;

/** AlertsView, while mounted, answers whether its draft has unsent changes; returns the unregister. */
export function provideUnsentProbe(probe: () => boolean): () => void {
  unsentProbe = probe;
  return () => {
    if (unsentProbe === probe) unsentProbe = null;
  };
}

/** Whether loading another alert into the composer would overwrite work not yet sent. */
export function hasUnsentAlertDraft(): boolean {
  if (unsentProbe) return unsentProbe();
  const stored = loadDraft(ALERT_DRAFT, restoreAlertDraft);
  return stored !== null && !isEmptyAlertDraft(stored);
}
