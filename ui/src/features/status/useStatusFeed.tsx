// React glue for the app-level StatusFeed: the Shell mounts <StatusFeedProvider> once (so
// status toasts arrive on every tab and the last snapshot survives tab switches), and the
// Status view activates it and reads it with useStatusFeed(). Its toasts have the lowest
// priority: Dynatrace problem toasts take their place when every slot is taken.
import { TOAST_PRIORITY } from '../../components/toastQueue';
import { createFeedContext } from '../../lib/feedContext';
import { StatusFeed, type StatusFeedState } from './statusFeed';

const status = createFeedContext<StatusFeed, StatusFeedState>('StatusFeed', (transport, toast) => new StatusFeed(transport, toast), TOAST_PRIORITY.status);

export const StatusFeedProvider = status.Provider;
export const useStatusFeed = status.useFeed;
