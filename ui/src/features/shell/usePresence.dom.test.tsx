// @vitest-environment jsdom
// The black page after sign-in on Relay Web (issue #38): mounted on a page that is not a secure
// context — crypto without a UUID generator, `isSecureContext` false, no async clipboard — the
// presence hook still renders, sends its first heartbeat with a v4 session id kept for the tab,
// and shows the active-client snapshot.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { domRoot, flush } from '../../lib/domTest';
import { stubNonSecurePage } from '../../lib/nonSecureTest';
import { TransportProvider } from '../../transport/context';
import type { PresenceSnapshot, Transport } from '../../transport/types';
import { SESSION_KEY, usePresence } from './usePresence';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const dom = domRoot();

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

function Clients() {
  const snap = usePresence(() => {});
  return <p data-testid="client-count">{snap ? snap.activeCount : 'none'}</p>;
}

describe('presence on a non-secure (http://) page', () => {
  it('renders, heartbeats with a v4 session id and shows the snapshot', async () => {
    stubNonSecurePage();
    expect(globalThis.isSecureContext).toBe(false);
    expect('randomUUID' in globalThis.crypto).toBe(false);
    const snapshot: PresenceSnapshot = { activeCount: 2, active: [], heartbeatIntervalMs: 15_000, computedAt: '2026-01-01T00:00:00Z' };
    const heartbeat = vi.fn(async () => {});
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
    expect(sessionStorage.getItem(SESSION_KEY)).toBe(id);
    expect(host.querySelector('[data-testid="client-count"]')?.textContent).toBe('2');
  });
});
