// Alert alarms (alert_reminders): effective due time, due selection, snooze/done/dismiss patches.
import { parseDate, toApiDate } from './dates';

export interface Alarm {
  id: string;
  title: string;
  note?: string;
  dueAt: string;
  status: 'pending' | 'done' | 'dismissed';
  snoozeUntil?: string;
  severity?: string;
  alertSubject?: string;
  alertBodyHtml?: string;
  createdBy?: string;
  completedAt?: string;
  dismissedAt?: string;
}

export const SNOOZE_MS = 10 * 60_000;
export const DEFAULT_LEAD_MS = 30 * 60_000;
export const TITLE_MAX = 180;
export const POLL_MS = 30_000;

/** snoozeUntil when set, else dueAt. Null for an invalid date. */
export function effectiveDue(a: Pick<Alarm, 'dueAt' | 'snoozeUntil'>): Date | null {
  return parseDate(a.snoozeUntil || a.dueAt);
}

/** Pending alarms whose effective time has come, oldest first. */
export function dueAlarms<T extends Alarm>(list: readonly T[], now: Date): T[] {
  return list
    .filter((a) => a.status === 'pending')
    .map((a) => ({ a, t: effectiveDue(a) }))
    .filter((x): x is { a: T; t: Date } => x.t !== null && x.t.getTime() <= now.getTime())
    .sort((x, y) => x.t.getTime() - y.t.getTime() || (x.a.id < y.a.id ? -1 : 1))
    .map((x) => x.a);
}

/** Pending first by effective time; invalid dates last. */
export function sortAlarms<T extends Alarm>(list: readonly T[]): T[] {
  const t = (a: Alarm) => effectiveDue(a)?.getTime() ?? Number.POSITIVE_INFINITY;
  return [...list].sort((a, b) => t(a) - t(b));
}

/** now + 30 min, rounded up to the next whole minute. */
export function defaultDue(now: Date): Date {
  const t = now.getTime() + DEFAULT_LEAD_MS;
  return new Date(Math.ceil(t / 60_000) * 60_000);
}

export function validateAlarm(title: string, due: Date | null, now: Date): string | null {
  if (!title.trim()) return 'Title is required.';
  if (title.trim().length > TITLE_MAX) return `Title must be at most ${TITLE_MAX} characters.`;
  if (!due || Number.isNaN(due.getTime())) return 'Due time is required.';
  if (due.getTime() <= now.getTime()) return 'Due time must be in the future.';
  return null;
}

export const snoozePatch = (now: Date) => ({ snoozeUntil: toApiDate(new Date(now.getTime() + SNOOZE_MS)) });
export const donePatch = (now: Date) => ({ status: 'done' as const, completedAt: toApiDate(now) });
export const dismissPatch = (now: Date) => ({ status: 'dismissed' as const, dismissedAt: toApiDate(now) });

export function isOverdue(a: Alarm, now: Date): boolean {
  const t = effectiveDue(a);
  return a.status === 'pending' && t !== null && t.getTime() <= now.getTime();
}
