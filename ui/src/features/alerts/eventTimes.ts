// The alert card's "UPDATE #N" heading and its event start/end times: the heading text, the
// conversion of a datetime-local wall time in the zone it was entered in (an IANA zone) to an
// instant (DST gaps and overlaps included), and one fixed, unambiguous rendering with the zone's
// abbreviation and UTC offset. The card shows the times in the device's card zone (./cardZone,
// Central Time unless changed) on one line labelled by severity, as the original did: Started
// (ISSUE), Scheduled (MAINTENANCE), When (INFO), Duration (RESOLVED); the start alone, the range
// start – end, or "until" the end. They live in the composer draft and the rendered card/text; a
// send stores them in alert_history with its thread (./alertThreads), alarms do not keep them.
// Pure: no clock, no DOM.

/** Largest update counter the stepper offers. */
export const UPDATE_MAX = 99;

/** The heading: `UPDATE #N — subject` when the draft is an update (N ≥ 1), else the subject. */
export function alertHeading(subject: string, update: number): string {
  const n = Math.floor(update);
  return Number.isFinite(n) && n >= 1 ? `UPDATE #${Math.min(n, UPDATE_MAX)} — ${subject}` : subject;
}

/** A counter kept within 1..UPDATE_MAX (a blank or broken stepper value gives 1). */
export function clampUpdate(n: number): number {
  return Number.isFinite(n) ? Math.min(UPDATE_MAX, Math.max(1, Math.floor(n))) : 1;
}

/** Zones offered in the select (the browser's own is added when missing, see `zoneOptions`). */
export const TIME_ZONES = [
  'UTC', 'America/New_York', 'America/Chicago', 'America/Denver', 'America/Phoenix', 'America/Los_Angeles',
  'America/Anchorage', 'Pacific/Honolulu', 'Europe/London', 'Europe/Berlin', 'Asia/Kolkata', 'Asia/Singapore',
  'Asia/Tokyo', 'Australia/Sydney',
] as const;

/** The browser's IANA zone ('UTC' when it cannot say). */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** True when `tz` is an IANA zone this runtime knows. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return Boolean(tz);
  } catch {
    return false;
  }
}

/** The select's options: TIME_ZONES, with `browser` first when it is not one of them. */
export function zoneOptions(browser: string): string[] {
  return (TIME_ZONES as readonly string[]).includes(browser) || !isTimeZone(browser) ? [...TIME_ZONES] : [browser, ...TIME_ZONES];
}

const LOCAL_INPUT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/** Offset of `tz` from UTC at instant `ms`, in minutes (Chicago in July: -300). */
export function zoneOffsetMinutes(ms: number, tz: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(ms));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour') % 24, get('minute'), get('second'));
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60_000);
}

/**
 * The instant of wall time `local` (a datetime-local value, `YYYY-MM-DDTHH:MM`) in zone `tz`, or
 * null when blank or invalid. A wall time skipped by a DST jump is read with the offset before the
 * jump (02:30 on a spring-forward night becomes 03:30 daylight time); a repeated one takes its
 * first (daylight) occurrence.
 */
export function zonedInstant(local: string, tz: string): Date | null {
  const m = LOCAL_INPUT.exec(local.trim());
  if (!m || !isTimeZone(tz)) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0));
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(wall);
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59) return null;
  // Offsets on either side of the wall time; try the earlier one first (the first occurrence).
  const before = zoneOffsetMinutes(wall - 86_400_000 / 2, tz);
  const after = zoneOffsetMinutes(wall + 86_400_000 / 2, tz);
  for (const off of [Math.max(before, after), Math.min(before, after)]) {
    const t = wall - off * 60_000;
    if (zoneOffsetMinutes(t, tz) === off) return new Date(t);
  }
  return new Date(wall - before * 60_000); // in a gap: keep the offset from before the jump
}

/** `UTC-05:00` for -300. */
export function offsetLabel(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const a = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/**
 * The instant in zone `tz`, always in one shape: `Sun 8 Mar 2026, 03:30 CDT (UTC-05:00)`. The
 * abbreviation is the en-US short name; where that is only an offset (`GMT+1`) it is left out and
 * the offset alone is shown (`… 14:00 (UTC+01:00)`).
 */
export function formatZoned(at: Date, tz: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz, hourCycle: 'h23', weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit',
  }).formatToParts(at);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  const abbr = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'short' }).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? '';
  const named = /^[A-Z]{2,5}$/.test(abbr) ? ` ${abbr}` : '';
  const off = offsetLabel(zoneOffsetMinutes(at.getTime(), tz));
  return `${get('weekday')} ${get('day')} ${get('month')} ${get('year')}, ${get('hour')}:${get('minute')}${named} (${off})`;
}

export interface EventTimes {
  /** datetime-local values; blank when not set. */
  start: string;
  end: string;
  /** IANA zone the times are entered in. */
  timeZone: string;
}

export interface EventLine {
  /** Started, Scheduled, When or Duration (by severity: TIME_LABELS). */
  label: string;
  text: string;
}

/** The card's label for the event times, by severity (features doc: "labelled Scheduled/Started/When/Duration according to severity"). */
export const TIME_LABELS: Readonly<Record<string, string>> = { ISSUE: 'Started', MAINTENANCE: 'Scheduled', INFO: 'When', RESOLVED: 'Duration' };

/**
 * `start` to `end` in zone `tz`: the day written once when both fall on the same day with the same
 * offset (`Sat 7 Mar 2026, 22:00 – 23:30 CST (UTC-06:00)`), else both in full.
 */
export function formatZonedRange(start: Date, end: Date, tz: string): string {
  const a = formatZoned(start, tz);
  const b = formatZoned(end, tz);
  const split = (s: string) => /^(.*), (\d{2}:\d{2})(.*)$/.exec(s);
  const [sa, sb] = [split(a), split(b)];
  if (sa && sb && sa[1] === sb[1] && sa[3] === sb[3]) return `${sa[1]}, ${sa[2]} – ${sb[2]}${sa[3]}`;
  return `${a} – ${b}`;
}

/**
 * The card's time line: the times set and valid, entered in `t.timeZone`, shown in `showIn`
 * (the device's card zone), labelled by `severity`; none when neither time is set.
 */
export function eventLines(t: EventTimes, severity: string, showIn: string): EventLine[] {
  const zone = isTimeZone(showIn) ? showIn : t.timeZone;
  const start = t.start ? zonedInstant(t.start, t.timeZone) : null;
  const end = t.end ? zonedInstant(t.end, t.timeZone) : null;
  const label = TIME_LABELS[severity] ?? 'When';
  if (start && end) return [{ label, text: formatZonedRange(start, end, zone) }];
  if (start) return [{ label, text: formatZoned(start, zone) }];
  if (end) return [{ label, text: `until ${formatZoned(end, zone)}` }];
  return [];
}

/** Why the times cannot be shown as entered, or null. */
export function eventTimesError(t: EventTimes): string | null {
  if (!isTimeZone(t.timeZone)) return 'Choose a time zone.';
  const s = t.start ? zonedInstant(t.start, t.timeZone) : null;
  const e = t.end ? zonedInstant(t.end, t.timeZone) : null;
  if (t.start && !s) return 'The start time is not a valid date and time.';
  if (t.end && !e) return 'The end time is not a valid date and time.';
  if (s && e && e.getTime() < s.getTime()) return 'The end time is before the start time.';
  return null;
}
