import { describe, expect, it } from 'vitest';
import { reportedHostname } from './usePresence';

describe('presence hostname report', () => {
  it('tells the server whether this is a browser or a desktop window (the server adds the address)', () => {
    expect(reportedHostname('relay-web')).toBe('browser');
    expect(reportedHostname('direct')).toBe('browser');
    expect(reportedHostname(undefined)).toBe('browser');
    expect(reportedHostname('desktop')).toBe('desktop');
  });
});
