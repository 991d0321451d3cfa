// Tests for the status-bar wording of connection states.
import { describe, expect, it } from 'vitest';
import { CONNECTION_LABELS, connectionTone } from './connectionLabel';

describe('connection labels', () => {
  it('uses the agreed operator wording', () => {
    expect(CONNECTION_LABELS).toEqual({
      connecting: 'Connecting…',
      connected: 'Connected',
      offline: 'Offline — using cached data',
      reconnecting: 'Reconnecting…',
      'auth-failed': 'Sign-in failed — check the passphrase in Settings',
    });
  });

  it('only calls "connected" healthy', () => {
    expect(connectionTone('connected')).toBe('ok');
    expect(connectionTone('reconnecting')).toBe('warn');
    expect(connectionTone('connecting')).toBe('warn');
    expect(connectionTone('offline')).toBe('bad');
    expect(connectionTone('auth-failed')).toBe('bad');
  });
});
