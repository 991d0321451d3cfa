import { describe, expect, it } from 'vitest';
import { TEAMS_LIMITS, TEAMS_MEETING_URL, bridgeSubject, isAttendeeAddress, teamsMeetingLink } from './teamsLink';

const ok = (r: ReturnType<typeof teamsMeetingLink>) => {
  if (!r.ok) throw new Error(r.error);
  return r;
};

describe('teamsMeetingLink', () => {
  it('builds the draft link with the exact subject and attendee list', () => {
    const r = ok(teamsMeetingLink('12/5 -', ['a@x.com', 'b@y.org']));
    expect(r.url).toBe(`${TEAMS_MEETING_URL}?subject=12%2F5%20-&attendees=a@x.com,b@y.org`);
    const u = new URL(r.url);
    expect(u.searchParams.get('subject')).toBe('12/5 -');
    expect(u.searchParams.get('attendees')).toBe('a@x.com,b@y.org');
  });

  it('percent-encodes non-ASCII and reserved characters so the link stays ASCII', () => {
    const r = ok(teamsMeetingLink('Ünïcode & more – #1?', ["o'neil+ops@x.com"]));
    expect(/^[\x21-\x7e]+$/.test(r.url)).toBe(true);
    const u = new URL(r.url);
    expect(u.searchParams.get('subject')).toBe('Ünïcode & more – #1?');
    expect(u.searchParams.get('attendees')).toBe("o'neil+ops@x.com");
    expect(u.hash).toBe('');
  });

  it('trims, drops repeats without case and keeps order', () => {
    const r = ok(teamsMeetingLink('  s ', [' b@y.org', 'A@x.com', 'a@X.com', '', 'b@y.org']));
    expect(r.attendees).toEqual(['b@y.org', 'A@x.com']);
    expect(r.url).toContain('subject=s&');
  });

  it('leaves out empty fields', () => {
    expect(ok(teamsMeetingLink('', [])).url).toBe(TEAMS_MEETING_URL);
    expect(ok(teamsMeetingLink('x', [])).url).toBe(`${TEAMS_MEETING_URL}?subject=x`);
    expect(ok(teamsMeetingLink(' ', ['a@x.com'])).url).toBe(`${TEAMS_MEETING_URL}?attendees=a@x.com`);
  });

  it('caps the attendee count with a clear message', () => {
    const many = Array.from({ length: TEAMS_LIMITS.maxAttendees + 1 }, (_, i) => `u${i}@x.io`);
    expect(teamsMeetingLink('s', many.slice(0, TEAMS_LIMITS.maxAttendees)).ok).toBe(true);
    const r = teamsMeetingLink('s', many);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/Too many attendees.*101.*at most 100.*Copy All/);
  });

  it('caps the link length at 2048 bytes', () => {
    const long = Array.from({ length: 40 }, (_, i) => `someone.with.a.long.name${i}@operations.example.com`);
    const r = teamsMeetingLink('s', long);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/at most 2048/);
    const fits = ok(teamsMeetingLink('s', long.slice(0, 20)));
    expect(fits.url.length).toBeLessThanOrEqual(2048);
  });

  it('refuses a long or unsafe subject and a malformed attendee', () => {
    expect(teamsMeetingLink('x'.repeat(256), []).ok).toBe(true);
    expect(teamsMeetingLink('x'.repeat(257), []).ok).toBe(false);
    expect(teamsMeetingLink('a\nb', []).ok).toBe(false);
    expect(teamsMeetingLink('a\u202eb', []).ok).toBe(false);
    const bad = teamsMeetingLink('s', ['a@x.com', 'not an email']);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toContain('"not an email"');
  });
});

describe('isAttendeeAddress', () => {
  it('accepts plain ASCII addresses only', () => {
    expect(isAttendeeAddress('first.last@corp.example.com')).toBe(true);
    expect(isAttendeeAddress('a,b@x.com')).toBe(false);
    expect(isAttendeeAddress('a@localhost')).toBe(false);
    expect(isAttendeeAddress('é@x.com')).toBe(false);
    expect(isAttendeeAddress('a b@x.com')).toBe(false);
    expect(isAttendeeAddress(`${'a'.repeat(250)}@x.com`)).toBe(false);
  });
});

describe('bridgeSubject', () => {
  it('is M/D -', () => {
    expect(bridgeSubject(new Date(2026, 11, 5, 9))).toBe('12/5 -');
    expect(bridgeSubject(new Date(2026, 0, 9))).toBe('1/9 -');
  });
});
