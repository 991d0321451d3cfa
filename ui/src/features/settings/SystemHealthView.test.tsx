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
    expect(html).toContain('1 subsystem restarting or unresponsive: auth');
  });
});

describe('SystemHealthTable: degraded and not configured', () => {
  const feeds = actor({
    state: 'degraded',
    condition: { code: 'feeds_failing', reason: '17 of 17 feeds failing: cannot connect to http://127.0.0.1:9', failing: 17, total: 17, since: '2026-12-02 12:00:00.000Z' },
  });
  const dynatrace = actor({ state: 'unconfigured', condition: { code: 'not_configured', reason: 'Dynatrace is not configured (no environment URL and platform token).', since: '2026-12-02 11:00:00.000Z' } });
  const radar = actor({ state: 'degraded', condition: { code: 'sign_in_needed', reason: 'Sign-in needed: the server has no working Radar session.', since: '2026-12-02 11:00:00.000Z' } });
  const snapshot: SystemHealth = { ...health, status: 'degraded', actors: { store: actor(), status_feeds: feeds, dynatrace, radar } };

  it('never says all running while one is degraded; names them instead', () => {
    const html = renderToStaticMarkup(<SystemHealthTable health={snapshot} place="direct" />);
    expect(html).not.toContain('All subsystems running');
    expect(html).toMatch(/data-testid="health-overall" data-attention="true"[^>]*>⚠ 2 subsystems degraded: radar, status_feeds</);
  });

  it('a degraded row says so in words with its reason, since when, and what to do from here', () => {
    const html = renderToStaticMarkup(<SystemHealthTable health={snapshot} place="relay-web" />);
    expect(html).toMatch(/data-testid="health-row-status_feeds"[^]*?data-state="degraded"[^]*?Degraded<\/span>[^]*?data-code="feeds_failing">17 of 17 feeds failing: cannot connect to http:\/\/127\.0\.0\.1:9[^]*?since 2026-12-02 12:00:00\.000Z[^]*?data-testid="health-hint">The server PC needs outbound HTTPS/);
    expect(html).toMatch(/data-testid="health-row-radar"[^]*?Sign-in needed[^]*?data-testid="health-hint">Ask the administrator of the Relay server to run <code>relay radar --data-dir DATA sign-in<\/code> on the server PC/);
  });

  it('not configured is not in use: no check mark, the reason and the path that exists here', () => {
    const away = renderToStaticMarkup(<SystemHealthTable health={snapshot} place="direct" />);
    expect(away).toMatch(/data-testid="health-row-dynatrace"[^]*?data-state="unconfigured"><span class="pill health-off"><span aria-hidden="true">– <\/span>Not configured<\/span>[^]*?Dynatrace is not configured[^]*?<code>relay dynatrace --data-dir DATA configure<\/code>/);
    const here = renderToStaticMarkup(<SystemHealthTable health={snapshot} place="server-pc" />);
    expect(here).toMatch(/data-testid="health-row-dynatrace"[^]*?on this PC: Settings → Administration → Dynatrace/);
    const onlyUnconfigured = renderToStaticMarkup(<SystemHealthTable health={{ ...health, status: 'ok', actors: { store: actor(), dynatrace } }} />);
    expect(onlyUnconfigured).toMatch(/data-testid="health-overall" data-attention="false">✓ All subsystems in use are running; not configured: dynatrace</);
  });
});
