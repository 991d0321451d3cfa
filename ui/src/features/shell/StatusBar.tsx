// Bottom status bar: shows the transport's connection state label.
import { useConnectionState } from '../../transport/context';
import { CONNECTION_LABELS, connectionTone } from './connectionLabel';

export function StatusBar() {
  const state = useConnectionState();
  return (
    <footer className="statusbar">
      <span className={`status-dot tone-${connectionTone(state)}`} aria-hidden="true" />
      <span data-testid="status-connection" data-state={state} role="status">
        {CONNECTION_LABELS[state]}
      </span>
    </footer>
  );
}
