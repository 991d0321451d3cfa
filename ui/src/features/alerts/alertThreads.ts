// Alert threads (issue #38 item 7b): an alert and its updates are one thread of alert_history
// rows, one row per send. The server owns the thread fields (domain/src/alert_threads.rs):
// `threadId` is the first send's id (a send naming an existing thread continues it, an empty one
// starts a thread) and `updateNumber` is 0 for the first send and one more than the thread's
// highest for each later one, assigned when the row is created. Rows from before threads have no
// threadId: each is a thread of one send. This module groups rows into threads for History, makes
// the draft that continues a thread (the last send's content, UPDATE #N+1 from the server's
// numbers, its event times back in the zone they were entered in) and the thread fields a send
// stores. Pure: no clock, no DOM.
import { parseDate, toApiDate } from '../../lib/dates';
import { htmlToBody, SEVERITIES, type AlertDraft, type AlertHistory } from './alerts';
import { UPDATE_MAX, isTimeZone, zonedInstant } from './eventTimes';

export interface AlertThread {
  /** The thread's id: its first send's id. */
  id: string;
  /** The sends, first to last (by update number, then creation). */
  sends: AlertHistory[];
  /** The newest send: its subject, severity and time stand for the thread. */
  last: AlertHistory;
}

/** The thread a row belongs to: its threadId, or its own id for a row from before threads. */
export const threadOf = (h: AlertHistory): string => h.threadId || h.id;

/** The send's update number (0 for the first send and for rows from before threads). */
export const updateNumberOf = (h: AlertHistory): number => (Number.isFinite(h.updateNumber) ? Math.max(0, Math.floor(h.updateNumber!)) : 0);

/** What a send is called in its thread: "Original" or "UPDATE #N". */
export const sendLabel = (h: AlertHistory): string => (updateNumberOf(h) === 0 ? 'Original' : `UPDATE #${updateNumberOf(h)}`);

const bySendOrder = (a: AlertHistory, b: AlertHistory) => updateNumberOf(a) - updateNumberOf(b) || (a.created ?? '').localeCompare(b.created ?? '');

/** Rows grouped into threads, the thread with the most recent send first. */
export function groupThreads(rows: readonly AlertHistory[]): AlertThread[] {
  const threads = new Map<string, AlertHistory[]>();
  for (const row of rows) {
    const key = threadOf(row);
    const sends = threads.get(key);
    if (sends) sends.push(row);
    else threads.set(key, [row]);
  }
  const grouped = [...threads].map(([id, sends]) => {
    sends.sort(bySendOrder);
    return { id, sends, last: sends[sends.length - 1] };
  });
  return grouped.sort((a, b) => (b.last.created ?? '').localeCompare(a.last.created ?? ''));
}

/** The PocketBase filter for a thread's sends (its first send has no threadId when it predates threads). */
export function threadFilter(threadId: string): string {
  const quoted = `'${threadId.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return `threadId = ${quoted} || id = ${quoted}`;
}

/** An instant as a datetime-local value in zone `tz` (blank when unset or invalid). */
export function localInputIn(stored: string | undefined, tz: string): string {
  const at = stored ? parseDate(stored) : null;
  if (!at || !isTimeZone(tz)) return '';
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit',
  }).formatToParts(at);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}T${get('hour')}:${get('minute')}`;
}

/**
 * The draft that continues a thread from its last send (as the server has it): that send's
 * content and event times, the thread to write into, and UPDATE #N+1 where N is the last send's
 * server-assigned number.
 */
export function continueDraft(last: AlertHistory, base: AlertDraft): AlertDraft {
  const timeZone = last.timeZone && isTimeZone(last.timeZone) ? last.timeZone : base.timeZone;
  return {
    ...base,
    severity: SEVERITIES.some((s) => s.id === last.severity) ? last.severity! : base.severity,
    subject: last.subject ?? '',
    ...htmlToBody(last.bodyHtml),
    sender: last.sender ?? '',
    recipient: last.recipient ?? '',
    threadId: threadOf(last),
    update: Math.min(UPDATE_MAX, updateNumberOf(last) + 1),
    start: localInputIn(last.eventStart, timeZone),
    end: localInputIn(last.eventEnd, timeZone),
    timeZone,
  };
}

/** The thread and event fields a send of `draft` stores (the server assigns the update number). */
export function sendFields(draft: AlertDraft): Pick<AlertHistory, 'threadId' | 'eventStart' | 'eventEnd' | 'timeZone'> {
  const instant = (local: string) => {
    const at = local ? zonedInstant(local, draft.timeZone) : null;
    return at ? toApiDate(at) : '';
  };
  return { threadId: draft.threadId, eventStart: instant(draft.start), eventEnd: instant(draft.end), timeZone: draft.timeZone };
}
