// The Radar nav item's indicator: the overall colour as a dot plus the colour in words, and a
// queue-warning marker when a queue is deep. It sits inside the nav button after the "Radar"
// label: the visible parts (label included, see Sidebar) are aria-hidden and one visually hidden
// text says it all, so the button's accessible name is "Radar: red, queue warning" (Chromium
// would otherwise join the pieces as "Radar : red"). Nothing before the first answer.
import { radarIndicator, type RadarIndicator } from './radar';
import { useRadarFeed } from './useRadarFeed';

export function RadarIndicatorView({ indicator }: { indicator: RadarIndicator | null }) {
  if (!indicator) return null;
  const tone = indicator.text === 'sign-in needed' ? 'unknown' : indicator.color;
  return (
    <span
      className="radar-nav"
      data-testid="radar-indicator"
      data-color={indicator.color}
      data-queue-warning={indicator.queueWarning ? 'true' : 'false'}
      title={indicator.label}
    >
      <span className="visually-hidden">{indicator.label}</span>
      <span className={`radar-tone radar-tone-${tone} radar-nav-tone`} aria-hidden="true">
        <span className="radar-dot" />
        {indicator.text}
      </span>
      {indicator.queueWarning && (
        <span className="radar-nav-queue" aria-hidden="true" data-testid="radar-queue-warning">
          ▲ queue
        </span>
      )}
    </span>
  );
}

export function RadarNavIndicator() {
  const { state } = useRadarFeed();
  return <RadarIndicatorView indicator={radarIndicator(state.data)} />;
}
