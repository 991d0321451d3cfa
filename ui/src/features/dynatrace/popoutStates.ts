// The desktop's Dynatrace popout states (relay-features §9), read from the shell's
// `dynatrace_popouts` by dashboard key: the words shown beside a dashboard (Live, Signed out,
// Blocked, Closed), which dashboards just went to a sign-in page (one warning toast each), and a
// hook that polls the shell every 2 s in the desktop main window (elsewhere there are no popouts
// and it returns an empty map without polling).
import { useEffect, useRef, useState } from 'react';
import { useTransport } from '../../transport/context';

export type PopoutStates = Readonly<Record<string, string>>;

const LABELS: Readonly<Record<string, string>> = {
  live: 'Live',
  authenticating: 'Signed out',
  blocked: 'Blocked',
  'load-failed': 'Load failed',
  closed: 'Closed',
};

/** The words for a popout state; null for a dashboard never opened (or an unknown state). */
export function popoutStateLabel(state: string | undefined): string | null {
  return state !== undefined && Object.prototype.hasOwnProperty.call(LABELS, state) ? LABELS[state] : null;
}

/** The keys whose popout moved to a sign-in page since `before`. */
export function newlySignedOut(before: PopoutStates, after: PopoutStates): string[] {
  return Object.keys(after).filter((k) => after[k] === 'authenticating' && before[k] !== 'authenticating');
}

/** Milliseconds between two reads of the shell's popout states. */
export const POPOUT_POLL_MS = 2_000;

/** The popout states, kept current; `onSignedOut` is called with the keys that just signed out. */
export function usePopoutStates(onSignedOut?: (keys: string[]) => void): PopoutStates {
  const transport = useTransport();
  const [states, setStates] = useState<PopoutStates>({});
  const latest = useRef<PopoutStates>({});
  const notify = useRef(onSignedOut);
  notify.current = onSignedOut;
  const read = transport.dynatracePopouts;
  useEffect(() => {
    if (!read) return undefined;
    let stopped = false;
    const tick = () => {
      read().then(
        (next) => {
          if (stopped) return;
          const gone = newlySignedOut(latest.current, next);
          latest.current = next;
          setStates(next);
          if (gone.length > 0) notify.current?.(gone);
        },
        () => {
          /* the shell is restarting or this is not the main window: try again on the next tick */
        },
      );
    };
    tick();
    const timer = setInterval(tick, POPOUT_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [read]);
  return states;
}
