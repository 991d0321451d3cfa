// Write gate + connection generation. Every disconnect/reconnect (any change into or out of
// 'connected') and every client replacement (new credentials after re-authentication) bumps a
// monotonically increasing generation. A collection is write-ready only once a list response
// fetched in the CURRENT generation has been installed; responses from an older generation are
// dropped by the store (they must neither install data nor reopen writes). Writes are also
// refused, without any request, while the browser is offline (desktop client mode queues them
// in the shell instead: see DataStores).
import { TransportError, type ConnectionState } from '../transport/types';

export const OFFLINE_WRITE_MESSAGE = 'You are offline — this change was not sent. Try again once Relay is reachable.';
export const SYNCING_WRITE_MESSAGE = 'Relay is resynchronising after a connection change — this change was not sent. Try again in a moment.';
export const SIGNED_OUT_WRITE_MESSAGE = 'Your session has ended — sign in again to save changes.';

export function browserOnline(): boolean {
  return typeof navigator === 'undefined' || navigator.onLine !== false;
}

export class WriteGate {
  private gen = 0;
  private state: ConnectionState | null = null;
  private readonly readyIn = new Map<string, number>();
  private readonly tracked = new Set<string>();

  constructor(private readonly online: () => boolean = browserOnline) {}

  get generation(): number {
    return this.gen;
  }

  /** Starts a new generation: every collection's readiness (and the write gate) closes. */
  bump(): number {
    return ++this.gen;
  }

  isCurrent(generation: number): boolean {
    return generation === this.gen;
  }

  /**
   * Follows the connection state; returns true when the generation was bumped
   * (the first observation only records the state).
   */
  observe(s: ConnectionState): boolean {
    const was = this.state;
    this.state = s;
    if (was === null || (was === 'connected') === (s === 'connected')) return false;
    this.bump();
    return true;
  }

  /** A store for `collection` exists: writes to it wait for its current-generation list. */
  track(collection: string): void {
    this.tracked.add(collection);
  }

  /** Installs readiness for `generation`; false (nothing changes) when that generation is over. */
  markReady(collection: string, generation: number): boolean {
    if (generation !== this.gen) return false;
    this.readyIn.set(collection, generation);
    return true;
  }

  isReady(collection: string): boolean {
    return this.readyIn.get(collection) === this.gen;
  }

  /** The server is unreachable: the browser is offline or the connection state says so. */
  get offline(): boolean {
    return !this.online() || this.state === 'offline';
  }

  /** Why a write to `collection` must not be sent now, or null when it may go. */
  refusal(collection?: string): TransportError | null {
    if (this.offline) {
      return new TransportError({ kind: 'network', status: 0, message: OFFLINE_WRITE_MESSAGE });
    }
    if (this.state === 'auth-failed') {
      return new TransportError({ kind: 'rejected', status: 0, message: SIGNED_OUT_WRITE_MESSAGE });
    }
    if (collection !== undefined && this.tracked.has(collection) && !this.isReady(collection)) {
      return new TransportError({ kind: 'network', status: 0, message: SYNCING_WRITE_MESSAGE });
    }
    return null;
  }
}
