// React glue for the app-level RadarFeed: the Shell mounts <RadarFeedProvider> once (so the
// sidebar indicator and the Radar toasts work on every tab and the last board survives tab
// switches); the Radar view and the nav indicator read it with useRadarFeed().
import { createFeedContext } from '../../lib/feedContext';
import { RadarFeed, type RadarFeedState } from './radarFeed';

const radar = createFeedContext<RadarFeed, RadarFeedState>('RadarFeed', (transport, toast) => new RadarFeed(transport, toast));

export const RadarFeedProvider = radar.Provider;
export const useRadarFeed = radar.useFeed;
