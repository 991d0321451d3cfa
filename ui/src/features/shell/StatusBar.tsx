// Bottom status bar: the transport's connection state label, and a tab-specific count. Offline
// with the current tab's collection never loaded, the label says there is no cached data and
// no count is shown (an empty list is not "0 rows"); in desktop client mode it says from when
// the offline cache's data is, or that nothing was cached yet. The Alerts count is pending alarms only.
// Two always-present live regions announce connection changes: assertive when it is lost,
// polite when it comes back (connectionAnnouncement). Desktop client mode adds the offline
// queue (pending changes, replay progress, notices; QueueStatus). Every mode shows a notice while
// a server subsystem is degraded, which opens Settings → System health (HealthNotice).
import { useEffect, useRef, useState } from 'react';
import { useCollection } from '../../data/store';
import { useConnectionState, useTransport } from '../../transport/context';
import type { BaseRecord, ConnectionState } from '../../transport/types';
import { QueueStatus } from '../offline/QueueStatus';
import { CleartextWarning } from './CleartextWarning';
import { HealthNotice } from './HealthNotice';
import { connectionAnnouncement, connectionLabel, connectionTone, countLabel, type Announcement, type CacheMark } from './connectionLabel';
import { StabilityWarning } from './StabilityWarning';
import type { TabId } from './tabs';

interface Counted {
  collection: string;
  noun: string;
  /** Which records count (default: all). */
  counts?: (r: BaseRecord & Record<string, unknown>) => boolean;
}

export const COUNTED: Partial<Record<TabId, Counted>> = {
  compose: { collection: 'bridge_groups', noun: 'groups' },
  oncall: { collection: 'oncall', noun: 'on-call rows' },
  notes: { collection: 'standalone_notes', noun: 'notes' },
  people: { collection: 'contacts', noun: 'contacts' },
  servers: { collection: 'servers', noun: 'servers' },
  // Done and dismissed alarms stay in the collection (history) but are not "alarms" any more.
  alerts: { collection: 'alert_reminders', noun: 'pending alarms', counts: (r) => r.status === 'pending' },
};

function ConnectionText({ state, status, cached = null }: { state: ConnectionState; status: 'loading' | 'ready' | 'error' | null; cached?: CacheMark }) {
  return (
    <span data-testid="status-connection" data-state={state}>
      {connectionLabel(state, status, cached)}
    </span>
  );
}

/** Label + count for a tab backed by a collection; its own component so collection updates re-render only this. */
function CountedStatus({ state, counted }: { state: ConnectionState; counted: Counted }) {
  const col = useCollection<BaseRecord & Record<string, unknown>>(counted.collection);
  const n = counted.counts ? col.items.filter(counted.counts).length : col.items.length;
  return (
    <>
      <ConnectionText state={state} status={col.status} cached={col.cached} />
      <RightSide>{countLabel(n, counted.noun, col.status)}</RightSide>
    </>
  );
}

function RightSide({ children }: { children?: string }) {
  return <span className="statusbar-right" data-testid="status-count">{children}</span>;
}

/** Visually hidden live regions, rendered empty from the start so a change is announced. */
function ConnectionAnnouncer({ state }: { state: ConnectionState }) {
  const prev = useRef<ConnectionState | null>(null);
  const [said, setSaid] = useState<Announcement | null>(null);
  useEffect(() => {
    const a = connectionAnnouncement(prev.current, state);
    prev.current = state;
    if (a) setSaid(a);
  }, [state]);
  return (
    <>
      <span className="visually-hidden" role="status" aria-live="polite" data-testid="connection-live-polite">
        {said?.politeness === 'polite' ? said.text : ''}
      </span>
      <span className="visually-hidden" role="alert" aria-live="assertive" data-testid="connection-live-assertive">
        {said?.politeness === 'assertive' ? said.text : ''}
      </span>
    </>
  );
}

/** `onReviewChanges` opens the offline review dialog (desktop client mode's pending-changes badge). */
export function StatusBar({ tab, onReviewChanges }: { tab?: TabId; onReviewChanges: () => void }) {
  const state = useConnectionState();
  const mode = useTransport().mode;
  const web = mode === 'relay-web';
  const counted = tab ? COUNTED[tab] : undefined;
  return (
    <footer className="statusbar" aria-label="Status bar">
      <ConnectionAnnouncer state={state} />
      <span className={`status-dot tone-${connectionTone(state)}`} aria-hidden="true" />
      {counted ? <CountedStatus key={counted.collection} state={state} counted={counted} /> : <ConnectionText state={state} status={null} />}
      <HealthNotice />
      {web && <CleartextWarning testId="cleartext-warning" />}
      {mode === 'desktop' && <QueueStatus onOpen={onReviewChanges} />}
      {mode === 'desktop' && <StabilityWarning />}
      {!counted && <RightSide />}
    </footer>
  );
}
