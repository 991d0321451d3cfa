// Settings → Alert card: the time zone the alert card shows its event times in, for this device
// only (./cardZone; Central Time, America/Chicago, unless changed). New drafts enter their times
// in it too. Nothing goes to the server.
import { DEFAULT_CARD_ZONE, useCardZone, writeCardZone } from './cardZone';
import { zoneOptions } from './eventTimes';

export function CardZoneSetting() {
  const zone = useCardZone();
  return (
    <div className="panel card" data-testid="settings-alert-card">
      <h2>Alert card</h2>
      <label className="field-label" htmlFor="settings-card-zone">Time zone of the event times</label>
      <select id="settings-card-zone" className="input" data-testid="settings-card-zone" value={zone} onChange={(e) => writeCardZone(e.target.value)}>
        {zoneOptions(zone).map((z) => <option key={z} value={z}>{z.replace(/_/g, ' ')}{z === DEFAULT_CARD_ZONE ? ' (Central Time, default)' : ''}</option>)}
      </select>
      <p className="muted small">This device only. The card labels its times by severity (Started, Scheduled, When, Duration) and shows them in this zone; new alerts start with their times entered in it.</p>
    </div>
  );
}
