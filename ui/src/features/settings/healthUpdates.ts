// Every health snapshot a view reads, shared with the others: the open System health panel
// reads every 5 s and the status bar's notice every 15 s, so each tells the other what it saw
// and the two never disagree for long.
import type { SystemHealth } from '../../transport/types';

type Listener = (health: SystemHealth) => void;

const listeners = new Set<Listener>();

/** Tells every listener about a snapshot just read. */
export function publishHealth(health: SystemHealth): void {
  listeners.forEach((l) => l(health));
}

/** Subscribes to snapshots read elsewhere; returns the unsubscribe. */
export function onHealth(listener: Listener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
