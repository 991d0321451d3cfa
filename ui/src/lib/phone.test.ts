import { describe, expect, it } from 'vitest';
import { formatPhone, sanitizePhone } from './phone';

describe('sanitizePhone', () => {
  it('turns 00 into + and keeps digits only', () => {
    expect(sanitizePhone('0091 99049 18167')).toBe('+919904918167');
    expect(sanitizePhone(' (555) 123-4567 ')).toBe('5551234567');
    expect(sanitizePhone('ext +44 20 7946 0958')).toBe('+442079460958');
  });
});

describe('formatPhone', () => {
  it('formats the documented shapes', () => {
    expect(formatPhone('5551234567')).toBe('(555) 123-4567');
    expect(formatPhone('15551234567')).toBe('(1) (555) 123-4567');
    expect(formatPhone('+919904918167')).toBe('+91 990 491 8167');
    expect(formatPhone('72705555')).toBe('(7) 270-5555');
    expect(formatPhone('5551234')).toBe('555-1234');
    expect(formatPhone('1234')).toBe('1234');
    expect(formatPhone('123456789')).toBe('123456789');
  });
  it('splits multiple numbers and long digit runs', () => {
    expect(formatPhone('5551234567 / 5557654321')).toBe('(555) 123-4567, (555) 765-4321');
    expect(formatPhone('55512345675557654321')).toBe('(555) 123-4567, (555) 765-4321');
  });
  it('returns empty for nothing', () => {
    expect(formatPhone('')).toBe('');
    expect(formatPhone(undefined)).toBe('');
  });
});

describe('international numbers keep their + (E.164)', () => {
  it('formats with the + and survives format-on-blur then sanitize-on-save', () => {
    const typed = '+44 20 7946 0958';
    const shown = formatPhone(typed);
    expect(shown).toBe('+44 207 946 0958');
    expect(sanitizePhone(shown)).toBe('+442079460958');
    expect(formatPhone(sanitizePhone(typed))).toBe(shown);
    for (const n of ['+15551234567', '+919904918167', '0044 20 7946 0958', '+353 1 234 5678', '+8613812345678']) {
      expect(sanitizePhone(formatPhone(n))).toBe(sanitizePhone(n));
      expect(sanitizePhone(n).startsWith('+')).toBe(true);
    }
  });
});
