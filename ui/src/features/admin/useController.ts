// The one way the Administration screens run a controller (admin session, Logos, Dynatrace, Wiki,
// laptop pairing): its state as React state, and start/stop tied to `running` (a section runs
// only while the session's role shows it) and to the component's lifetime.
import { useEffect, useSyncExternalStore } from 'react';

/** What a controller offers the screen (`ControllerStore` plus its start and stop). */
export interface RunnableController<S> {
  readonly subscribe: (listener: () => void) => () => void;
  readonly getState: () => S;
  start(): unknown;
  stop(): void;
}

/** `ctl`'s state; `ctl` runs while `running` is true and stops when it turns false or on unmount. */
export function useController<S>(ctl: RunnableController<S>, running = true): S {
  const state = useSyncExternalStore(ctl.subscribe, ctl.getState);
  useEffect(() => {
    if (!running) return;
    void ctl.start();
    return () => ctl.stop();
  }, [ctl, running]);
  return state;
}
