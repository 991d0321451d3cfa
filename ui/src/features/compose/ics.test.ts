import { describe, expect, it } from 'vitest';
import { toLocalInput } from '../../lib/dates';
import { ICS_MAX_BYTES, bridgeUid, buildIcs, djb2, escapeText, foldLine, icsFileName, nextHalfHour, parseLocalInput, scheduleSubject, utcStamp, type BridgeInvite } from './ics';

const enc = new TextEncoder();
const base: BridgeInvite = {
  start: new Date(Date.UTC(2026, 11, 5, 15, 30)),
  durationMinutes: 60,
  summary: '12/5 – Bridge',
  attendees: [{ email: 'a@x.com', name: 'Ann A' }, { email: 'b@y.org' }],
  stamp: new Date(Date.UTC(2026, 11, 5, 14, 2, 3, 456)),
};
const text = (inv: BridgeInvite) => {
  const r = buildIcs(inv);
  if (!r.ok) throw new Error(r.error);
  return r.text;
};
const unfold = (t: string) => t.replace(/\r\n /g, '');

describe('buildIcs', () => {
  it('writes one VEVENT with UTC times, UID, attendees and CRLF endings', () => {
    const t = text({ ...base, organizer: 'ops@x.com' });
    expect(t.endsWith('\r\n')).toBe(true);
    expect(t.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    const lines = unfold(t).split('\r\n');
    expect(lines.slice(0, 5)).toEqual(['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Relay//Bridge Scheduler//EN', 'CALSCALE:GREGORIAN', 'METHOD:REQUEST']);
    expect(lines).toContain('BEGIN:VEVENT');
    expect(lines).toContain(`UID:${bridgeUid(base.start, ['a@x.com', 'b@y.org'])}`);
    expect(lines).toContain('DTSTAMP:20261205T140203Z');
    expect(lines).toContain('DTSTART:20261205T153000Z');
    expect(lines).toContain('DTEND:20261205T163000Z');
    expect(lines).toContain('SUMMARY:12/5 – Bridge');
    expect(lines).toContain('ORGANIZER:mailto:ops@x.com');
    expect(lines).toContain('ATTENDEE;CN="Ann A";ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:a@x.com');
    expect(lines).toContain('ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:b@y.org');
    expect(lines.at(-2)).toBe('END:VCALENDAR');
    expect(lines.at(-1)).toBe('');
  });

  it('takes each duration choice', () => {
    for (const [m, end] of [[30, '160000'], [90, '170000'], [120, '173000']] as const) {
      expect(unfold(text({ ...base, durationMinutes: m }))).toContain(`DTEND:20261205T${end}Z`);
    }
    const r = buildIcs({ ...base, durationMinutes: 45 });
    expect(r.ok).toBe(false);
  });

  it('leaves ORGANIZER out when blank and refuses a bad one', () => {
    expect(text(base)).not.toContain('ORGANIZER');
    expect(buildIcs({ ...base, organizer: 'nope' }).ok).toBe(false);
  });

  it('publishes (no REQUEST, no RSVP) when there is no organizer, as RFC 5546 needs one for REQUEST', () => {
    const lines = unfold(text({ ...base, organizer: '  ' })).split('\r\n');
    expect(lines).toContain('METHOD:PUBLISH');
    expect(lines).not.toContain('METHOD:REQUEST');
    expect(lines.join('\n')).not.toMatch(/RSVP|NEEDS-ACTION/);
    expect(lines).toContain('ATTENDEE;CN="Ann A";ROLE=REQ-PARTICIPANT:mailto:a@x.com');
    expect(buildIcs({ ...base, organizer: 'nope' }).ok).toBe(false);
  });

  it('escapes text and strips quotes from CN', () => {
    const t = unfold(text({ ...base, summary: 'a\\b; c, d\ne', attendees: [{ email: 'a@x.com', name: 'Doe, "J"; Jr' }] }));
    expect(t).toContain('SUMMARY:a\\\\b\\; c\\, d\\ne\r\n');
    expect(t).toContain('ATTENDEE;CN="Doe, J; Jr";');
  });

  it('folds every line to 75 octets without splitting a character', () => {
    const summary = 'Bridge ' + '😀é漢'.repeat(60);
    const attendees = Array.from({ length: 20 }, (_, i) => ({ email: `person.number.${i}@operations.example.com`, name: `Ünïcödé Pérson ${i}` }));
    const t = text({ ...base, summary, attendees });
    for (const line of t.split('\r\n')) {
      expect(enc.encode(line).length).toBeLessThanOrEqual(75);
      expect(line).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/); // no lone high surrogate
    }
    expect(unfold(t)).toContain(`SUMMARY:${summary}\r\n`);
  });

  it('dedupes attendees without case and refuses bad or missing ones', () => {
    const t = text({ ...base, attendees: [{ email: 'a@x.com' }, { email: 'A@X.com' }] });
    expect(t.match(/ATTENDEE/g)).toHaveLength(1);
    expect(buildIcs({ ...base, attendees: [] }).ok).toBe(false);
    const bad = buildIcs({ ...base, attendees: [{ email: 'x;y@z.com' }] });
    expect(bad.ok).toBe(false);
    expect(buildIcs({ ...base, summary: '  ' }).ok).toBe(false);
    expect(buildIcs({ ...base, start: new Date('nope') }).ok).toBe(false);
  });

  it('refuses an invitation of 1 MiB or more', () => {
    const attendees = Array.from({ length: 12000 }, (_, i) => ({ email: `user${i}@example.com`, name: `User Number ${i}` }));
    const r = buildIcs({ ...base, organizer: 'ops@x.com', attendees });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/limit is 1 MiB/);
    const small = buildIcs({ ...base, attendees: attendees.slice(0, 1000) });
    expect(small.ok && small.bytes < ICS_MAX_BYTES).toBe(true);
  });
});

describe('foldLine', () => {
  it('keeps short lines and counts octets, not characters', () => {
    expect(foldLine('x'.repeat(75))).toBe('x'.repeat(75));
    expect(foldLine('x'.repeat(76))).toBe(`${'x'.repeat(75)}\r\n x`);
    const f = foldLine('é'.repeat(40)); // 80 octets
    expect(f.split('\r\n').map((l) => enc.encode(l).length)).toEqual([74, 7]);
    expect(f.replace(/\r\n /g, '')).toBe('é'.repeat(40));
  });
  it('continuation lines hold at most 74 octets after the space', () => {
    const f = foldLine('y'.repeat(75 + 74 + 1));
    expect(f.split('\r\n')).toEqual(['y'.repeat(75), ` ${'y'.repeat(74)}`, ' y']);
  });
});

describe('helpers', () => {
  it('escapeText handles CRLF and CR as one newline', () => {
    expect(escapeText('a\r\nb\rc')).toBe('a\\nb\\nc');
  });
  it('utcStamp and file name', () => {
    expect(utcStamp(base.stamp)).toBe('20261205T140203Z');
    expect(icsFileName(base.stamp)).toBe('relay-bridge-20261205T140203Z.ics');
  });
  it('UID is stable across order and case', () => {
    expect(bridgeUid(base.start, ['B@y.org', 'a@x.com'])).toBe(bridgeUid(base.start, ['a@x.com', 'b@y.org']));
    expect(bridgeUid(base.start, ['a@x.com'])).toMatch(/^relay-bridge-\d+-[0-9a-z]+@relay$/);
    expect(djb2('')).toBe((5381).toString(36));
  });
  it('nextHalfHour and scheduleSubject', () => {
    expect(nextHalfHour(new Date(2026, 11, 5, 9, 10, 22)).getMinutes()).toBe(30);
    const n = nextHalfHour(new Date(2026, 11, 5, 9, 30));
    expect([n.getHours(), n.getMinutes()]).toEqual([10, 0]);
    const late = nextHalfHour(new Date(2026, 11, 31, 23, 45));
    expect([late.getFullYear(), late.getMonth(), late.getDate(), late.getHours()]).toEqual([2027, 0, 1, 0]);
    expect(scheduleSubject(new Date(2026, 11, 5, 9))).toBe('12/5 – Bridge');
  });
});

describe('datetime-local values', () => {
  it('round-trip in local time', () => {
    const d = new Date(2026, 0, 2, 3, 4);
    expect(toLocalInput(d)).toBe('2026-01-02T03:04');
    expect(parseLocalInput('2026-01-02T03:04').getTime()).toBe(d.getTime());
    expect(Number.isNaN(parseLocalInput('').getTime())).toBe(true);
    expect(Number.isNaN(parseLocalInput('2026-01-02').getTime())).toBe(true);
  });
});
