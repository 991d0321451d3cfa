// Alert composer shared bits: severities (colours from lib/palette.ts), history record shape, and a tiny
// hand-off so the due popup can load an alarm's snapshot into the composer.
import { SEVERITY_COLORS } from '../../lib/palette';
import type { BaseRecord } from '../../transport/types';

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
  body: string;
  sender: string;
  recipient: string;
}

export const emptyDraft: AlertDraft = { severity: DEFAULT_SEVERITY, subject: '', body: '', sender: '', recipient: '' };

export interface AlertHistory extends BaseRecord {
  severity?: Severity;
  subject?: string;
  bodyHtml?: string;
  sender?: string;
  recipient?: string;
  pinned?: boolean;
  label?: string;
}

/** Plain-text body stored as minimal safe HTML (escaped, line breaks as <br>). */
export function bodyToHtml(body: string): string {
  return body.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\n/g, '<br>');
}

/** Inverse of bodyToHtml for loading history; strips any other markup to text. */
export function htmlToBody(html: string | undefined): string {
  return (html ?? '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|li)>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\n+$/, '');
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
