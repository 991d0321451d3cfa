// Random ids without a secure context: RFC 4122 v4 strings from getRandomValues alone (the page's
// crypto on Relay Web's http:// page has no UUID generator and no digest), the version and variant
// bits whatever the random bytes, and a last-resort fill where a page has no WebCrypto at all.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fillRandom, uuidV4 } from './ids';
import { stubNonSecurePage } from './nonSecureTest';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('uuidV4', () => {
  it('sets the version and variant bits whatever the random bytes are', () => {
    expect(uuidV4((b) => b.fill(0xff))).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    expect(uuidV4((b) => b.fill(0))).toBe('00000000-0000-4000-8000-000000000000');
    expect(uuidV4((b) => b.map((_, i) => i))).toBe('00010203-0405-4607-8809-0a0b0c0d0e0f');
  });

  it('works on a non-secure page: a crypto with getRandomValues only', () => {
    stubNonSecurePage();
    const getRandomValues = vi.spyOn(globalThis.crypto, 'getRandomValues');
    expect('randomUUID' in globalThis.crypto).toBe(false);
    expect(uuidV4()).toMatch(V4);
    expect(getRandomValues).toHaveBeenCalledTimes(1);
  });

  it('is unique and well formed over many draws with the real crypto', () => {
    const ids = new Set(Array.from({ length: 500 }, () => uuidV4()));
    expect(ids.size).toBe(500);
    for (const id of ids) expect(id).toMatch(V4);
  });

  it('still makes an id on a page without WebCrypto at all', () => {
    vi.stubGlobal('crypto', undefined);
    expect(fillRandom(new Uint8Array(16))).toHaveLength(16);
    expect(uuidV4()).toMatch(V4);
  });
});
