// Header clock: local time (updates every minute); click for LA, Denver, Chicago, NY.
import { useEffect, useState } from 'react';

export const ZONES = [
  { label: 'Los Angeles', tz: 'America/Los_Angeles' },
  { label: 'Denver', tz: 'America/Denver' },
  { label: 'Chicago', tz: 'America/Chicago' },
  { label: 'New York', tz: 'America/New_York' },
];

const fmt = (d: Date, tz?: string) => d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', timeZone: tz });

export function WorldClock() {
  const [now, setNow] = useState(() => new Date());
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const id = setInterval(() => setNow(new Date()), 60_000 - (Date.now() % 60_000));
    return () => clearInterval(id);
  }, [now]);
  return (
    <div className="clock">
      <button type="button" className="button button-ghost" data-testid="clock" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        {fmt(now)}
      </button>
      {open && (
        <div className="popover" role="dialog" aria-label="World clock" data-testid="clock-popover">
          {ZONES.map((z) => (
            <div key={z.tz} className="popover-row">
              <span className="muted">{z.label}</span>
              <span>{fmt(now, z.tz)}</span>
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
