// Header clock: local time (updates every minute); click for LA, Denver, Chicago, NY. The
// popover closes on Esc, a click or focus outside it, and when the tab changes.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useDismiss } from '../../components/dismiss';

export const ZONES = [
  { label: 'Los Angeles', tz: 'America/Los_Angeles' },
  { label: 'Denver', tz: 'America/Denver' },
  { label: 'Chicago', tz: 'America/Chicago' },
  { label: 'New York', tz: 'America/New_York' },
];

const fmt = (d: Date, tz?: string) => d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', timeZone: tz });

export function WorldClock({ tab }: { tab?: string }) {
  const [now, setNow] = useState(() => new Date());
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const close = useCallback(() => setOpen(false), []);
  useDismiss(open, root, close);
  useEffect(() => setOpen(false), [tab]);
  useEffect(() => {
    const id = setInterval(() => setNow(new Date()), 60_000 - (Date.now() % 60_000));
    return () => clearInterval(id);
  }, [now]);
  return (
    <div className="clock" ref={root}>
      <button type="button" className="button button-ghost" data-testid="clock" aria-expanded={open} aria-controls="world-clock" onClick={() => setOpen((o) => !o)}>
        {fmt(now)}
      </button>
      {open && (
        <div className="popover" id="world-clock" role="dialog" aria-label="World clock" data-testid="clock-popover">
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
