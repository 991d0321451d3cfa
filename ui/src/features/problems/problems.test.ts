// The Problems tab rules: entity and profile readers, the list order, the status filter and
// text search, severity words and tones, durations, and the sync banner's plain words.
import { describe, expect, it } from 'vitest';
import {
  compareProblems,
  entitiesOf,
  filterProblems,
  formatDuration,
  formatIn,
  problemLabel,
  problemTimeText,
  profilesOf,
  severityLabel,
  severityTone,
  shownSubject,
  statusCounts,
  syncBanner,
  syncRecord,
} from './problems';

import { MIN, NOW, problem, stamp, sync } from './problemsTestkit';

describe('readers', () => {
  it('entities: the id stands in for a missing name; JSON strings are read; junk dropped', () => {
    expect(entitiesOf(problem())).toEqual([
      { id: 'SERVICE-1', name: 'checkout-api', type: 'SERVICE' },
      { id: 'HOST-9', name: 'HOST-9', type: 'HOST' },
    ]);
    expect(entitiesOf({ affectedEntities: '[{"id":"A","name":"a"}]' })).toEqual([{ id: 'A', name: 'a', type: '' }]);
    expect(entitiesOf({ affectedEntities: [null, 3, {}, { name: 'only' }] })).toEqual([{ id: '', name: 'only', type: '' }]);
    expect(entitiesOf({ affectedEntities: 'not json' })).toEqual([]);
  });
  it('profiles: strings only', () => {
    expect(profilesOf({ alertingProfiles: ['NOC', 3, '', 'DB'] })).toEqual(['NOC', 'DB']);
    expect(profilesOf({ alertingProfiles: null })).toEqual([]);
  });
  it('label: the display id, else the problem id', () => {
    expect(problemLabel(problem())).toBe('P-1');
    expect(problemLabel(problem({ displayId: '' }))).toBe('p1');
  });
});

describe('order and filter', () => {
  const openOld = problem({ problemId: 'a', startTime: stamp(NOW - 300 * MIN) });
  const openNew = problem({ problemId: 'b', startTime: stamp(NOW - 5 * MIN) });
  const closedNew = problem({ problemId: 'c', status: 'CLOSED', startTime: stamp(NOW - 1 * MIN), endTime: stamp(NOW) });
  const closedOld = problem({ problemId: 'd', status: 'CLOSED', title: 'Disk full on db-7', severity: 'RESOURCE_CONTENTION', startTime: stamp(NOW - 900 * MIN) });
  const all = [closedOld, openOld, closedNew, openNew];

  it('open first, newest start first', () => {
    expect([...all].sort(compareProblems).map((p) => p.problemId)).toEqual(['b', 'a', 'c', 'd']);
  });
  it('Open / Closed / All', () => {
    expect(filterProblems(all, 'open', '').map((p) => p.problemId)).toEqual(['b', 'a']);
    expect(filterProblems(all, 'closed', '').map((p) => p.problemId)).toEqual(['c', 'd']);
    expect(filterProblems(all, 'all', '').map((p) => p.problemId)).toEqual(['b', 'a', 'c', 'd']);
    expect(statusCounts(all)).toEqual({ open: 2, closed: 2, all: 4 });
  });
  it('search: every word, any case, across title, ids, severity words, root cause, entities, profiles', () => {
    expect(filterProblems(all, 'all', 'DISK db-7').map((p) => p.problemId)).toEqual(['d']);
    expect(filterProblems(all, 'all', 'resource').map((p) => p.problemId)).toEqual(['d']);
    expect(filterProblems(all, 'open', 'host-9 noc').map((p) => p.problemId)).toEqual(['b', 'a']);
    expect(filterProblems(all, 'all', 'checkout nothing-matches')).toEqual([]);
  });
});

describe('severity', () => {
  it('words and tones', () => {
    expect(severityLabel('PERFORMANCE')).toBe('Slowdown');
    expect(severityLabel('AVAILABILITY')).toBe('Availability');
    expect(severityLabel('SOMETHING_NEW')).toBe('Something new');
    expect(severityLabel('')).toBe('Unknown');
    expect(severityTone('AVAILABILITY')).toBe('critical');
    expect(severityTone('ERROR')).toBe('critical');
    expect(severityTone('RESOURCE_CONTENTION')).toBe('warning');
    expect(severityTone('CUSTOM_ALERT')).toBe('info');
  });
});

describe('time', () => {
  it('durations', () => {
    expect(formatDuration(30_000)).toBe('under 1 min');
    expect(formatDuration(45 * MIN)).toBe('45 min');
    expect(formatDuration(125 * MIN)).toBe('2 h 5 min');
    expect(formatDuration(120 * MIN)).toBe('2 h');
    expect(formatDuration((3 * 24 + 4) * 60 * MIN)).toBe('3 d 4 h');
    expect(formatIn(NOW + 40_000, NOW)).toBe('in 40 s');
    expect(formatIn(NOW + 3 * MIN, NOW)).toBe('in 3 min');
    expect(formatIn(NOW - 1, NOW)).toBe('now');
  });
  it('open: age since start; closed: how long it lasted and when it closed', () => {
    expect(problemTimeText(problem(), NOW)).toBe('Open for 1 h 5 min');
    expect(problemTimeText(problem({ status: 'CLOSED', startTime: stamp(NOW - 5 * 60 * MIN), endTime: stamp(NOW - 3 * 60 * MIN) }), NOW)).toBe(
      'Lasted 2 h, closed 3 h ago',
    );
    expect(problemTimeText(problem({ status: 'CLOSED', endTime: '' }), NOW)).toBe('Closed, started 1 h ago');
    expect(problemTimeText(problem({ startTime: '' }), NOW)).toBe('Start time unknown');
  });
});

describe('sync banner', () => {
  it('the singleton record', () => {
    expect(syncRecord([])).toBeNull();
    expect(syncRecord([sync({ id: 'x', key: 'other' }), sync({ id: 'y' })])?.id).toBe('y');
  });
  it('no record yet: waiting for the first check', () => {
    expect(syncBanner(null, NOW, 'direct')).toMatchObject({ tone: 'info', title: 'Waiting for the first Dynatrace check', notConfigured: false });
  });
  it('disabled: the not-configured empty state', () => {
    const b = syncBanner(sync({ state: 'disabled' }), NOW, 'server-pc');
    expect(b.notConfigured).toBe(true);
    expect(b.title).toBe('Dynatrace is not configured');
    expect(b.details[0]).toMatch(/on this PC: Settings → Administration → Dynatrace/);
  });
  it('disabled, away from the server PC: the command on the server PC, never a screen this place lacks', () => {
    for (const place of ['direct', 'relay-web', 'laptop'] as const) {
      const [detail] = syncBanner(sync({ state: 'disabled' }), NOW, place).details;
      expect(detail).toMatch(/^Ask the administrator of the Relay server to run `relay dynatrace --data-dir DATA configure` and `relay dynatrace --data-dir DATA set-token` on the server PC/);
      expect(detail).not.toMatch(/^An Administrator sets/);
    }
  });
  it('error: the error in plain words, stale since, next retry, repeated failures', () => {
    const b = syncBanner(
      sync({ state: 'error', error: 'Dynatrace rejected the token.', staleSince: stamp(NOW - 12 * MIN), nextRetryAt: stamp(NOW + 4 * MIN), consecutiveFailures: 3 }),
      NOW,
      'direct',
    );
    expect(b.tone).toBe('error');
    expect(b.title).toBe('Dynatrace problems are not up to date');
    expect(b.details).toEqual([
      'Last error: Dynatrace rejected the token.',
      'The list is stale since 12 min ago.',
      'Next retry in 4 min.',
      '3 checks in a row have failed.',
    ]);
    expect(syncBanner(sync({ state: 'error', consecutiveFailures: 1 }), NOW, 'direct').details).toEqual(['The last check failed.', 'Last successful check 2 min ago.']);
  });
  it('truncated result: a warning (bool or 1)', () => {
    for (const resultTruncated of [true, 1]) {
      const b = syncBanner(sync({ resultTruncated }), NOW, 'relay-web');
      expect(b.tone).toBe('warning');
      expect(b.details[0]).toMatch(/10,000-result limit[^]*Ask the administrator of the Relay server to narrow the scope/);
    }
  });
  it('ok: up to date with the last check; syncing says so', () => {
    expect(syncBanner(sync(), NOW, 'direct')).toMatchObject({ tone: 'ok', title: 'Up to date — checked 2 min ago', details: [] });
    expect(syncBanner(sync({ state: 'syncing' }), NOW, 'direct')).toMatchObject({ tone: 'info', title: 'Checking Dynatrace…' });
  });
});

describe('notification subject', () => {
  it('is shown only while the notification recorded the problem\'s status', () => {
    const open = problem({ status: 'OPEN', emailSubject: 'Checkout down', emailSubjectStatus: 'OPEN' });
    expect(shownSubject(open)).toBe('Checkout down');
    expect(shownSubject({ ...open, status: 'CLOSED' })).toBe('');
    expect(shownSubject({ ...open, emailSubject: '' })).toBe('');
  });
});
