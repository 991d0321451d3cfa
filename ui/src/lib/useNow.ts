// The clock the feed views (Status, Radar) render "Updated <ago>" against.
import { useEffect, useState } from 'react';

/** Ticks `now` every `ms` so relative times stay current. */
export function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(id);
  }, [ms]);
  return now;
}

/** `useNow`, also moved on as soon as `data` changes (not only on the next tick). */
export function useNowSince(data: unknown, ms: number): number {
  const now = useNow(ms);
  const [shownAt, setShownAt] = useState(now);
  useEffect(() => setShownAt(Date.now()), [data]);
  return Math.max(now, shownAt);
}
