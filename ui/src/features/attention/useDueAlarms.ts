// Which alarms are due now (every client): polls `alert_reminders` every 30 s, re-checks on
// every realtime change, and wakes exactly when the next alarm becomes due. Returns the due
// pending alarms, oldest first (lib/alarms dueAlarms). Shows nothing: the due popup and the
// window's attention signals (./AttentionContext) both read this one list.
import { useEffect, useState } from 'react';
import { useCollection } from '../../data/store';
import { dueAlarms, effectiveDue, POLL_MS, type Alarm } from '../../lib/alarms';
import type { BaseRecord } from '../../transport/types';

export type AlarmRec = Alarm & BaseRecord;
export const ALARMS = 'alert_reminders';

export function useDueAlarms(): AlarmRec[] {
  const col = useCollection<AlarmRec>(ALARMS);
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const id = setInterval(() => {
      setNow(new Date());
      col.store.load(); // poll: catches alarms even if a realtime event was missed
    }, POLL_MS);
    return () => clearInterval(id);
  }, [col.store]);
  // Re-evaluate on every realtime change too (col.items identity changes).
  useEffect(() => setNow(new Date()), [col.items]);
  // Wake up exactly when the next alarm becomes due.
  useEffect(() => {
    const next = col.items
      .filter((a) => a.status === 'pending')
      .map((a) => effectiveDue(a)?.getTime() ?? Infinity)
      .filter((t) => t > Date.now())
      .sort((a, b) => a - b)[0];
    if (!Number.isFinite(next)) return;
    const id = setTimeout(() => setNow(new Date()), Math.min(next - Date.now() + 50, POLL_MS));
    return () => clearTimeout(id);
  }, [col.items, now]);
  return dueAlarms(col.items, now);
}
