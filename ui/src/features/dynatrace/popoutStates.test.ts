import { describe, expect, it } from 'vitest';
import { newlySignedOut, popoutStateLabel } from './popoutStates';

describe('popout states', () => {
  it('says each state in words and nothing for a dashboard never opened', () => {
    expect(popoutStateLabel('live')).toBe('Live');
    expect(popoutStateLabel('authenticating')).toBe('Signed out');
    expect(popoutStateLabel('blocked')).toBe('Blocked');
    expect(popoutStateLabel('closed')).toBe('Closed');
    expect(popoutStateLabel(undefined)).toBeNull();
    expect(popoutStateLabel('toString')).toBeNull();
  });

  it('reports a dashboard once when it goes to a sign-in page', () => {
    expect(newlySignedOut({}, { a: 'authenticating', b: 'live' })).toEqual(['a']);
    expect(newlySignedOut({ a: 'authenticating' }, { a: 'authenticating' })).toEqual([]);
    expect(newlySignedOut({ a: 'authenticating' }, { a: 'live' })).toEqual([]);
    expect(newlySignedOut({ a: 'live' }, { a: 'authenticating', b: 'closed' })).toEqual(['a']);
  });
});
