// Tests for sign-in error wording and the 429 retry message.
import { describe, expect, it } from 'vitest';
import { TransportError } from '../../transport/types';
import {
  TOO_MANY_NO_HINT,
  UNREACHABLE,
  WRONG_PASSPHRASE,
  describeSignInError,
  formatRetryMessage,
  secondsLeft,
} from './messages';

describe('formatRetryMessage', () => {
  it('formats whole seconds', () => {
    expect(formatRetryMessage(30)).toBe('Too many attempts, retry in 30 s');
    expect(formatRetryMessage(1)).toBe('Too many attempts, retry in 1 s');
  });

  it('rounds fractions up and never shows 0', () => {
    expect(formatRetryMessage(4.2)).toBe('Too many attempts, retry in 5 s');
    expect(formatRetryMessage(0)).toBe('Too many attempts, retry in 1 s');
  });

  it('falls back when the server gave no usable hint', () => {
    expect(formatRetryMessage(undefined)).toBe(TOO_MANY_NO_HINT);
    expect(formatRetryMessage(Number.NaN)).toBe(TOO_MANY_NO_HINT);
  });
});

describe('describeSignInError', () => {
  const err = (kind: TransportError['kind'], status: number, retryAfterSeconds?: number) =>
    new TransportError({ kind, status, message: 'server says no', retryAfterSeconds });

  it('explains a wrong passphrase', () => {
    expect(describeSignInError(err('rejected', 400))).toEqual({ message: WRONG_PASSPHRASE });
  });

  it('gives the retry delay on 429', () => {
    expect(describeSignInError(err('rate-limited', 429, 12))).toEqual({
      message: 'Too many attempts, retry in 12 s',
      retryAfterSeconds: 12,
    });
    expect(describeSignInError(err('rate-limited', 429))).toEqual({ message: TOO_MANY_NO_HINT });
  });

  it('separates unreachable from rejected', () => {
    expect(describeSignInError(err('network', 0)).message).toBe(UNREACHABLE);
  });

  it('passes the server message through for other failures', () => {
    expect(describeSignInError(err('server', 500)).message).toBe('Sign-in failed: server says no');
    expect(describeSignInError(new Error('x')).message).toBe('Sign-in failed unexpectedly.');
  });
});

describe('secondsLeft', () => {
  it('counts down and stops at 0', () => {
    expect(secondsLeft(10_000, 0)).toBe(10);
    expect(secondsLeft(10_000, 9_001)).toBe(1);
    expect(secondsLeft(10_000, 10_000)).toBe(0);
    expect(secondsLeft(10_000, 20_000)).toBe(0);
  });
});
