// Presence: the hostname a window reports, and its tab id on a page that is not a secure
// context (Relay Web over http://, where crypto has no UUID generator): a v4 id, kept per tab.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubNonSecurePage } from '../../lib/nonSecureTest';
import { reportedHostname, TAB_ID_KEY, tabId } from './usePresence';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('presence hostname report', () => {
  it('tells the server whether this is a browser or a desktop window (the server adds the address)', () => {
    expect(reportedHostname('relay-web')).toBe('browser');
    expect(reportedHostname('direct')).toBe('browser');
    expect(reportedHostname(undefined)).toBe('browser');
    expect(reportedHostname('desktop')).toBe('desktop');
  });
});

describe('presence tab id on a non-secure (http://) page', () => {
  it('makes a v4 id without crypto.randomUUID and keeps it in sessionStorage', () => {
    const stored = new Map<string, string>();
    stubNonSecurePage();
    vi.stubGlobal('sessionStorage', { getItem: (k: string) => stored.get(k) ?? null, setItem: (k: string, v: string) => void stored.set(k, v) });
    const id = tabId();
    expect(id).toMatch(V4);
    expect(stored.get(TAB_ID_KEY)).toBe(id);
    expect(tabId()).toBe(id);
  });

  it('where sessionStorage is refused too, the fallback in the catch still makes an id', () => {
    stubNonSecurePage();
    vi.stubGlobal('sessionStorage', { getItem: () => { throw new DOMException('denied', 'SecurityError'); }, setItem: () => {} });
    expect(tabId()).toMatch(V4);
  });
});
