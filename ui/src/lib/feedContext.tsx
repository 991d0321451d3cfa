// React glue shared by the app-level feeds (Status, Radar): a context, a provider that builds
// one feed per transport (toasts routed to the current toast function), starts it on mount and
// stops it on unmount, and a hook returning the feed and its state (useSyncExternalStore).
import { createContext, useContext, useEffect, useMemo, useRef, useSyncExternalStore, type ReactNode } from 'react';
import { useToast } from '../components/Toasts';
import { useTransport } from '../transport/context';
import type { Transport } from '../transport/types';

/** What a feed needs to be bound: an external store with a start/stop lifecycle. */
export interface BindableFeed<S> {
  subscribe: (l: () => void) => () => void;
  getSnapshot: () => S;
  start(): void;
  stop(): void;
}

export type FeedToast = { kind: 'error' | 'warning'; message: string };

/** A provider and hook for one kind of feed; `name` words the outside-the-provider error. */
export function createFeedContext<F extends BindableFeed<S>, S>(
  name: string,
  make: (transport: Transport, toast: (t: FeedToast) => void) => F,
  /** The toasts' priority (TOAST_PRIORITY); normal unless said. */
  priority?: number,
) {
  const Context = createContext<F | null>(null);

  function Provider({ children }: { children: ReactNode }) {
    const transport = useTransport();
    const toast = useToast();
    const toastRef = useRef(toast);
    toastRef.current = toast;
    const feed = useMemo(() => make(transport, (t) => toastRef.current(t.kind, t.message, priority === undefined ? undefined : { priority })), [transport]);
    useEffect(() => {
      feed.start();
      return () => feed.stop();
    }, [feed]);
    return <Context.Provider value={feed}>{children}</Context.Provider>;
  }

  function useFeed(): { feed: F; state: S } {
    const feed = useContext(Context);
    if (!feed) throw new Error(`use${name}() outside <${name}Provider>`);
    const state = useSyncExternalStore(feed.subscribe, feed.getSnapshot, feed.getSnapshot);
    return { feed, state };
  }

  return { Provider, useFeed };
}
