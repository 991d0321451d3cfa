// Compose → Start Bridge: builds the Teams meeting-draft link
// (https://teams.microsoft.com/l/meeting/new?subject=…&attendees=a@x,b@y) and refuses, with a
// message the operator can act on, anything the desktop shell's external-link policy
// (domain/src/external_links.rs) would refuse: more than 100 attendees, an attendee that is not
// a plain ASCII email address, a subject over 256 characters or with control characters, or a
// link over 2048 bytes. Pure: opening the link is the caller's job (lib/openExternal).

export const TEAMS_MEETING_URL = 'https://teams.microsoft.com/l/meeting/new';

/** The shell's limits (domain/src/external_links.rs: MAX_URL_LEN, MAX_TEAMS_*, MAX_ATTENDEE_LEN). */
export const TEAMS_LIMITS = {
  maxUrlBytes: 2048,
  maxSubjectChars: 256,
  maxAttendees: 100,
  maxAttendeeBytes: 254,
} as const;

export type TeamsLink = { ok: true; url: string; attendees: string[] } | { ok: false; error: string };

// ASCII-graphic local part and a dotted domain: what the shell's email check accepts.
const ATTENDEE_RE = /^[!#-'*+\-/-9=?A-Z^-~]+(?:\.[!#-'*+\-/-9=?A-Z^-~]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;
// C0, DEL, C1 controls, line/paragraph separators and bidi overrides/isolates.
const UNSAFE_TEXT_RE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** The Start Bridge default subject: `M/D -` (the original app's draft title). */
export function bridgeSubject(now: Date): string {
  return `${now.getMonth() + 1}/${now.getDate()} -`;
}

/** Whether `address` is one attendee the shell accepts. */
export function isAttendeeAddress(address: string): boolean {
  return address.length <= TEAMS_LIMITS.maxAttendeeBytes && ATTENDEE_RE.test(address);
}

/** `@` stays readable; everything else outside the unreserved set is percent-encoded. */
function encodeAttendee(address: string): string {
  return encodeURIComponent(address).replace(/%40/g, '@');
}

/**
 * The meeting-draft link for `subject` and `emails` (trimmed; repeats, compared without case,
 * dropped; order kept). Blank subject and no attendees leave their field out.
 */
export function teamsMeetingLink(subject: string, emails: readonly string[]): TeamsLink {
  const title = subject.trim();
  if ([...title].length > TEAMS_LIMITS.maxSubjectChars) {
    return { ok: false, error: `The meeting subject is ${[...title].length} characters; Teams drafts take at most ${TEAMS_LIMITS.maxSubjectChars}.` };
  }
  if (UNSAFE_TEXT_RE.test(title)) return { ok: false, error: 'The meeting subject contains a control character.' };
  const seen = new Set<string>();
  const attendees: string[] = [];
  for (const raw of emails) {
    const e = raw.trim();
    if (!e || seen.has(e.toLowerCase())) continue;
    seen.add(e.toLowerCase());
    if (!isAttendeeAddress(e)) return { ok: false, error: `"${e}" is not an email address Teams accepts; remove it from the bridge to start the meeting.` };
    attendees.push(e);
  }
  if (attendees.length > TEAMS_LIMITS.maxAttendees) {
    return {
      ok: false,
      error: `Too many attendees for a Teams meeting link: ${attendees.length} (at most ${TEAMS_LIMITS.maxAttendees}). Use Copy All and paste the addresses into the invite instead.`,
    };
  }
  const query: string[] = [];
  if (title) query.push(`subject=${encodeURIComponent(title)}`);
  if (attendees.length) query.push(`attendees=${attendees.map(encodeAttendee).join(',')}`);
  const url = query.length ? `${TEAMS_MEETING_URL}?${query.join('&')}` : TEAMS_MEETING_URL;
  if (url.length > TEAMS_LIMITS.maxUrlBytes) {
    return {
      ok: false,
      error: `The meeting link would be ${url.length} bytes (at most ${TEAMS_LIMITS.maxUrlBytes}). Remove some recipients or use Copy All and paste the addresses into the invite instead.`,
    };
  }
  return { ok: true, url, attendees };
}
