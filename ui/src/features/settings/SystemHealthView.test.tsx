// Markup test for the System health table (server-rendered, no DOM): table semantics with a
// caption and header scopes, one row per subsystem with its state in words, restarts, the last
// error, and an accessible sparkline; plus database size and uptime.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ActorHealth, SystemHealth } from '../../transport/types';
import { SystemHealthTable } from './SystemHealthView';

const actor = (extra: Partial<ActorHealth> = {}): ActorHealth => ({
  state: 'running', restarts: 0, queueDepth: 0, lastError: null, lastErrorAt: null, lastReportMsAgo: 100,
  queueHistory: Array(30).fill(null).map((_, i) => (i > 25 ? i - 25 : null)), ...extra,
});

const health: SystemHealth = {
  status: 'degraded',
  version: '0.1.0',
  uptimeSecs: 3720,
  queueHistoryBucketSecs: 20,
  actors: {
    auth: actor({ state: 'restarting', restarts: 2, lastError: 'panic: injected fault', lastErrorAt: '2026-12-02 12:00:00.000Z' }),
    store: actor({ queueDepth: 4 }),
  },
  realtime: { clients: 3, droppedSlow: 0 },
  database: { sizeBytes: 5 * 1024 * 1024, pagesBytes: 4 * 1024 * 1024, walBytes: 1024 * 1024 },
};

describe('SystemHealthTable', () => {
  const html = renderToStaticMarkup(<SystemHealthTable health={health} />);

  it('is a real table: caption, column and row headers', () => {
    expect(html).toContain('<caption');
    expect(html.match(/<th scope="col">/g)).toHaveLength(6);
    expect(html).toMatch(/<th scope="row"><code>store<\/code><\/th>/);
  });

  it('shows each subsystem state in words, restarts, the error and the queue', () => {
    expect(html.indexOf('health-row-store')).toBeLessThan(html.indexOf('health-row-auth'));
    expect(html).toMatch(/data-state="restarting"[^]*Restarting/);
    expect(html).toMatch(/data-state="running"[^]*Running/);
    expect(html).toContain('panic: injected fault');
    expect(html).toMatch(/data-testid="health-restarts">2</);
    expect(html).toMatch(/data-testid="health-queue">4</);
  });

  it('labels the sparkline and shows database size and uptime', () => {
    expect(html).toMatch(/<svg[^>]*role="img"[^>]*aria-label="Queue depth over the last 10 minutes: peak 4, latest 4"/);
    expect(html).toMatch(/<path class="sparkline-line" d="M[^"]+"/);
    expect(html).toMatch(/data-testid="health-db-size">5\.0 MiB</);
    expect(html).toMatch(/data-testid="health-uptime">1 h 02 min</);
    expect(html).toContain('Some subsystems need attention');
  });
});
