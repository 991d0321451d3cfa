// Rules of the Status tab: the 14 rows over 17 providers (Mist grouped, region filter), the
// worst-of roll-up with Unknown for missing/failed/never-checked data, posture, impacted-first
// order, card summaries, feed sections, https-only links, "ago" wording, payload hygiene, and
// the toast text and ~2 s batching of notice creates.
import { describe, expect, it, vi } from 'vitest';
import type { ProviderStatus, ServiceStatus, StatusItem } from '../../transport/types';
import {
  CLOUD_STATUS,
  CLOUD_STATUS_NOTICES,
  NoticeBatcher,
  PROVIDER_IDS,
  ROWS,
  batchToast,
  buildRows,
  feedSections,
  formatAgo,
  httpsUrl,
  normalizeStatus,
  noticeText,
  parseNotice,
  posture,
  providerState,
  refreshLimitedText,
  sortRows,
  summaryText,
  updatedText,
  worstOf,
} from './status';

const item = (id: string, severity: StatusItem['severity'], pubDate: number | null = 1_000, extra: Partial<StatusItem> = {}): StatusItem => ({
  id, provider: 'x', title: `T ${id}`, description: '', pubDate, link: '', severity, ...extra,
});

const provider = (id: string, extra: Partial<ProviderStatus> = {}): ProviderStatus => ({
  id, label: id, short: id, statusPage: `https://status.example/${id}`, xUrl: null, downdetectorUrl: null,
  state: 'operational', items: [], error: null, checkedAt: '2026-12-03 18:00:00.000Z', lastSuccessAt: '2026-12-03 18:00:00.000Z', ...extra,
});

/** A full healthy payload with some providers replaced. */
function payload(over: Record<string, Partial<ProviderStatus>> = {}, drop: string[] = []): ServiceStatus {
  return {
    providers: PROVIDER_IDS.filter((id) => !drop.includes(id)).map((id) => provider(id, over[id])),
    lastUpdated: '2026-12-03 18:00:00.000Z',
    nextPollAt: null,
    refreshing: false,
  };
}

const row = (rows: ReturnType<typeof buildRows>, id: string) => rows.find((r) => r.def.id === id)!;

describe('rows', () => {
  it('are 14 over 17 providers, Mist grouped, in canonical order', () => {
    expect(ROWS).toHaveLength(14);
    expect(ROWS.flatMap((r) => r.providers)).toEqual([...PROVIDER_IDS]);
    expect(ROWS.map((r) => r.id)).toEqual([
      'aws', 'azure', 'm365', 'jira', 'github', 'cloudflare', 'google', 'anthropic', 'openai', 'salesforce', 'mist', 'dynatrace', 'proofpoint', 'crowdstrike',
    ]);
    expect(buildRows(payload()).map((r) => r.summary)).toEqual(Array(14).fill('normal'));
  });

  it('exports the realtime collection names', () => {
    expect([CLOUD_STATUS, CLOUD_STATUS_NOTICES]).toEqual(['cloud_status', 'cloud_status_notices']);
  });
});

describe('worst-of roll-up', () => {
  it('orders outage > unknown > degraded > operational', () => {
    expect(worstOf([])).toBe('operational');
    expect(worstOf(['degraded', 'operational'])).toBe('degraded');
    expect(worstOf(['degraded', 'unknown'])).toBe('unknown');
    expect(worstOf(['unknown', 'outage', 'degraded'])).toBe('outage');
  });

  it('reads items, a failed feed, a missing provider and a never-checked one', () => {
    expect(providerState(provider('aws'))).toBe('operational');
    expect(providerState(provider('aws', { items: [item('a', 'warning')] }))).toBe('degraded');
    expect(providerState(provider('aws', { items: [item('a', 'error')], state: 'operational' }))).toBe('outage');
    expect(providerState(provider('aws', { error: 'timeout', items: [item('a', 'warning')] }))).toBe('unknown');
    expect(providerState(provider('aws', { error: 'timeout', items: [item('a', 'error')] }))).toBe('outage');
    expect(providerState(provider('aws', { items: [item('a', 'info'), item('b', 'resolved')] }))).toBe('operational');
    expect(providerState(undefined)).toBe('unknown');
    expect(providerState(provider('aws', { checkedAt: null, lastSuccessAt: null }))).toBe('unknown');
    expect(providerState(provider('aws', { state: 'unknown' }))).toBe('unknown');
  });

  it('Mist is the worst of its regions, and the region filter narrows it', () => {
    const p = payload({
      mist_emea: { items: [item('n1', 'error', 5, { affectedScopes: ['Wi-Fi'] })] },
      mist_apac: { items: [item('n1', 'error', 5), item('c9', 'warning', 4)] },
      mist_federal: { error: 'components fetch failed' },
    });
    const all = row(buildRows(p), 'mist');
    expect(all.state).toBe('outage');
    expect(all.items.map((i) => i.id)).toEqual(['n1', 'c9']); // one notice, de-duplicated
    expect(all.items[0].affectedScopes).toEqual(['Wi-Fi', 'EMEA', 'APAC']);
    expect(all.outages).toBe(1);
    expect(all.degraded).toBe(1);
    expect(all.lastError).toBe('Federal: components fetch failed');
    const down = payload(Object.fromEntries(['mist_global', 'mist_emea', 'mist_apac', 'mist_federal'].map((id) => [id, { error: 'notices fetch failed' }])));
    expect(row(buildRows(down), 'mist').lastError).toBe('notices fetch failed'); // every region: no region list
    const two = payload({ mist_emea: { error: 'x' }, mist_apac: { error: 'x' } });
    expect(row(buildRows(two), 'mist').lastError).toBe('EMEA, APAC: x');
    expect(row(buildRows(p, 'global'), 'mist').summary).toBe('normal');
    expect(row(buildRows(p, 'federal'), 'mist')).toMatchObject({ state: 'unknown', summary: 'feed-unavailable' });
    expect(row(buildRows(p, 'apac'), 'mist')).toMatchObject({ state: 'outage', active: 2 });
  });

  it('missing data is Unknown ("No data yet"), never an alert', () => {
    const rows = buildRows(payload({}, ['dynatrace', 'proofpoint', 'crowdstrike']));
    for (const id of ['dynatrace', 'proofpoint', 'crowdstrike']) {
      expect(row(rows, id)).toMatchObject({ state: 'unknown', summary: 'awaiting', impacted: false, active: 0 });
    }
    // The server's own word for a provider it has not polled yet.
    const unseen = row(buildRows(payload({ github: { state: 'unknown', error: 'Not checked yet', checkedAt: null, lastSuccessAt: null } })), 'github');
    expect(unseen).toMatchObject({ state: 'unknown', summary: 'awaiting', lastError: null, impacted: false });
    expect(summaryText(unseen)).toBe('No data yet');
    const none = buildRows(null);
    expect(none.every((r) => r.state === 'unknown' && !r.impacted)).toBe(true);
    expect(posture(none)).toMatchObject({ activeIssues: 0, impacted: 0, worstLabel: 'Unknown', quiet: 0 });
  });
});

describe('cards', () => {
  it('summaries: normal, N active issues, feed unavailable, status unknown with stale items', () => {
    const rows = buildRows(payload({
      github: { items: [item('g1', 'error'), item('g2', 'warning'), item('g3', 'resolved')] },
      jira: { items: [item('j1', 'warning')] },
      azure: { error: 'HTTP 503' },
      aws: { error: 'timeout', items: [item('a1', 'info')] },
    }));
    expect(summaryText(row(rows, 'github'))).toBe('2 active issues');
    expect(summaryText(row(rows, 'jira'))).toBe('1 active issue');
    expect(summaryText(row(rows, 'azure'))).toBe('Feed unavailable');
    expect(row(rows, 'azure').lastError).toBe('HTTP 503');
    expect(summaryText(row(rows, 'aws'))).toBe('Status unknown');
    expect(row(rows, 'aws').items).toHaveLength(1); // stale items still shown
    expect(summaryText(row(rows, 'm365'))).toBe('All services normal');
  });

  it('sort impacted first, then outages, then degradations, then canonical order', () => {
    const rows = buildRows(payload({
      crowdstrike: { items: [item('c', 'warning')] },
      jira: { items: [item('j1', 'warning'), item('j2', 'warning')] },
      salesforce: { items: [item('s', 'error')] },
      google: { items: [item('g', 'error')] },
      aws: { error: 'x' },
    }));
    expect(sortRows(rows).map((r) => r.def.id).slice(0, 6)).toEqual(['google', 'salesforce', 'jira', 'crowdstrike', 'aws', 'azure']);
  });

  it('links only https URLs (status page falls back to the catalogue)', () => {
    expect(httpsUrl('https://x.com/awscloud')).toBe('https://x.com/awscloud');
    expect(httpsUrl('http://x.com/awscloud')).toBeNull();
    expect(httpsUrl('javascript:alert(1)')).toBeNull();
    expect(httpsUrl('https://user:pw@evil.example/')).toBeNull();
    expect(httpsUrl('not a url')).toBeNull();
    expect(httpsUrl(null)).toBeNull();
    const rows = buildRows(payload({
      aws: { statusPage: 'javascript:alert(1)', xUrl: 'https://x.com/awscloud', downdetectorUrl: 'http://downdetector.com/status/aws/' },
    }));
    expect(row(rows, 'aws')).toMatchObject({ statusPage: 'https://health.aws.amazon.com/health/status', xUrl: 'https://x.com/awscloud', downdetectorUrl: null });
  });
});

describe('posture', () => {
  it('counts active issues, names the top 3 impacted, counts impacted of 14 and quiet', () => {
    const rows = buildRows(payload({
      github: { items: [item('g1', 'error'), item('g2', 'warning')] },
      jira: { items: [item('j1', 'warning')] },
      anthropic: { items: [item('c1', 'error')] },
      openai: { items: [item('o1', 'warning'), item('o2', 'info')] },
      azure: { error: 'timeout' },
    }));
    expect(posture(rows)).toEqual({
      activeIssues: 5,
      topImpacted: ['GitHub', 'Claude', 'Jira'],
      impacted: 4,
      total: 14,
      worst: 'outage',
      worstLabel: 'Outage',
      unknownRows: 1,
      quiet: 9,
    });
  });

  it('worst is Unknown when a feed errored over degradations, Degraded, or Normal', () => {
    expect(posture(buildRows(payload({ jira: { items: [item('j', 'warning')] }, azure: { error: 'x' } }))).worstLabel).toBe('Unknown');
    expect(posture(buildRows(payload({ jira: { items: [item('j', 'warning')] } }))).worstLabel).toBe('Degraded');
    expect(posture(buildRows(payload()))).toMatchObject({ worstLabel: 'Normal', quiet: 14, impacted: 0, topImpacted: [] });
  });
});

describe('feed', () => {
  it('Active (error+warning), Recent (info), Resolved; newest first, undated last', () => {
    const rows = buildRows(payload({
      github: { items: [item('g1', 'warning', 100), item('g2', 'resolved', 300), item('g3', 'info', null)] },
      aws: { items: [item('a1', 'error', 200), item('a2', 'info', 50)] },
    }));
    const f = feedSections(rows);
    expect(f.active.map((e) => e.key)).toEqual(['aws:a1', 'github:g1']);
    expect(f.recent.map((e) => e.key)).toEqual(['aws:a2', 'github:g3']);
    expect(f.resolved.map((e) => e.key)).toEqual(['github:g2']);
    expect(f.active[0].rowShort).toBe('AWS');
  });

  it('a filter to one row narrows the feed to it', () => {
    const rows = buildRows(payload({ github: { items: [item('g1', 'warning')] }, aws: { items: [item('a1', 'error')] } }));
    expect(feedSections(rows.filter((r) => r.def.id === 'github')).active.map((e) => e.key)).toEqual(['github:g1']);
  });
});

describe('time and refresh wording', () => {
  it('formats "ago"', () => {
    const now = 10_000_000;
    expect(formatAgo(now + 5_000, now)).toBe('just now');
    expect(formatAgo(now - 9_000, now)).toBe('just now');
    expect(formatAgo(now - 42_000, now)).toBe('42 s ago');
    expect(formatAgo(now - 5 * 60_000, now)).toBe('5 min ago');
    expect(formatAgo(now - 3 * 3_600_000, now)).toBe('3 h ago');
    expect(formatAgo(now - 50 * 3_600_000, now)).toBe('2 d ago');
  });

  it('reads the server timestamp for "Updated …"', () => {
    const now = Date.parse('2026-12-03T18:02:00.000Z');
    expect(updatedText('2026-12-03 18:00:00.000Z', now)).toBe('Updated 2 min ago');
    expect(updatedText(null, now)).toBe('Not updated yet');
    expect(updatedText('garbage', now)).toBe('Not updated yet');
  });

  it('says when a refresh may be tried again', () => {
    expect(refreshLimitedText(12)).toBe('Refreshed recently — try again in 12 s');
    expect(refreshLimitedText(undefined)).toBe('Refreshed recently — try again in 30 s');
  });
});

describe('payload hygiene', () => {
  it('drops unknown providers and malformed items, reads a bad state as unknown', () => {
    const s = normalizeStatus({
      providers: [
        { id: 'aws', state: 'bogus', items: [{ id: 'a', severity: 'error', title: 'Down', pubDate: 'x' }, { id: 'b', severity: 'panic' }, null], error: '' },
        { id: 'evil', state: 'outage', items: [] },
        'nope',
      ],
      lastUpdated: 5,
      refreshing: 'yes',
    });
    expect(s.providers.map((p) => p.id)).toEqual(['aws']);
    expect(s.providers[0]).toMatchObject({ state: 'unknown', error: null, xUrl: null });
    expect(s.providers[0].items).toEqual([{ id: 'a', provider: 'aws', title: 'Down', description: '', pubDate: null, link: '', severity: 'error' }]);
    expect(s).toMatchObject({ lastUpdated: null, refreshing: false });
    expect(normalizeStatus(null)).toEqual({ providers: [], lastUpdated: null, nextPollAt: null, refreshing: false });
  });
});

describe('toasts', () => {
  const notice = (provider: string, severity: string, title: string, episode = `${provider}:${title}`) => ({ provider, itemId: 'i', severity, title, episode });

  it('reads only well-formed error/warning notices', () => {
    expect(parseNotice(notice('github', 'error', 'API down'))).toMatchObject({ provider: 'github', severity: 'error' });
    expect(parseNotice(notice('github', 'info', 'x'))).toBeNull();
    expect(parseNotice(notice('github', 'error', '  '))).toBeNull();
    expect(parseNotice(null)).toBeNull();
  });

  it('says "<Short> Outage|Degraded: <title>" (Mist regions as Mist), long titles clipped', () => {
    expect(noticeText(parseNotice(notice('salesforce', 'error', 'Login failures'))!)).toBe('SFDC Outage: Login failures');
    expect(noticeText(parseNotice(notice('mist_emea', 'warning', 'Slow portal'))!)).toBe('Mist Degraded: Slow portal');
    expect(noticeText(parseNotice(notice('anthropic', 'error', 'x'.repeat(500)))!)).toHaveLength('Claude Outage: '.length + 160);
  });

  it('a batch is one toast: the first outage leads, "(+N more)"', () => {
    const b = [notice('jira', 'warning', 'Slow'), notice('github', 'error', 'Down'), notice('aws', 'error', 'EC2')].map((n) => parseNotice(n)!);
    expect(batchToast(b)).toEqual({ kind: 'error', message: 'GitHub Outage: Down (+2 more)' });
    expect(batchToast(b.slice(0, 1))).toEqual({ kind: 'warning', message: 'Jira Degraded: Slow' });
    expect(batchToast([])).toBeNull();
  });

  it('batches creates for 2 s, ignores other actions and repeated episodes', () => {
    vi.useFakeTimers();
    try {
      const emitted: unknown[] = [];
      const b = new NoticeBatcher((t) => emitted.push(t));
      expect(b.offer('update', notice('github', 'error', 'Down'))).toBe(false);
      expect(b.offer('delete', notice('github', 'error', 'Down'))).toBe(false);
      expect(b.offer('reload', { collectionName: 'cloud_status_notices' })).toBe(false);
      expect(b.offer('create', notice('github', 'error', 'Down'))).toBe(true);
      vi.advanceTimersByTime(1_500);
      expect(b.offer('create', notice('jira', 'warning', 'Slow'))).toBe(true);
      expect(b.offer('create', notice('github', 'error', 'Down'))).toBe(false); // same episode
      expect(emitted).toEqual([]);
      vi.advanceTimersByTime(500);
      expect(emitted).toEqual([{ kind: 'error', message: 'GitHub Outage: Down (+1 more)' }]);
      b.offer('create', notice('aws', 'warning', 'EC2'));
      vi.advanceTimersByTime(2_000);
      expect(emitted).toHaveLength(2);
      b.offer('create', notice('azure', 'error', 'VMs'));
      b.dispose();
      vi.advanceTimersByTime(5_000);
      expect(emitted).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
