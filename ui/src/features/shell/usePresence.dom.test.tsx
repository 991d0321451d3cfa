// @vitest-environment jsdom
// The black page after sign-in on Relay Web (issue #38): mounted on a page that is not a secure
// context — crypto without a UUID generator, `isSecureContext` false, no async clipboard — the
// presence hook still renders, sends its first heartbeat with a v4 tab id kept for the tab, and
// shows the active-client snapshot. And the connect toasts (#39.6): the list carries presence
// ids the server derives, never this tab's id, so the hook knows itself by the presence id its
// heartbeat answers; clients that appear later are toasted, this tab never is.
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { domRoot, flush } from '../../lib/domTest';
import { stubNonSecurePage } from '../../lib/nonSecureTest';
import { TransportProvider } from '../../transport/context';
import type { PresenceSession, PresenceSnapshot, Transport } from '../../transport/types';
import { PRESENCE_POLL_MS, TAB_ID_KEY, usePresence } from './usePresence';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const dom = domRoot();

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

function Clients() {
  const snap = usePresence(() => {});
  return <p data-testid="client-count">{snap ? snap.activeCount : 'none'}</p>;
}

describe('presence on a non-secure (http://) page', () => {
  it('renders, heartbeats with a v4 tab id and shows the snapshot', async () => {
    stubNonSecurePage();
    expect(globalThis.isSecureContext).toBe(false);
    expect('randomUUID' in globalThis.crypto).toBe(false);
    const snapshot: PresenceSnapshot = { activeCount: 2, active: [], heartbeatIntervalMs: 15_000, computedAt: '2026-01-01T00:00:00Z' };
    const heartbeat = vi.fn(async () => ({ sessionId: 'p-me', hostname: 'Web · Browser · 10.0.0.7', lastSeen: 'x' }));
    const transport = { mode: 'relay-web', heartbeat, presence: vi.fn(async () => snapshot) } as unknown as Transport;
    const host = await dom.render(
      <TransportProvider transport={transport}>
        <Clients />
      </TransportProvider>,
    );
    await flush();
    expect(heartbeat).toHaveBeenCalledTimes(1);
    const [[id, hostname]] = heartbeat.mock.calls as unknown as [[string, string]];
    expect(id).toMatch(V4);
    expect(hostname).toBe('browser');
    expect(sessionStorage.getItem(TAB_ID_KEY)).toBe(id);
    expect(host.querySelector('[data-testid="client-count"]')?.textContent).toBe('2');
  });
});

describe('presence connect toasts', () => {
  const client = (sessionId: string, hostname: string): PresenceSession => ({ sessionId, hostname, lastSeen: 'x' });
  const snapshotOf = (active: PresenceSession[]): PresenceSnapshot => ({ activeCount: active.length, active, heartbeatIntervalMs: 15_000, computedAt: 'x' });

  it('toasts clients that appear after the first snapshot, never this tab (known by the presence id its heartbeat answered)', async () => {
    vi.useFakeTimers();
    const me = client('p-me', 'Web · Browser · 10.0.0.7');
    const other = client('p-other', 'Desktop · 10.0.0.8');
    const newcomer = client('p-new', 'Web · Browser · 10.0.0.9');
    const snapshots = [snapshotOf([other]), snapshotOf([other, me, newcomer])];
    const presence = vi.fn(async () => snapshots.shift() ?? snapshotOf([other, me, newcomer]));
    const heartbeat = vi.fn(async (tab: string) => {
      expect(tab).not.toBe(me.sessionId);
      return me;
    });
    const transport = { mode: 'relay-web', heartbeat, presence } as unknown as Transport;
    const toasts: string[] = [];
    function Toaster() {
      usePresence((hostname) => toasts.push(hostname));
      return null;
    }
    await dom.render(
      <TransportProvider transport={transport}>
        <Toaster />
      </TransportProvider>,
    );
    await flush();
    expect(presence).toHaveBeenCalledTimes(1);
    await act(async () => vi.advanceTimersByTime(PRESENCE_POLL_MS));
    await flush();
    expect(presence).toHaveBeenCalledTimes(2);
    expect(toasts).toEqual(['Web · Browser · 10.0.0.9']);
  });
});
