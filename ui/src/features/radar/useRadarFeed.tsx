// React glue for the app-level RadarFeed: the Shell mounts <RadarFeedProvider> once (so the
// sidebar indicator and the Radar toasts work on every tab and the last board survives tab
// switches); the Radar view and the nav indicator read it with useRadarFeed().
import { createContext, useContext, useEffect, useMemo, useRef, useSyncExternalStore, type ReactNode } from 'react';
import { useToast } from '../../components/Toasts';
import { useTransport } from '../../transport/context';
import { RadarFeed, type RadarFeedState } from './radarFeed';

const RadarFeedContext = createContext<RadarFeed | null>(null);

export function RadarFeedProvider({ children }: { children: ReactNode }) {
  const transport = useTransport();
  const toast = useToast();
  const toastRef = useRef(toast);
  toastRef.current = toast;
  const feed = useMemo(() => new RadarFeed(transport, (t) => toastRef.current(t.kind, t.message)), [transport]);
  useEffect(() => {
    feed.start();
    return () => feed.stop();
  }, [feed]);
  return <RadarFeedContext.Provider value={feed}>{children}</RadarFeedContext.Provider>;
}

export function useRadarFeed(): { feed: RadarFeed; state: RadarFeedState } {
  const feed = useContext(RadarFeedContext);
  if (!feed) throw new Error('useRadarFeed() outside <RadarFeedProvider>');
  const state = useSyncExternalStore(feed.subscribe, feed.getSnapshot, feed.getSnapshot);
  return { feed, state };
}
