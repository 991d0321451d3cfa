// The manual-refresh routine shared by the app-level feeds (Status, Radar): run the attempt,
// turn a 429 into "try again in N s" (shown for the Retry-After), any other failure into
// "Refresh failed: …", and hold the spinner at least `minSpinMs`. Plus the timer that clears
// the notice again. No React, no transport: the feed passes its own attempt and words.
import { isTransportError } from '../transport/types';

export type NoticeTone = 'info' | 'warn' | 'error';

export interface Notice {
  text: string;
  tone: NoticeTone;
}

/** How long a notice without a Retry-After stays up. */
export const NOTICE_MS = 8_000;

export interface ManualRefreshOptions {
  /** The refresh itself; it may resolve to a notice of its own (e.g. "already running"). */
  attempt: () => Promise<Notice | null>;
  /** The spinner shows at least this long. */
  minSpinMs: number;
  now: () => number;
  /** The rate-limited notice's text for a Retry-After (seconds, or undefined). */
  limitedText: (retryAfterSeconds: number | undefined) => string;
  /** Seconds a 429 without Retry-After keeps its notice up. */
  defaultRetrySecs: number;
  /** Any other failure in the operator's words (shown after "Refresh failed: "). */
  errorText: (err: unknown) => string;
}

export interface ManualRefreshResult {
  notice: Notice | null;
  /** How long the notice stays up. */
  noticeMs: number;
}

/** Runs one manual refresh; resolves once the minimum spin has passed. Never rejects. */
export async function runManualRefresh(o: ManualRefreshOptions): Promise<ManualRefreshResult> {
  const began = o.now();
  let notice: Notice | null = null;
  let noticeMs = NOTICE_MS;
  try {
    notice = await o.attempt();
  } catch (err) {
    if (isTransportError(err) && err.kind === 'rate-limited') {
      notice = { text: o.limitedText(err.retryAfterSeconds), tone: 'warn' };
      noticeMs = Math.max(1, err.retryAfterSeconds ?? o.defaultRetrySecs) * 1000;
    } else {
      notice = { text: `Refresh failed: ${o.errorText(err)}`, tone: 'error' };
    }
  }
  const left = o.minSpinMs - (o.now() - began);
  if (left > 0) await new Promise((r) => setTimeout(r, left));
  return { notice, noticeMs };
}

/** Clears a shown notice after its time; a newer notice (or none) replaces the pending clear. */
export class NoticeTimer {
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly expire: () => void) {}

  /** Schedule the clear for `notice` (nothing to schedule when it is null). */
  arm(notice: Notice | null, ms: number): void {
    this.clear();
    if (notice) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.expire();
      }, ms);
    }
  }

  clear(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
