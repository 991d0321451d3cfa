// Desktop client mode, pure view logic for the offline queue: the status bar's words (changes
// waiting, changes needing review, replay progress, a stopped replay), the review list's
// collection and action names, the side-by-side rows of a reviewed change (this PC's copy
// beside the server's, or why there is no server copy) and the optional edits before a retry
// (only existing scalar fields, kept to their type; never the record's bookkeeping fields).
import type { OfflineAction, OfflineStatus, PendingChange, ReplayReport, ServerCopy } from '../../transport/types';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "3 changes waiting to sync · 1 needs review", or null when nothing is queued. */
export function pendingText(s: Pick<OfflineStatus, 'pendingCount' | 'issueCount'>): string | null {
  const parts: string[] = [];
  if (s.pendingCount > 0) parts.push(`${plural(s.pendingCount, 'change', 'changes')} waiting to sync`);
  if (s.issueCount > 0) parts.push(`${s.issueCount} ${s.issueCount === 1 ? 'needs' : 'need'} review`);
  return parts.length > 0 ? parts.join(' · ') : null;
}

/** "Syncing offline changes: 2 of 5". */
export function progressText([done, total]: [number, number]): string {
  return `Syncing offline changes: ${done} of ${total}`;
}

/** Why the last replay stopped before the end, in a sentence; null when it ran through. */
export function stoppedText(last: ReplayReport | null): string | null {
  return last?.stopped ? `Sync stopped: ${last.stopped}` : null;
}

const COLLECTION_LABELS: Record<string, string> = {
  contacts: 'Contacts',
  servers: 'Servers',
  oncall: 'On-call board',
  bridge_groups: 'Bridge groups',
  bridge_history: 'Bridge history',
  alert_history: 'Alert history',
  alert_reminders: 'Alarms',
  notes: 'Record notes',
  standalone_notes: 'Notes',
  oncall_dismissals: 'On-call dismissals',
  oncall_board_settings: 'On-call board settings',
};

export function collectionLabel(name: string): string {
  return COLLECTION_LABELS[name] ?? name;
}

export const ACTION_LABELS: Record<OfflineAction, string> = { create: 'New', update: 'Edit', delete: 'Delete' };

/** A queued change's name: its label, else its collection and record id. */
export function changeName(c: Pick<PendingChange, 'label' | 'collection' | 'recordId'>): string {
  return c.label || `${collectionLabel(c.collection)} ${c.recordId}`;
}

/** Bookkeeping fields: never compared as content, never edited. */
export const META_FIELDS: ReadonlySet<string> = new Set(['id', 'created', 'updated', 'revision', 'collectionId', 'collectionName', 'expand']);

type Scalar = string | number | boolean;
const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean';

/** A field value for the side-by-side table. */
export function formatValue(v: unknown): string {
  if (v === undefined || v === null) return '—';
  if (v === '') return '(empty)';
  if (isScalar(v)) return String(v);
  return JSON.stringify(v);
}

export interface CompareRow {
  field: string;
  local: string;
  server: string;
  differs: boolean;
}

/** This PC's copy beside the server's, field by field (bookkeeping fields left out); [] when neither has fields. */
export function compareRows(local: Record<string, unknown> | null, server: ServerCopy): CompareRow[] {
  const theirs = server.state === 'present' ? server.record : null;
  const fields = [...new Set([...Object.keys(local ?? {}), ...Object.keys(theirs ?? {})])].filter((f) => !META_FIELDS.has(f)).sort();
  return fields.map((field) => {
    const l = local ? formatValue(local[field]) : '—';
    const s = theirs ? formatValue(theirs[field]) : '—';
    return { field, local: l, server: s, differs: theirs !== null && l !== s };
  });
}

/** What the review says when there is no server copy to show. */
export function serverCopyText(server: ServerCopy): string | null {
  if (server.state === 'deleted') return 'The server no longer has this record: it was deleted there.';
  if (server.state === 'unavailable') return 'The server copy could not be read right now (the server may be unreachable). Try again once Relay is connected.';
  return null;
}

export interface EditableField {
  field: string;
  value: Scalar;
}

/** The fields a retry may change: this PC's copy's existing scalar fields, bookkeeping left out. */
export function editableFields(local: Record<string, unknown> | null): EditableField[] {
  if (!local) return [];
  return Object.entries(local)
    .filter((e): e is [string, Scalar] => !META_FIELDS.has(e[0]) && isScalar(e[1]))
    .map(([field, value]) => ({ field, value }))
    .sort((a, b) => a.field.localeCompare(b.field));
}

/** A draft as typed (text) or ticked (boolean). */
export type Draft = string | boolean;

export function draftOf(value: Scalar): Draft {
  return typeof value === 'boolean' ? value : String(value);
}

/**
 * The edits to send with a retry: the drafts that differ from this PC's copy, each kept to its
 * field's type. `invalid` names the fields whose draft does not fit (a number that is not one).
 */
export function retryEdits(fields: readonly EditableField[], drafts: Readonly<Record<string, Draft>>): { edits: Record<string, Scalar>; invalid: string[] } {
  const edits: Record<string, Scalar> = {};
  const invalid: string[] = [];
  for (const { field, value } of fields) {
    const draft = drafts[field];
    if (draft === undefined) continue;
    let next: Scalar;
    if (typeof value === 'boolean') next = draft === true;
    else if (typeof value === 'number') {
      const n = typeof draft === 'string' && draft.trim() !== '' ? Number(draft) : NaN;
      if (!Number.isFinite(n)) {
        invalid.push(field);
        continue;
      }
      next = n;
    } else next = String(draft);
    if (next !== value) edits[field] = next;
  }
  return { edits, invalid };
}
