// Tests for the connection-state reducer and its derivation.
import { describe, expect, it } from 'vitest';
import {
  ConnectionTracker,
  deriveConnectionState,
  initialFacts,
  probeIntervalMs,
  reduceConnection,
  type ConnectionEvent,
} from './connection';
import type { ConnectionState } from './types';

function run(...events: ConnectionEvent[]): ConnectionState {
  return deriveConnectionState(events.reduce(reduceConnection, initialFacts));
}

const signedIn: ConnectionEvent[] = [{ type: 'sign-in-start' }, { type: 'sign-in-ok' }];

describe('deriveConnectionState', () => {
  it('starts as connecting, also while signing in', () => {
    expect(run()).toBe('connecting');
    expect(run({ type: 'sign-in-start' })).toBe('connecting');
    expect(run({ type: 'server-ok' })).toBe('connecting');
  });

  it('is connected after a successful sign-in, with or without realtime', () => {
    expect(run(...signedIn)).toBe('connected');
    expect(run(...signedIn, { type: 'realtime-connected' })).toBe('connected');
  });

  it('reports offline when the server cannot be reached', () => {
    expect(run(...signedIn, { type: 'network-error' })).toBe('offline');
    expect(run({ type: 'sign-in-start' }, { type: 'sign-in-inconclusive', reachable: false })).toBe('offline');
  });

  it('recovers from offline when the probe succeeds again', () => {
    expect(run(...signedIn, { type: 'network-error' }, { type: 'server-ok' })).toBe('connected');
  });

  it('reports reconnecting while the realtime link is lost but the server answers', () => {
    const lost: ConnectionEvent[] = [...signedIn, { type: 'realtime-connected' }, { type: 'realtime-lost' }];
    expect(run(...lost)).toBe('reconnecting');
    expect(run(...lost, { type: 'server-ok' })).toBe('reconnecting');
    expect(run(...lost, { type: 'network-error' })).toBe('offline');
    expect(run(...lost, { type: 'realtime-connected' })).toBe('connected');
    expect(run(...lost, { type: 'realtime-idle' })).toBe('connected');
  });

  it('reports auth-failed when the server rejects the passphrase', () => {
    expect(run({ type: 'sign-in-start' }, { type: 'auth-rejected' })).toBe('auth-failed');
    expect(run(...signedIn, { type: 'auth-rejected' })).toBe('auth-failed');
  });

  it('never lets a network failure erase a confirmed rejection', () => {
    const rejected: ConnectionEvent[] = [{ type: 'sign-in-start' }, { type: 'auth-rejected' }];
    expect(run(...rejected, { type: 'network-error' })).toBe('auth-failed');
    expect(run(...rejected, { type: 'realtime-lost' })).toBe('auth-failed');
    expect(run(...rejected, { type: 'server-ok' })).toBe('auth-failed');
    // A retry that cannot reach the server gives no new verdict.
    expect(
      run(...rejected, { type: 'sign-in-start' }, { type: 'sign-in-inconclusive', reachable: false }),
    ).toBe('auth-failed');
    expect(run(...rejected, { type: 'sign-in-start' }, { type: 'sign-in-inconclusive', reachable: true })).toBe(
      'auth-failed',
    );
  });

  it('clears a rejection only on a successful sign-in or sign-out', () => {
    const rejected: ConnectionEvent[] = [{ type: 'sign-in-start' }, { type: 'auth-rejected' }];
    expect(run(...rejected, ...signedIn)).toBe('connected');
    expect(run(...rejected, { type: 'signed-out' })).toBe('connecting');
  });

  it('an inconclusive attempt returns to connecting once the server is back', () => {
    expect(
      run({ type: 'sign-in-start' }, { type: 'sign-in-inconclusive', reachable: false }, { type: 'server-ok' }),
    ).toBe('connecting');
  });
});

describe('probeIntervalMs', () => {
  it('probes every 30 s while connected and every 5 s otherwise', () => {
    expect(probeIntervalMs('connected')).toBe(30_000);
    for (const s of ['connecting', 'offline', 'reconnecting', 'auth-failed'] as const) {
      expect(probeIntervalMs(s)).toBe(5_000);
    }
  });
});

describe('ConnectionTracker', () => {
  it('emits the current state on subscribe and only real changes after', () => {
    const t = new ConnectionTracker();
    const seen: ConnectionState[] = [];
    const off = t.subscribe((s) => seen.push(s));
    t.dispatch({ type: 'sign-in-start' });
    t.dispatch({ type: 'sign-in-ok' });
    t.dispatch({ type: 'server-ok' });
    t.dispatch({ type: 'network-error' });
    off();
    t.dispatch({ type: 'server-ok' });
    expect(seen).toEqual(['connecting', 'connected', 'offline']);
    expect(t.state).toBe('connected');
  });
});
