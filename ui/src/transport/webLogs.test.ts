// Browser log forwarding: bounded messages, module names, 20/min client-side budget,
// console + window error hooks, and no self-logging loop.
import { describe, expect, it, vi } from 'vitest';
import { LOG_MAX_MESSAGE, LogForwarder, installBrowserLogForwarding, moduleOf, type LogEntry } from './webLogs';

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('LogForwarder', () => {
  it('forwards with module names and truncates long messages', async () => {
    const got: LogEntry[] = [];
    const f = new LogForwarder(async (e) => (got.push(e), true));
    f.push('warn', 'console', ['[transport] slow', { ms: 12 }]);
    f.push('error', 'window', ['x'.repeat(9000)]);
    await flush();
    expect(got[0]).toEqual({ level: 'warn', module: 'transport', message: 'slow {"ms":12}' });
    expect(got[1].module).toBe('window');
    expect(got[1].message).toHaveLength(LOG_MAX_MESSAGE);
    expect(moduleOf('plain', 'console')).toEqual({ module: 'console', message: 'plain' });
  });

  it('sends at most 20 per minute and drops the rest', async () => {
    let t = 0;
    const sink = vi.fn(async () => true);
    const f = new LogForwarder(sink, () => t);
    for (let i = 0; i < 30; i++) f.push('error', 'console', [`e${i}`]);
    await flush();
    expect(sink).toHaveBeenCalledTimes(20);
    expect(f.dropped).toBe(10);
    t = 61_000;
    f.push('error', 'console', ['later']);
    await flush();
    expect(sink).toHaveBeenCalledTimes(21);
  });

  it('hooks console.warn/error and window error/unhandledrejection, and restores them', async () => {
    const got: LogEntry[] = [];
    const f = new LogForwarder(async (e) => (got.push(e), true));
    const listeners = new Map<string, (e: unknown) => void>();
    const target = {
      addEventListener: (t: string, l: (e: unknown) => void) => listeners.set(t, l),
      removeEventListener: (t: string) => listeners.delete(t),
    } as unknown as Window;
    const warn = vi.fn();
    const error = vi.fn();
    const con = { warn, error } as unknown as Console;
    const off = installBrowserLogForwarding(f, target, con);
    con.warn('careful');
    con.error(new Error('boom'));
    listeners.get('error')!({ message: 'bad', error: undefined, filename: 'app.js', lineno: 1, colno: 2 });
    listeners.get('unhandledrejection')!({ reason: 'nope' });
    await flush();
    expect(warn).toHaveBeenCalledWith('careful');
    expect(got.map((e) => [e.level, e.module])).toEqual([
      ['warn', 'console'],
      ['error', 'console'],
      ['error', 'window'],
      ['error', 'unhandledrejection'],
    ]);
    expect(got[1].message).toContain('boom');
    off();
    expect(con.warn).toBe(warn);
    expect(listeners.size).toBe(0);
  });
});
