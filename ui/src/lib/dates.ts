// Date helpers for Relay's "YYYY-MM-DD HH:MM:SS.mmmZ" timestamps.

export function parseDate(s: string | undefined | null): Date | null {
  if (!s) return null;
  const d = new Date(s.includes('T') ? s : s.replace(' ', 'T'));
  return Number.isNaN(d.getTime()) ? null : d;
}

export function toApiDate(d: Date): string {
  return d.toISOString().replace('T', ' ');
}

export function localDateKey(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

export function formatDateTime(s: string | Date | undefined | null): string {
  const d = s instanceof Date ? s : parseDate(s);
  if (!d) return '—';
  return d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** Value for <input type="datetime-local">. */
export function toLocalInput(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${localDateKey(d)}T${p(d.getHours())}:${p(d.getMinutes())}`;
}
