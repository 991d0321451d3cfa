// Sign-in screen wording: turns a failed sign-in into the text the operator
// reads, including the 429 "retry in N s" countdown message.
import { isTransportError } from '../../transport/types';

export const EMPTY_PASSPHRASE = 'Enter the passphrase.';
export const WRONG_PASSPHRASE = 'Wrong passphrase. Check it and try again.';
export const UNREACHABLE = 'Cannot reach the Relay server. Check the network and try again.';
export const TOO_MANY_NO_HINT = 'Too many attempts, retry later';

/** "Too many attempts, retry in N s" — N is whole seconds, never below 1. */
export function formatRetryMessage(secondsLeft: number | undefined): string {
  if (secondsLeft === undefined || !Number.isFinite(secondsLeft)) return TOO_MANY_NO_HINT;
  return `Too many attempts, retry in ${Math.max(1, Math.ceil(secondsLeft))} s`;
}

export interface SignInFailure {
  message: string;
  /** Present for 429 with a usable Retry-After. */
  retryAfterSeconds?: number;
}

export function describeSignInError(err: unknown): SignInFailure {
  if (!isTransportError(err)) return { message: 'Sign-in failed unexpectedly.' };
  switch (err.kind) {
    case 'rejected':
      return { message: WRONG_PASSPHRASE };
    case 'rate-limited': {
      const secs = err.retryAfterSeconds;
      return secs !== undefined && secs > 0
        ? { message: formatRetryMessage(secs), retryAfterSeconds: secs }
        : { message: TOO_MANY_NO_HINT };
    }
    case 'network':
      return { message: UNREACHABLE };
    case 'aborted':
      return { message: 'Sign-in was cancelled.' };
    default:
      return { message: `Sign-in failed: ${err.message}` };
  }
}

/** Seconds left until `untilMs`, for the countdown; 0 once passed. */
export function secondsLeft(untilMs: number, nowMs: number): number {
  return Math.max(0, Math.ceil((untilMs - nowMs) / 1000));
}
