// Status-bar wording for each ConnectionState (and its visual tone).
import type { ConnectionState } from '../../transport/types';

export const CONNECTION_LABELS: Record<ConnectionState, string> = {
  connecting: 'Connecting…',
  connected: 'Connected',
  offline: 'Offline — using cached data',
  reconnecting: 'Reconnecting…',
  'auth-failed': 'Sign-in failed — check the passphrase in Settings',
};

export type Tone = 'ok' | 'warn' | 'bad';

export function connectionTone(s: ConnectionState): Tone {
  if (s === 'connected') return 'ok';
  if (s === 'connecting' || s === 'reconnecting') return 'warn';
  return 'bad';
}
