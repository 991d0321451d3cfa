// UPDATE #N heading and event times: the heading text, wall time in a zone to an instant (DST gap
// and overlap in America/Chicago), the fixed rendering with abbreviation and offset, and errors.
import { describe, expect, test } from 'vitest';
import { alertHeading, clampUpdate, eventLines, eventTimesError, formatZoned, formatZonedRange, offsetLabel, TIME_LABELS, zonedInstant, zoneOffsetMinutes, zoneOptions } from './eventTimes';

describe('alertHeading', () => {
  test('an update reads UPDATE #N — subject, as the features doc says', () => {
    expect(alertHeading('Email outage', 2)).toBe('UPDATE #2 — Email outage');
    expect(alertHeading('Email outage', 1)).toBe('UPDATE #1 — Email outage');
  });
  test('not an update: the subject alone', () => {
    expect(alertHeading('Email outage', 0)).toBe('Email outage');
    expect(alertHeading('Email outage', Number.NaN)).toBe('Email outage');
  });
  test('the stepper value is kept within 1..99', () => {
    expect(clampUpdate(0)).toBe(1);
    expect(clampUpdate(3.7)).toBe(3);
    expect(clampUpdate(500)).toBe(99);
    expect(clampUpdate(Number.NaN)).toBe(1);
  });
});

describe('zonedInstant', () => {
  test('summer and winter wall times in Chicago', () => {
    expect(zonedInstant('2026-07-01T09:00', 'America/Chicago')?.toISOString()).toBe('2026-07-01T14:00:00.000Z');
    expect(zonedInstant('2026-01-15T09:00', 'America/Chicago')?.toISOString()).toBe('2026-01-15T15:00:00.000Z');
  });
  test('a wall time skipped by the spring-forward jump is read with the offset before it', () => {
    expect(zonedInstant('2026-03-08T02:30', 'America/Chicago')?.toISOString()).toBe('2026-03-08T08:30:00.000Z');
  });
  test('a repeated wall time on the fall-back night takes its first (daylight) occurrence', () => {
    expect(zonedInstant('2026-11-01T01:30', 'America/Chicago')?.toISOString()).toBe('2026-11-01T06:30:00.000Z');
  });
  test('half-hour zones and UTC', () => {
    expect(zonedInstant('2026-07-01T09:00', 'Asia/Kolkata')?.toISOString()).toBe('2026-07-01T03:30:00.000Z');
    expect(zonedInstant('2026-07-01T09:00', 'UTC')?.toISOString()).toBe('2026-07-01T09:00:00.000Z');
  });
  test('blank, malformed, impossible dates and unknown zones give null', () => {
    expect(zonedInstant('', 'UTC')).toBeNull();
    expect(zonedInstant('2026-02-30T09:00', 'UTC')).toBeNull();
    expect(zonedInstant('2026-07-01 09:00', 'UTC')).toBeNull();
    expect(zonedInstant('2026-07-01T09:00', 'Mars/Olympus')).toBeNull();
  });
  test('offsets', () => {
    expect(zoneOffsetMinutes(Date.UTC(2026, 6, 1), 'America/Chicago')).toBe(-300);
    expect(zoneOffsetMinutes(Date.UTC(2026, 0, 1), 'America/Chicago')).toBe(-360);
    expect(offsetLabel(-300)).toBe('UTC-05:00');
    expect(offsetLabel(330)).toBe('UTC+05:30');
    expect(offsetLabel(0)).toBe('UTC+00:00');
  });
});

describe('formatZoned', () => {
  test('one fixed shape with the abbreviation and the offset, across the DST change', () => {
    expect(formatZoned(new Date('2026-03-08T07:30:00Z'), 'America/Chicago')).toBe('Sun 8 Mar 2026, 01:30 CST (UTC-06:00)');
    expect(formatZoned(new Date('2026-03-08T08:30:00Z'), 'America/Chicago')).toBe('Sun 8 Mar 2026, 03:30 CDT (UTC-05:00)');
    expect(formatZoned(new Date('2026-09-01T13:00:00Z'), 'America/New_York')).toBe('Tue 1 Sep 2026, 09:00 EDT (UTC-04:00)');
    expect(formatZoned(new Date('2026-07-01T09:00:00Z'), 'UTC')).toBe('Wed 1 Jul 2026, 09:00 UTC (UTC+00:00)');
  });
  test('zones without a short name show the offset alone', () => {
    expect(formatZoned(new Date('2026-07-01T07:00:00Z'), 'Europe/Berlin')).toBe('Wed 1 Jul 2026, 09:00 (UTC+02:00)');
  });
  test('midnight is 00:00, not 24:00', () => {
    expect(formatZoned(new Date('2026-07-01T05:00:00Z'), 'America/Chicago')).toBe('Wed 1 Jul 2026, 00:00 CDT (UTC-05:00)');
  });
});

describe('eventLines and eventTimesError', () => {
  const t = { start: '2026-03-08T01:00', end: '2026-03-08T04:00', timeZone: 'America/Chicago' };
  test('one line, labelled by severity as the original did: Started, Scheduled, When, Duration', () => {
    expect(TIME_LABELS).toEqual({ ISSUE: 'Started', MAINTENANCE: 'Scheduled', INFO: 'When', RESOLVED: 'Duration' });
    for (const [sev, label] of Object.entries(TIME_LABELS)) expect(eventLines(t, sev, 'America/Chicago')[0].label).toBe(label);
  });
  test('start and end as one range, each with its own offset on the DST night', () => {
    expect(eventLines(t, 'MAINTENANCE', 'America/Chicago')).toEqual([
      { label: 'Scheduled', text: 'Sun 8 Mar 2026, 01:00 CST (UTC-06:00) – Sun 8 Mar 2026, 04:00 CDT (UTC-05:00)' },
    ]);
    expect(eventTimesError(t)).toBeNull();
  });
  test('the card shows the times in the device zone, whatever zone they were entered in', () => {
    const london = { start: '2026-07-01T15:00', end: '2026-07-01T16:30', timeZone: 'Europe/London' };
    expect(eventLines(london, 'ISSUE', 'America/Chicago')).toEqual([{ label: 'Started', text: 'Wed 1 Jul 2026, 09:00 – 10:30 CDT (UTC-05:00)' }]);
    expect(eventLines(london, 'ISSUE', 'Europe/London')[0].text).toBe('Wed 1 Jul 2026, 15:00 – 16:30 (UTC+01:00)');
  });
  test('only the times set are shown: the start alone, or until the end', () => {
    expect(eventLines({ ...t, end: '' }, 'INFO', 'America/Chicago')).toEqual([{ label: 'When', text: 'Sun 8 Mar 2026, 01:00 CST (UTC-06:00)' }]);
    expect(eventLines({ ...t, start: '' }, 'RESOLVED', 'America/Chicago')).toEqual([{ label: 'Duration', text: 'until Sun 8 Mar 2026, 04:00 CDT (UTC-05:00)' }]);
    expect(eventLines({ ...t, start: '', end: '' }, 'INFO', 'America/Chicago')).toEqual([]);
  });
  test('a range across days is written in full', () => {
    const a = new Date(Date.UTC(2026, 6, 1, 22, 0));
    const b = new Date(Date.UTC(2026, 6, 2, 9, 0));
    expect(formatZonedRange(a, b, 'UTC')).toBe('Wed 1 Jul 2026, 22:00 UTC (UTC+00:00) – Thu 2 Jul 2026, 09:00 UTC (UTC+00:00)');
  });
  test('an end before the start, or no zone, is said', () => {
    expect(eventTimesError({ ...t, end: '2026-03-07T23:00' })).toBe('The end time is before the start time.');
    expect(eventTimesError({ ...t, timeZone: '' })).toBe('Choose a time zone.');
  });
  test('the browser zone joins the options when missing', () => {
    expect(zoneOptions('America/Chicago')[0]).toBe('UTC');
    expect(zoneOptions('Europe/Paris')[0]).toBe('Europe/Paris');
    expect(zoneOptions('Nowhere/Else')).not.toContain('Nowhere/Else');
  });
});
