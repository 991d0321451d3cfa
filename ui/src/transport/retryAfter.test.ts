// Tests for Retry-After parsing.
import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retryAfter';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-12-02T12:00:00Z');

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('42', now)).toBe(42);
    expect(parseRetryAfter(' 7 ', now)).toBe(7);
  });

  it('reads an HTTP-date relative to now, rounding up', () => {
    expect(parseRetryAfter('Wed, 02 Dec 2026 12:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Wed, 02 Dec 2026 12:00:30 GMT', now + 500)).toBe(30);
  });

  it('clamps dates in the past to 0', () => {
    expect(parseRetryAfter('Wed, 02 Dec 2026 11:59:00 GMT', now)).toBe(0);
  });

  it('returns undefined when absent or garbage', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});
