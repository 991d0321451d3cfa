// React glue for the app-level StatusFeed: the Shell mounts <StatusFeedProvider> once (so
// status toasts arrive on every tab and the last snapshot survives tab switches), and the
// Status view activates it and reads it with useStatusFeed().
import { createContext, useContext, useEffect, useMemo, useRef, useSyncExternalStore, type ReactNode } from 'react';
import { useToast } from '../../components/Toasts';
import { useTransport } from '../../transport/context';
import { StatusFeed, type StatusFeedState } from './statusFeed';

const StatusFeedContext = createContext<StatusFeed | null>(null);

export function StatusFeedProvider({ children }: { children: ReactNode }) {
  const transport = useTransport();
  const toast = useToast();
  const toastRef = useRef(toast);
  toastRef.current = toast;
  const feed = useMemo(() => new StatusFeed(transport, (t) => toastRef.current(t.kind, t.message)), [transport]);
  useEffect(() => {
    feed.start();
    return () => feed.stop();
  }, [feed]);
  return <StatusFeedContext.Provider value={feed}>{children}</StatusFeedContext.Provider>;
}

export function useStatusFeed(): { feed: StatusFeed; state: StatusFeedState } {
  const feed = useContext(StatusFeedContext);
  if (!feed) throw new Error('useStatusFeed() outside <StatusFeedProvider>');
  const state = useSyncExternalStore(feed.subscribe, feed.getSnapshot, feed.getSnapshot);
  return { feed, state };
}
