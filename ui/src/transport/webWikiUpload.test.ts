// Relay Web's Wiki upload hashes files and chunks on a page that is not a secure context (http://
// on the LAN: crypto without a digest), so its SHA-256 must not need WebCrypto at all.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubNonSecurePage } from '../lib/nonSecureTest';
import { sha256Bytes } from './webWikiUpload';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('sha256Bytes on a non-secure (http://) page', () => {
  it('is the lowercase hex SHA-256 without crypto.subtle', () => {
    stubNonSecurePage();
    expect('subtle' in globalThis.crypto).toBe(false);
    expect(sha256Bytes(new TextEncoder().encode('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Bytes(new Uint8Array(0))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
