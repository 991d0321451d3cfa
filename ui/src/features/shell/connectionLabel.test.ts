// Tests for the status-bar wording of connection states.
import { describe, expect, it } from 'vitest';
import { CONNECTION_LABELS, cachedAt, connectionAnnouncement, connectionLabel, connectionTone, countLabel, dataView } from './connectionLabel';

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
  it('desktop client mode: says from when the cached data is, or that nothing was cached yet', () => {
    const now = new Date(2026, 11, 3, 18, 30).getTime();
    const today = new Date(2026, 11, 3, 9, 5).getTime();
    const yesterday = new Date(2026, 11, 2, 23, 59).getTime();
    expect(connectionLabel('offline', 'ready', today, now)).toBe('Offline — showing cached data from 09:05');
    expect(connectionLabel('offline', 'ready', yesterday, now)).toBe('Offline — showing cached data from 2026-12-02 23:59');
    expect(connectionLabel('offline', 'error', 'missing', now)).toBe('Offline — no cached data yet');
    // Data from the server: online labels as ever, the generic offline wording when it stays on screen.
    expect(connectionLabel('connected', 'ready', null, now)).toBe('Connected');
    expect(connectionLabel('offline', 'ready', null, now)).toBe('Offline — using cached data');
    // Back online, an old cache mark says nothing about the connection.
    expect(connectionLabel('connected', 'ready', today, now)).toBe('Connected');
    expect(cachedAt(new Date(2026, 11, 3, 0, 0).getTime(), now)).toBe('00:00');
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
