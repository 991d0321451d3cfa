// Bottom status bar: the transport's connection state label, and a tab-specific count.
import { useCollection } from '../../data/store';
import { useConnectionState, useTransport } from '../../transport/context';
import { CleartextWarning } from './CleartextWarning';
import { CONNECTION_LABELS, connectionTone } from './connectionLabel';
import { StabilityWarning } from './StabilityWarning';
import type { TabId } from './tabs';

const COUNTED: Partial<Record<TabId, [string, string]>> = {
  compose: ['bridge_groups', 'groups'],
  oncall: ['oncall', 'on-call rows'],
  notes: ['standalone_notes', 'notes'],
  people: ['contacts', 'contacts'],
  servers: ['servers', 'servers'],
  alerts: ['alert_reminders', 'alarms'],
};

/** The tab-specific count; its own component so collection updates re-render only this. */
function TabCount({ collection, noun }: { collection: string; noun: string }) {
  const n = useCollection(collection).items.length;
  return <>{`${n} ${n === 1 ? noun.replace(/s$/, "") : noun}`}</>;
}

export function StatusBar({ tab }: { tab?: TabId }) {
  const state = useConnectionState();
  const mode = useTransport().mode;
  const web = mode === 'relay-web';
  const counted = tab ? COUNTED[tab] : undefined;
  return (
    <footer className="statusbar">
      <span className={`status-dot tone-${connectionTone(state)}`} aria-hidden="true" />
      <span data-testid="status-connection" data-state={state} role="status">
        {CONNECTION_LABELS[state]}
      </span>
      {web && <CleartextWarning testId="cleartext-warning" />}
      {mode === 'desktop' && <StabilityWarning />}
      <span className="statusbar-right" data-testid="status-count">
        {counted && <TabCount collection={counted[0]} noun={counted[1]} />}
      </span>
    </footer>
  );
}
