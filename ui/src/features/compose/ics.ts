// Compose → Schedule Bridge: the RFC 5545 invitation (.ics) for the current recipients.
// Owns the calendar text: METHOD:REQUEST when an organizer is given (RFC 5546 requires ORGANIZER
// with REQUEST; Outlook opens an organizer-less request read-only), else METHOD:PUBLISH, a plain
// appointment without reply semantics; one VEVENT with UID, DTSTAMP, DTSTART/DTEND in UTC,
// SUMMARY, optional ORGANIZER and DESCRIPTION, one ATTENDEE (CN; RSVP=TRUE only with REQUEST)
// per recipient; TEXT escaping (\\ ; , newline); CRLF line endings; lines folded at 75 UTF-8
// octets without splitting a character; and the 1 MiB ceiling (refused with a message, never
// truncated). It reads no clock (the caller passes `stamp` and `start`) and saves nothing (see
// BridgeActions).

export const ICS_MAX_BYTES = 1024 * 1024;
export const ICS_FOLD_OCTETS = 75;
export const BRIDGE_DURATIONS = [30, 60, 90, 120] as const;
export type BridgeDuration = (typeof BRIDGE_DURATIONS)[number];
export const DEFAULT_DURATION: BridgeDuration = 60;

export interface BridgeAttendee {
  email: string;
  name?: string;
}

export interface BridgeInvite {
  start: Date;
  durationMinutes: number;
  summary: string;
  attendees: readonly BridgeAttendee[];
  /** When the file is made (DTSTAMP). */
  stamp: Date;
  organizer?: string;
  description?: string;
}

export type IcsResult = { ok: true; text: string; bytes: number; uid: string } | { ok: false; error: string };

const EMAIL_RE = /^[^\s@",;:<>\\]+@[^\s@",;:<>\\]+\.[^\s@",;:<>\\]+$/;
const enc = new TextEncoder();

/** TEXT value escaping (RFC 5545 §3.3.11): backslash, semicolon, comma, and newlines as `\n`. */
export function escapeText(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r\n|\r|\n/g, '\\n');
}

/** A quoted parameter value (CN): DQUOTE and control characters are not allowed, so dropped. */
export function paramValue(s: string): string {
  return `"${s.replace(/["\u0000-\u001f\u007f]/g, '').trim()}"`;
}

/**
 * Folds one content line so no physical line exceeds 75 octets (UTF-8), continuation lines
 * starting with one space (which counts toward their 75). A character is never split.
 */
export function foldLine(line: string, limit = ICS_FOLD_OCTETS): string {
  if (line.length * 3 <= limit) return line; // a UTF-16 unit is at most 3 octets
  const parts: string[] = [];
  let cur = '';
  let size = 0;
  let max = limit;
  for (const ch of line) {
    const cp = ch.codePointAt(0)!;
    const n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (size + n > max) {
      parts.push(cur);
      cur = '';
      size = 0;
      max = limit - 1;
    }
    cur += ch;
    size += n;
  }
  parts.push(cur);
  return parts.join('\r\n ');
}

/** UTC date-time form `YYYYMMDDTHHMMSSZ`. */
export function utcStamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
}

/** djb2 over the lowercased, sorted, comma-joined emails, as unsigned base-36. */
export function djb2(text: string): string {
  let h = 5381;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 33) + text.charCodeAt(i)) >>> 0;
  return h.toString(36);
}

export function bridgeUid(start: Date, emails: readonly string[]): string {
  const key = [...emails].map((e) => e.trim().toLowerCase()).sort().join(',');
  return `relay-bridge-${start.getTime()}-${djb2(key)}@relay`;
}

/** The next half hour strictly after `now` (local time), seconds cleared. */
export function nextHalfHour(now: Date): Date {
  const d = new Date(now);
  d.setSeconds(0, 0);
  d.setMinutes(d.getMinutes() < 30 ? 30 : 60);
  return d;
}

/** Schedule Bridge's default subject: `M/D – Bridge` for the meeting's (local) day. */
export function scheduleSubject(start: Date): string {
  return `${start.getMonth() + 1}/${start.getDate()} – Bridge`;
}

/** `relay-bridge-<YYYYMMDDTHHMMSSZ>.ics` for the moment it is made. */
export function icsFileName(stamp: Date): string {
  return `relay-bridge-${utcStamp(stamp)}.ics`;
}

export function buildIcs(inv: BridgeInvite): IcsResult {
  if (Number.isNaN(inv.start.getTime())) return { ok: false, error: 'Choose a valid start time.' };
  if (!(BRIDGE_DURATIONS as readonly number[]).includes(inv.durationMinutes)) {
    return { ok: false, error: `The duration must be ${BRIDGE_DURATIONS.join(', ')} minutes.` };
  }
  const summary = inv.summary.trim();
  if (!summary) return { ok: false, error: 'Enter a subject.' };
  const organizer = inv.organizer?.trim() ?? '';
  if (organizer && !EMAIL_RE.test(organizer)) return { ok: false, error: `"${organizer}" is not a valid organizer email.` };
  const seen = new Set<string>();
  const attendees: BridgeAttendee[] = [];
  for (const a of inv.attendees) {
    const email = a.email.trim();
    if (!email || seen.has(email.toLowerCase())) continue;
    if (!EMAIL_RE.test(email)) return { ok: false, error: `"${email}" is not a valid email address; remove it from the bridge to schedule it.` };
    seen.add(email.toLowerCase());
    attendees.push({ email, name: a.name?.trim() || undefined });
  }
  if (attendees.length === 0) return { ok: false, error: 'Add recipients before scheduling a bridge.' };
  const end = new Date(inv.start.getTime() + inv.durationMinutes * 60_000);
  const uid = bridgeUid(inv.start, attendees.map((a) => a.email));
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Relay//Bridge Scheduler//EN',
    'CALSCALE:GREGORIAN',
    organizer ? 'METHOD:REQUEST' : 'METHOD:PUBLISH',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    `DTSTAMP:${utcStamp(inv.stamp)}`,
    `DTSTART:${utcStamp(inv.start)}`,
    `DTEND:${utcStamp(end)}`,
    `SUMMARY:${escapeText(summary)}`,
    ...(inv.description?.trim() ? [`DESCRIPTION:${escapeText(inv.description.trim())}`] : []),
    ...(organizer ? [`ORGANIZER:mailto:${organizer}`] : []),
    ...attendees.map((a) => `ATTENDEE;${a.name ? `CN=${paramValue(a.name)};` : ''}ROLE=REQ-PARTICIPANT${organizer ? ';PARTSTAT=NEEDS-ACTION;RSVP=TRUE' : ''}:mailto:${a.email}`),
    'STATUS:CONFIRMED',
    'SEQUENCE:0',
    'END:VEVENT',
    'END:VCALENDAR',
  ];
  const text = lines.map((l) => foldLine(l)).join('\r\n') + '\r\n';
  const bytes = enc.encode(text).length;
  if (bytes >= ICS_MAX_BYTES) {
    return { ok: false, error: `The invitation would be ${(bytes / 1048576).toFixed(1)} MiB; the limit is 1 MiB. Remove recipients or shorten the subject.` };
  }
  return { ok: true, text, bytes, uid };
}

/** A datetime-local value read as local time; an invalid Date when it is not one. */
export function parseLocalInput(v: string): Date {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(v) ? new Date(`${v}:00`) : new Date(NaN);
}
