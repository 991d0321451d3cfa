// Markup tests for the Status board (server-rendered, no DOM): one h1 with the "Command Center"
// subtitle, Updated <ago> and an aria-busy Refresh button, the loading and error states, filter
// chips (All + 14, aria-pressed), posture cards, impacted-first provider cards with summaries,
// the last error, https-only links opening in a new tab, the Mist region chips, and the feed
// sections with expandable plain-text items.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ProviderStatus, ServiceStatus, StatusItem } from '../../transport/types';
import { PROVIDER_IDS } from './status';
import type { StatusFeedState } from './statusFeed';
import { StatusBoard, type StatusBoardProps } from './StatusView';

const NOW = Date.parse('2026-12-03T18:02:00.000Z');
const item = (id: string, severity: StatusItem['severity'], extra: Partial<StatusItem> = {}): StatusItem => ({
  id, provider: 'x', title: `Title ${id}`, description: '', pubDate: NOW - 5 * 60_000, link: '', severity, ...extra,
});
const provider = (id: string, extra: Partial<ProviderStatus> = {}): ProviderStatus => ({
  id, label: id, short: id, statusPage: `https://status.example/${id}`, xUrl: null, downdetectorUrl: null,
  state: 'operational', items: [], error: null, checkedAt: '2026-12-03 18:00:00.000Z', lastSuccessAt: '2026-12-03 18:00:00.000Z', ...extra,
});
const data = (over: Record<string, Partial<ProviderStatus>> = {}): ServiceStatus => ({
  providers: PROVIDER_IDS.map((id) => provider(id, over[id])),
  lastUpdated: '2026-12-03 18:00:00.000Z',
  nextPollAt: null,
  refreshing: false,
});
const state = (extra: Partial<StatusFeedState> = {}): StatusFeedState => ({ data: null, loading: false, error: null, refreshing: false, notice: null, ...extra });
const render = (s: StatusFeedState, extra: Partial<StatusBoardProps> = {}) =>
  renderToStaticMarkup(<StatusBoard state={s} now={NOW} onRefresh={() => {}} onRetry={() => {}} {...extra} />);

const busy = data({
  github: {
    xUrl: 'https://x.com/githubstatus',
    downdetectorUrl: 'http://downdetector.com/status/github/',
    items: [
      item('g1', 'error', { description: '<img src=x onerror=alert(1)> API errors', link: 'https://www.githubstatus.com/incidents/g1', affectedScopes: ['API', 'Actions'] }),
      item('g2', 'resolved', { link: 'javascript:alert(1)' }),
    ],
  },
  jira: { items: [item('j1', 'warning')] },
  azure: { error: 'HTTP 503 from the feed' },
  mist_emea: { items: [item('m1', 'warning')] },
});

describe('StatusBoard', () => {
  it('first load: one h1, the subtitle and a loading state, no board yet', () => {
    const html = render(state({ loading: true }));
    expect(html.match(/<h1/g)).toHaveLength(1);
    expect(html).toContain('<h1 class="view-title">Status</h1>');
    expect(html).toContain('Command Center');
    expect(html).toMatch(/data-testid="status-loading"[^]*Loading status…/);
    expect(html).not.toContain('data-testid="status-filter"');
    expect(html).toMatch(/role="status" data-testid="status-notice"/); // the live region is always there
  });

  it('an error before any data is an inline message with a retry, not a blank screen', () => {
    const html = render(state({ error: 'Cannot reach the Relay server.' }));
    expect(html).toMatch(/role="alert" data-testid="status-error"[^]*Could not load service status\. Cannot reach the Relay server\./);
    expect(html).toContain('data-testid="status-retry"');
  });

  it('an error with data keeps the board and says it is stale', () => {
    const html = render(state({ data: busy, error: 'Cannot reach the Relay server.' }));
    expect(html).toContain('showing the last status received');
    expect(html).toContain('data-testid="status-card-github"');
  });

  it('header: Updated <ago>, Refresh with aria-busy while running, the refresh notice', () => {
    expect(render(state({ data: busy }))).toMatch(/data-testid="status-updated">Updated 2 min ago</);
    expect(render(state({ data: busy }))).toMatch(/aria-busy="false"[^>]*data-testid="status-refresh"/);
    const running = render(state({ data: busy, refreshing: true, notice: null }));
    expect(running).toMatch(/aria-busy="true" disabled=""[^>]*data-testid="status-refresh"[^]*Refreshing…/);
    const limited = render(state({ data: busy, notice: { text: 'Refreshed recently — try again in 12 s', tone: 'warn' } }));
    expect(limited).toMatch(/data-testid="status-notice">Refreshed recently — try again in 12 s</);
  });

  it('filter chips: All + 14, pressed state, impacted ones say their state', () => {
    const html = render(state({ data: busy }));
    const chips = [...html.matchAll(/data-testid="status-chip-([a-z0-9]+)"/g)].map((m) => m[1]);
    expect(chips).toEqual(['all', 'aws', 'azure', 'm365', 'jira', 'github', 'cloudflare', 'google', 'anthropic', 'openai', 'salesforce', 'mist', 'dynatrace', 'proofpoint', 'crowdstrike']);
    expect(html).toMatch(/aria-pressed="true" data-testid="status-chip-all"/);
    expect(html).toMatch(/data-testid="status-chip-github">[^]*?GitHub<span class="visually-hidden"> \(Outage\)<\/span>/);
  });

  it('posture cards: active issues with the top impacted, N of 14, worst, quiet', () => {
    const html = render(state({ data: busy }));
    expect(html).toMatch(/data-testid="posture-active"[^]*?>3<[^]*?GitHub, Jira, Mist/);
    expect(html).toMatch(/data-testid="posture-impacted"[^]*?>3 of 14</);
    expect(html).toMatch(/data-testid="posture-worst"[^]*?>Outage<[^]*?1 provider without current data/);
    expect(html).toMatch(/data-testid="posture-quiet"[^]*?>10 of 14</);
  });

  it('provider cards: impacted first, summaries, last error, https links in a new tab', () => {
    const html = render(state({ data: busy }));
    const cards = [...html.matchAll(/data-testid="status-card-([a-z0-9]+)"/g)].map((m) => m[1]);
    expect(cards.slice(0, 4)).toEqual(['github', 'jira', 'mist', 'aws']);
    expect(cards).toHaveLength(14);
    expect(html).toMatch(/data-testid="status-card-github"[^]*?1 active issue</);
    expect(html).toMatch(/data-testid="status-card-azure"[^]*?Feed unavailable<[^]*?Last check failed: HTTP 503 from the feed/);
    expect(html).toMatch(/data-testid="status-card-aws"[^]*?All services normal/);
    expect(html).toContain('<a href="https://x.com/githubstatus" target="_blank" rel="noopener noreferrer">X<span class="visually-hidden"> account of GitHub</span>');
    expect(html).not.toContain('http://downdetector.com');
    expect(html).not.toContain('javascript:');
    expect(html).toMatch(/data-testid="status-card-mist"[^]*?data-testid="status-mist-regions"[^]*?aria-pressed="true" data-testid="status-region-all"/);
  });

  it('a provider filter narrows the cards and the feed; the Mist region filter narrows Mist', () => {
    const gh = render(state({ data: busy }), { initialFilter: 'github' });
    expect([...gh.matchAll(/data-testid="status-card-([a-z0-9]+)"/g)].map((m) => m[1])).toEqual(['github']);
    expect(gh).not.toContain('Title j1');
    const mist = render(state({ data: busy }), { initialFilter: 'mist', initialRegion: 'apac' });
    expect(mist).toMatch(/data-testid="status-card-mist"[^]*?All services normal/);
    expect(mist).not.toContain('Title m1');
  });

  it('feed: Active / Recent / Resolved, collapsed items expand to plain text with scopes and times', () => {
    const closed = render(state({ data: busy }));
    expect(closed).toMatch(/data-testid="status-section-active"[^]*Active <span class="muted">\(3\)[^]*data-testid="status-section-recent"[^]*\(0\)[^]*data-testid="status-section-resolved"[^]*\(1\)/);
    const controls = /aria-expanded="false" aria-controls="([^"]+)"/.exec(closed)![1];
    expect(closed).toContain(`id="${controls}" class="status-item-body" hidden=""`);
    const open = render(state({ data: busy }), { initialExpanded: ['github:g1'] });
    expect(open).toMatch(/aria-expanded="true" aria-controls="[^"]+"[^>]*>[^]*?Title g1/);
    expect(open).toContain('&lt;img src=x onerror=alert(1)&gt; API errors'); // text, never HTML
    expect(open).not.toContain('<img');
    expect(open).toMatch(/<li class="pill">API<\/li><li class="pill">Actions<\/li>/);
    expect(open).toMatch(/<time dateTime="2026-12-03T17:57:00.000Z">/);
    expect(open).toContain('href="https://www.githubstatus.com/incidents/g1"');
  });
});
