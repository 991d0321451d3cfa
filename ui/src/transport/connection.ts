// Connection-state model shared by every Transport implementation: a pure
// reducer over observed facts (sign-in outcome, health probe, realtime link)
// plus the derivation of the single ConnectionState the UI shows.
import type { ConnectionState } from './types';

export interface ConnectionFacts {
  /** Sign-in progress of the current session. */
  auth: 'none' | 'pending' | 'ok';
  /**
   * The server definitively refused the passphrase / token. Sticky: only a
   * successful sign-in or an explicit sign-out clears it — never a network event.
   */
  rejected: boolean;
  /** Reachability as seen by the health probe and ordinary requests. */
  server: 'unknown' | 'up' | 'down';
  /** idle = no live subscriptions; lost = SSE dropped while subscriptions exist. */
  realtime: 'idle' | 'connected' | 'lost';
}

export type ConnectionEvent =
  | { type: 'sign-in-start' }
  | { type: 'sign-in-ok' }
  /** The attempt got no verdict: unreachable (network) or answered without one (429, 5xx). */
  | { type: 'sign-in-inconclusive'; reachable: boolean }
  | { type: 'auth-rejected' }
  | { type: 'server-ok' }
  | { type: 'network-error' }
  | { type: 'realtime-connected' }
  | { type: 'realtime-lost' }
  | { type: 'realtime-idle' }
  | { type: 'signed-out' };

export const initialFacts: ConnectionFacts = {
  auth: 'none',
  rejected: false,
  server: 'unknown',
  realtime: 'idle',
};

export function reduceConnection(s: ConnectionFacts, e: ConnectionEvent): ConnectionFacts {
  switch (e.type) {
    case 'sign-in-start':
      return { ...s, auth: 'pending' };
    case 'sign-in-ok':
      return { ...s, auth: 'ok', rejected: false, server: 'up' };
    case 'sign-in-inconclusive':
      // No verdict on the passphrase: a previous rejection stays in force.
      return {
        ...s,
        auth: s.auth === 'pending' ? 'none' : s.auth,
        server: e.reachable ? 'up' : 'down',
      };
    case 'auth-rejected':
      return { ...s, auth: 'none', rejected: true, server: 'up' };
    case 'server-ok':
      return { ...s, server: 'up' };
    case 'network-error':
      return { ...s, server: 'down' };
    case 'realtime-connected':
      return { ...s, realtime: 'connected', server: 'up' };
    case 'realtime-lost':
      return { ...s, realtime: 'lost' };
    case 'realtime-idle':
      return { ...s, realtime: 'idle' };
    case 'signed-out':
      return initialFacts;
  }
}

export function deriveConnectionState(s: ConnectionFacts): ConnectionState {
  if (s.rejected) return 'auth-failed';
  if (s.server === 'down') return 'offline';
  if (s.auth !== 'ok') return 'connecting';
  if (s.realtime === 'lost') return 'reconnecting';
  return 'connected';
}

/** Health-probe cadence: 30 s while connected, 5 s otherwise. */
export function probeIntervalMs(state: ConnectionState): number {
  return state === 'connected' ? 30_000 : 5_000;
}

export const PROBE_TIMEOUT_MS = 10_000;

/** Small observable wrapper so implementations only feed events. */
export class ConnectionTracker {
  private facts: ConnectionFacts = initialFacts;
  private current: ConnectionState = deriveConnectionState(initialFacts);
  private listeners = new Set<(s: ConnectionState) => void>();

  get state(): ConnectionState {
    return this.current;
  }

  get snapshot(): ConnectionFacts {
    return this.facts;
  }

  dispatch(e: ConnectionEvent): void {
    this.facts = reduceConnection(this.facts, e);
    const next = deriveConnectionState(this.facts);
    if (next === this.current) return;
    this.current = next;
    for (const l of [...this.listeners]) l(next);
  }

  subscribe(cb: (s: ConnectionState) => void): () => void {
    this.listeners.add(cb);
    cb(this.current);
    return () => {
      this.listeners.delete(cb);
    };
  }
}
