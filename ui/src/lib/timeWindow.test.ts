import { describe, expect, it } from 'vitest';
import { isActiveNow, parseTimeWindow } from './timeWindow';

// 2026-12-06 is a Sunday; build local times by weekday offset.
const at = (dow: number, h: number, m = 0) => new Date(2026, 11, 6 + dow, h, m);
const SUN = 0, MON = 1, TUE = 2, WED = 3, FRI = 5, SAT = 6;

describe('time window parser', () => {
  it('treats 24/7, always and rotating as always active', () => {
    for (const t of ['24/7', 'Always', 'rotating weekly', '24x7']) expect(isActiveNow(t, at(WED, 3))).toBe(true);
  });
  it('business hours = Mon–Fri 08:00–17:00', () => {
    expect(isActiveNow('Business Hours', at(MON, 8))).toBe(true);
    expect(isActiveNow('business hours', at(FRI, 16, 59))).toBe(true);
    expect(isActiveNow('business hours', at(FRI, 17))).toBe(false);
    expect(isActiveNow('business hours', at(SAT, 10))).toBe(false);
    expect(isActiveNow('business hours', at(TUE, 7, 59))).toBe(false);
  });
  it('parses am/pm, 24 h and the separators -, to, through', () => {
    expect(isActiveNow('Mon-Fri 8am-5pm', at(WED, 12))).toBe(true);
    expect(isActiveNow('Mon-Fri 8am-5pm', at(WED, 17, 30))).toBe(false);
    expect(isActiveNow('Mon to Fri 08:00 to 17:00', at(MON, 9))).toBe(true);
    expect(isActiveNow('Monday through Friday 9:30 through 18:00', at(FRI, 9, 15))).toBe(false);
    expect(isActiveNow('Monday through Friday 9:30 through 18:00', at(FRI, 9, 45))).toBe(true);
    expect(isActiveNow('8-5pm', at(SUN, 16))).toBe(true);
    expect(isActiveNow('1-5pm', at(SUN, 12))).toBe(false);
    expect(isActiveNow('1-5pm', at(SUN, 13))).toBe(true);
    expect(isActiveNow('0800-1700', at(SUN, 8))).toBe(true);
  });
  it('handles ranges crossing midnight onto the next day', () => {
    expect(isActiveNow('Mon 10pm-6am', at(MON, 23))).toBe(true);
    expect(isActiveNow('Mon 10pm-6am', at(TUE, 5, 59))).toBe(true);
    expect(isActiveNow('Mon 10pm-6am', at(TUE, 6))).toBe(false);
    expect(isActiveNow('Mon 10pm-6am', at(MON, 5))).toBe(false); // Sunday night is not listed
    expect(isActiveNow('22:00 - 06:00', at(WED, 2))).toBe(true);
    expect(isActiveNow('22:00 - 06:00', at(WED, 12))).toBe(false);
  });
  it('wraps day ranges and midnight crossings around the week', () => {
    expect(isActiveNow('Fri-Mon', at(SUN, 12))).toBe(true);
    expect(isActiveNow('Fri-Mon', at(WED, 12))).toBe(false);
    expect(isActiveNow('Sat 22:00-02:00', at(SUN, 1))).toBe(true);
    expect(isActiveNow('Sat 22:00-02:00', at(MON, 1))).toBe(false);
    expect(isActiveNow('Sun 9pm to 3am', at(MON, 2))).toBe(true);
    expect(isActiveNow('weekends', at(SAT, 0))).toBe(true);
    expect(isActiveNow('weekends', at(FRI, 23))).toBe(false);
  });
  it('returns inactive for unparseable text', () => {
    expect(parseTimeWindow('')).toBeNull();
    expect(parseTimeWindow('ask the manager')).toBeNull();
    expect(isActiveNow('ask the manager', at(MON, 9))).toBe(false);
  });
});
