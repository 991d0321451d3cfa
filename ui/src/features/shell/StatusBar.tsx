// Bottom status bar: the transport's connection state label, and a tab-specific count.
import { useConnectionState } from '../../transport/context';
import { CONNECTION_LABELS, connectionTone } from './connectionLabel';

export function StatusBar({ right }: { right?: string }) {
  const state = useConnectionState();
  return (
    <footer className="statusbar">
      <span className={`status-dot tone-${connectionTone(state)}`} aria-hidden="true" />
      <span data-testid="status-connection" data-state={state} role="status">
        {CONNECTION_LABELS[state]}
      </span>
      <span className="statusbar-right" data-testid="status-count">
        {right}
      </span>
    </footer>
  );
}
