import { describe, expect, it } from 'vitest';
import { defaultDue, dismissPatch, donePatch, dueAlarms, effectiveDue, snoozePatch, sortAlarms, validateAlarm, type Alarm } from './alarms';

const now = new Date('2026-12-02T12:00:30.000Z');
const a = (id: string, dueAt: string, extra: Partial<Alarm> = {}): Alarm => ({ id, title: id, dueAt, status: 'pending', ...extra });

describe('alarms', () => {
  it('effective due is snoozeUntil, else dueAt', () => {
    expect(effectiveDue(a('1', '2026-12-02 11:00:00.000Z'))?.toISOString()).toBe('2026-12-02T11:00:00.000Z');
    expect(effectiveDue(a('1', '2026-12-02 11:00:00.000Z', { snoozeUntil: '2026-12-02 12:10:00.000Z' }))?.toISOString()).toBe(
      '2026-12-02T12:10:00.000Z',
    );
    expect(effectiveDue(a('1', 'garbage'))).toBeNull();
  });
  it('selects pending due alarms oldest first, honouring snooze', () => {
    const list = [
      a('late', '2026-12-02 11:59:00.000Z'),
      a('early', '2026-12-02 10:00:00.000Z'),
      a('snoozed', '2026-12-02 09:00:00.000Z', { snoozeUntil: '2026-12-02 12:05:00.000Z' }),
      a('future', '2026-12-02 13:00:00.000Z'),
      a('done', '2026-12-02 08:00:00.000Z', { status: 'done' }),
      a('bad', 'nope'),
    ];
    expect(dueAlarms(list, now).map((x) => x.id)).toEqual(['early', 'late']);
    expect(sortAlarms(list).map((x) => x.id).at(-1)).toBe('bad');
  });
  it('snooze moves the effective time 10 minutes out so the alarm is no longer due', () => {
    const x = a('x', '2026-12-02 11:00:00.000Z');
    const snoozed = { ...x, ...snoozePatch(now) };
    expect(snoozed.snoozeUntil).toBe('2026-12-02 12:10:30.000Z');
    expect(dueAlarms([snoozed], now)).toEqual([]);
    expect(dueAlarms([snoozed], new Date('2026-12-02T12:10:30.000Z')).length).toBe(1);
  });
  it('done/dismiss set status and their timestamps', () => {
    expect(donePatch(now)).toEqual({ status: 'done', completedAt: '2026-12-02 12:00:30.000Z' });
    expect(dismissPatch(now)).toEqual({ status: 'dismissed', dismissedAt: '2026-12-02 12:00:30.000Z' });
  });
  it('defaults to now + 30 min rounded up to the minute and validates the form', () => {
    expect(defaultDue(now).toISOString()).toBe('2026-12-02T12:31:00.000Z');
    expect(validateAlarm('', defaultDue(now), now)).toMatch(/required/);
    expect(validateAlarm('x'.repeat(181), defaultDue(now), now)).toMatch(/180/);
    expect(validateAlarm('ok', new Date(now.getTime() - 1), now)).toMatch(/future/);
    expect(validateAlarm('ok', defaultDue(now), now)).toBeNull();
  });
});
