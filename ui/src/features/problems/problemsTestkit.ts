// Fixtures for the Problems tests: a fixed clock, PocketBase-style stamps, a problem record and
// a sync record (each overridable field by field).
import type { DynatraceProblem, ProblemSync } from './problems';

export const NOW = Date.parse('2026-12-05T12:00:00.000Z');
export const MIN = 60_000;
export const stamp = (ms: number) => new Date(ms).toISOString().replace('T', ' ');

export function problem(extra: Partial<DynatraceProblem> = {}): DynatraceProblem {
  return {
    id: extra.problemId ? `r${extra.problemId}` : 'r1',
    created: '2026-12-05 10:00:00.000Z',
    updated: '2026-12-05 10:00:00.000Z',
    problemId: 'p1',
    displayId: 'P-1',
    title: 'Checkout service failure rate increase',
    status: 'OPEN',
    severity: 'ERROR',
    impactLevel: 'SERVICES',
    startTime: stamp(NOW - 65 * MIN),
    endTime: '',
    rootCauseId: 'SERVICE-1',
    rootCauseName: 'checkout-api',
    affectedEntities: [{ id: 'SERVICE-1', type: 'SERVICE', name: 'checkout-api' }, { id: 'HOST-9', type: 'HOST', name: '' }],
    alertingProfiles: ['NOC'],
    emailSubject: '',
    emailSubjectStatus: '',
    environmentUrl: 'https://abc.apps.dynatrace.com',
    syncedAt: '',
    ...extra,
  };
}

export const sync = (extra: Partial<ProblemSync> = {}): ProblemSync => ({
  id: 's1',
  created: '',
  updated: '',
  key: 'problems',
  state: 'ok',
  lastAttemptAt: stamp(NOW - 2 * MIN),
  lastSuccessAt: stamp(NOW - 2 * MIN),
  lastReconciledAt: '',
  staleSince: '',
  nextRetryAt: '',
  error: '',
  consecutiveFailures: 0,
  resultTruncated: false,
  scopeSource: 'all',
  openCount: 1,
  ...extra,
});

