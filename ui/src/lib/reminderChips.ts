// On-call day-of-week reminder chips, dismissed per local day via `oncall_dismissals`.
export interface ReminderChip {
  alertType: string;
  label: string;
  day: number;
  urgent?: boolean;
}

export const REMINDER_CHIPS: ReminderChip[] = [
  { alertType: 'first-responder', label: 'Update First Responder', day: 0 },
  { alertType: 'weekly-schedule', label: 'Update Weekly Schedule', day: 1 },
  { alertType: 'sql-dba', label: 'Update SQL DBA', day: 3, urgent: true },
  { alertType: 'oracle-dba', label: 'Update Oracle DBA', day: 4, urgent: true },
];

/** Chips for today's weekday that have not been dismissed for today's local date key. */
export function activeChips(now: Date, dismissals: readonly { alertType: string; dateKey: string }[], dateKey: string): ReminderChip[] {
  return REMINDER_CHIPS.filter(
    (c) => c.day === now.getDay() && !dismissals.some((d) => d.alertType === c.alertType && d.dateKey === dateKey),
  );
}
