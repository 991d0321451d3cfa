// The new-problem toast rule: creates of OPEN problems only, once per problem id, the wording,
// the tone, and the bounded memory.
import { describe, expect, it } from 'vitest';
import { ProblemToastRule } from './problemToasts';
import { problem } from './problemsTestkit';

describe('ProblemToastRule', () => {
  it('a created OPEN problem toasts once, keyed by its id; its updates and re-creates do not', () => {
    const rule = new ProblemToastRule();
    const p = problem({ problemId: 'p9', displayId: 'P-9', severity: 'AVAILABILITY', title: 'Website down' });
    expect(rule.offer({ action: 'create', record: p })).toEqual({ kind: 'error', message: 'New Dynatrace problem P-9 (Availability): Website down', key: 'p9' });
    expect(rule.offer({ action: 'update', record: p })).toBeNull();
    expect(rule.offer({ action: 'create', record: p })).toBeNull();
  });

  it('closed creates, updates of unknown problems, deletes and junk never toast', () => {
    const rule = new ProblemToastRule();
    expect(rule.offer({ action: 'create', record: problem({ problemId: 'c', status: 'CLOSED' }) })).toBeNull();
    expect(rule.offer({ action: 'update', record: problem({ problemId: 'u' }) })).toBeNull();
    expect(rule.offer({ action: 'delete', record: problem({ problemId: 'd' }) })).toBeNull();
    expect(rule.offer({ action: 'create', record: null })).toBeNull();
    expect(rule.offer({ action: 'create', record: { problemId: '' } })).toBeNull();
    // A problem first seen closed does not toast when it is later created open again.
    expect(rule.offer({ action: 'create', record: problem({ problemId: 'c' }) })).toBeNull();
  });

  it('slowdowns are warnings; long titles are cut', () => {
    const t = new ProblemToastRule().offer({ action: 'create', record: problem({ problemId: 'x', severity: 'PERFORMANCE', title: 'y'.repeat(500) }) });
    expect(t?.kind).toBe('warning');
    expect(t?.message.length).toBeLessThan(220);
  });

  it('remembers a bounded number of ids (the oldest forgotten first)', () => {
    const rule = new ProblemToastRule(2);
    for (const id of ['a', 'b', 'c']) expect(rule.offer({ action: 'create', record: problem({ problemId: id }) })).not.toBeNull();
    expect(rule.offer({ action: 'create', record: problem({ problemId: 'c' }) })).toBeNull();
    expect(rule.offer({ action: 'create', record: problem({ problemId: 'a' }) })).not.toBeNull();
  });
});
