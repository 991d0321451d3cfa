// Tests for the status-bar wording of connection states.
import { describe, expect, it } from 'vitest';
import { CONNECTION_LABELS, connectionAnnouncement, connectionLabel, connectionTone, countLabel, dataView } from './connectionLabel';

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

describe('offline with nothing cached', () => {
  it('says so instead of claiming cached data', () => {
    expect(connectionLabel('offline', 'error')).toBe('Offline — no cached data');
    expect(connectionLabel('offline', 'loading')).toBe('Offline — no cached data');
    expect(connectionLabel('offline', 'ready')).toBe('Offline — using cached data');
    expect(connectionLabel('offline', null)).toBe('Offline — using cached data');
    expect(connectionLabel('connected', 'loading')).toBe('Connected');
  });
  it('a view is unavailable, not loading forever, when offline before its first load or after a failed one', () => {
    expect(dataView(['loading', 'ready'], 'offline')).toBe('unavailable');
    expect(dataView(['error', 'ready'], 'connected')).toBe('unavailable');
    expect(dataView(['loading'], 'auth-failed')).toBe('unavailable');
    expect(dataView(['loading', 'ready'], 'reconnecting')).toBe('loading');
    expect(dataView(['ready', 'ready'], 'offline')).toBe('ready');
  });
  it('shows no count for a collection that never loaded', () => {
    expect(countLabel(0, 'on-call rows', 'error')).toBe('');
    expect(countLabel(0, 'on-call rows', 'loading')).toBe('');
    expect(countLabel(1, 'on-call rows', 'ready')).toBe('1 on-call row');
    expect(countLabel(2, 'alarms', 'ready')).toBe('2 alarms');
  });
});

describe('connection announcements (status-bar live regions)', () => {
  it('announces a lost connection assertively and its return politely', () => {
    expect(connectionAnnouncement('connected', 'offline')).toEqual({ text: 'Connection lost: Offline — using cached data', politeness: 'assertive' });
    expect(connectionAnnouncement('connected', 'reconnecting')).toEqual({ text: 'Connection lost: Reconnecting…', politeness: 'assertive' });
    expect(connectionAnnouncement('reconnecting', 'auth-failed')?.politeness).toBe('assertive');
    expect(connectionAnnouncement('offline', 'connected')).toEqual({ text: 'Connection restored: Connected', politeness: 'polite' });
    expect(connectionAnnouncement('connecting', 'connected')?.politeness).toBe('polite');
  });

  it('says nothing for the first state, a repeat, or churn while already lost', () => {
    expect(connectionAnnouncement(null, 'offline')).toBeNull();
    expect(connectionAnnouncement('offline', 'offline')).toBeNull();
    expect(connectionAnnouncement('offline', 'reconnecting')).toBeNull();
    expect(connectionAnnouncement('reconnecting', 'offline')).toBeNull();
    expect(connectionAnnouncement('connected', 'connecting')).toBeNull();
  });
});
