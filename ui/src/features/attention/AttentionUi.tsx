// The visible attention controls: the connection-loss banner (role=alert, with the time the
// connection was lost; gone once it is back) and the header's "Sound on/off" toggle
// (aria-pressed, per device; its hint says when the browser still waits for a gesture), its bell
// an inline SVG (components/Icons: no emoji font needed).
import { BellIcon, BellOffIcon } from '../../components/Icons';
import { CONNECTION_LABELS, cachedAt } from '../shell/connectionLabel';
import { useAttention } from './AttentionContext';
import { soundLabel } from './sound';

export function ConnectionBanner() {
  const { lostAt, connection } = useAttention();
  if (lostAt === null) return null;
  return (
    <div className="connection-banner" role="alert" data-testid="connection-banner">
      <strong>Connection lost</strong> at{' '}
      <time dateTime={new Date(lostAt).toISOString()} data-testid="connection-lost-at">{cachedAt(lostAt, Date.now())}</time>
      {' — '}
      {CONNECTION_LABELS[connection]}
    </div>
  );
}

/** `testId` tells the header's toggle from the one in the due popup (which covers the header). */
export function SoundToggle({ testId = 'sound-toggle' }: { testId?: string }) {
  const { sound, toggleSound } = useAttention();
  const { text, hint } = soundLabel(sound);
  return (
    <button type="button" className="button button-ghost sound-toggle" data-testid={testId} data-armed={sound.armed}
      aria-pressed={sound.enabled} title={hint} onClick={toggleSound}>
      {sound.enabled ? <BellIcon /> : <BellOffIcon />} {text}
    </button>
  );
}
