// Browser log forwarding for Relay Web: console.warn/console.error and window
// error/unhandledrejection events go to POST /web/api/logs (session + CSRF), bounded
// (message ≤ 5000 chars, queue ≤ 50) and rate-limited client-side (20 per minute).
// Never logs its own failures (that would loop).

export const LOG_RATE_PER_MIN = 20;
export const LOG_MAX_MESSAGE = 5000;
export const LOG_MAX_QUEUE = 50;

export interface LogEntry {
  level: 'warn' | 'error';
  module: string;
  message: string;
}

export type LogSink = (e: LogEntry) => Promise<boolean>;

function text(v: unknown): string {
  if (v instanceof Error) return v.stack || `${v.name}: ${v.message}`;
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** `[module] message` → module; otherwise the fallback. */
export function moduleOf(message: string, fallback: string): { module: string; message: string } {
  const m = /^\[([\w.:/-]{1,40})\]\s*/.exec(message);
  return m ? { module: m[1], message: message.slice(m[0].length) } : { module: fallback, message };
}

/** Sliding-window limiter + bounded queue in front of a sink. Pure enough to unit-test. */
export class LogForwarder {
  private sent: number[] = [];
  private queue: LogEntry[] = [];
  private draining = false;
  dropped = 0;

  constructor(
    private readonly sink: LogSink,
    private readonly now: () => number = Date.now,
    private readonly perMinute = LOG_RATE_PER_MIN,
  ) {}

  push(level: LogEntry['level'], module: string, parts: unknown[]): void {
    const raw = parts.map(text).join(' ');
    const { module: mod, message } = moduleOf(raw, module);
    const entry: LogEntry = { level, module: mod.slice(0, 64), message: message.slice(0, LOG_MAX_MESSAGE) || '(empty)' };
    if (this.queue.length >= LOG_MAX_QUEUE) {
      this.dropped++;
      return;
    }
    this.queue.push(entry);
    void this.drain();
  }

  /** How many entries may go right now under the per-minute budget. */
  private budget(): number {
    const t = this.now();
    this.sent = this.sent.filter((s) => t - s < 60_000);
    return this.perMinute - this.sent.length;
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        if (this.budget() <= 0) {
          this.dropped += this.queue.length; // over budget: drop instead of piling up
          this.queue = [];
          break;
        }
        const e = this.queue.shift()!;
        this.sent.push(this.now());
        await this.sink(e).catch(() => false);
      }
    } finally {
      this.draining = false;
    }
  }
}

/** Hooks console.warn/error and window error events into `forwarder`; returns the uninstaller. */
export function installBrowserLogForwarding(
  forwarder: LogForwarder,
  target: Pick<Window, 'addEventListener' | 'removeEventListener'> = window,
  c: Console = console,
): () => void {
  const origWarn = c.warn;
  const origError = c.error;
  let inside = false;
  const wrap = (level: LogEntry['level'], orig: (...a: unknown[]) => void) =>
    function (this: unknown, ...args: unknown[]) {
      orig.apply(c, args);
      if (inside) return;
      inside = true;
      try {
        forwarder.push(level, 'console', args);
      } finally {
        inside = false;
      }
    };
  c.warn = wrap('warn', origWarn);
  c.error = wrap('error', origError);
  const onError = (e: ErrorEvent) => {
    const where = e.filename ? ` (${e.filename}:${e.lineno}:${e.colno})` : '';
    forwarder.push('error', 'window', [e.error ?? e.message, where]);
  };
  const onRejection = (e: PromiseRejectionEvent) => forwarder.push('error', 'unhandledrejection', [e.reason]);
  target.addEventListener('error', onError);
  target.addEventListener('unhandledrejection', onRejection);
  return () => {
    c.warn = origWarn;
    c.error = origError;
    target.removeEventListener('error', onError);
    target.removeEventListener('unhandledrejection', onRejection);
  };
}
