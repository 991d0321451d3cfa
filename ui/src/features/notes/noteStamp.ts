// A standalone note's "Updated 5 min ago" stamp (the relative wording of the Status and Radar
// feeds, status.ts formatAgo) with the exact local time for its title and the instant for
// <time dateTime>. Pure: the caller passes the clock.
import { parseDate } from '../../lib/dates';
import { formatAgo } from '../status/status';

export interface NoteStamp {
  /** "Updated 5 min ago". */
  text: string;
  /** "Updated Monday, January 5, 2026 at 12:00:00 PM" (this browser's locale and zone). */
  exact: string;
  /** The ISO instant. */
  iso: string;
}

/** The stamp of a note last updated at `updated` (a Relay timestamp), or null when it has none. */
export function noteStamp(updated: string | undefined, nowMs: number): NoteStamp | null {
  const at = parseDate(updated);
  if (!at) return null;
  return {
    text: `Updated ${formatAgo(at.getTime(), nowMs)}`,
    exact: `Updated ${at.toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'medium' })}`,
    iso: at.toISOString(),
  };
}
