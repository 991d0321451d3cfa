// Shared scaffolding of the tests that play a page which is not a secure context (Relay Web or a
// LAN browser on http://<server name>:8090): `stubNonSecurePage` swaps the globals such a page
// has — `isSecureContext` false, a crypto with getRandomValues only (no UUID generator, no
// digest), no async clipboard and no ClipboardItem — for the test's duration; undo them with
// `vi.unstubAllGlobals()`. Test code only: nothing in the app imports it.
import { vi } from 'vitest';

const realCrypto = globalThis.crypto;

/** A crypto as a non-secure page has it: getRandomValues, nothing else. */
export function nonSecureCrypto(): Pick<Crypto, 'getRandomValues'> {
  return { getRandomValues: <T extends ArrayBufferView<ArrayBuffer>>(array: T): T => realCrypto.getRandomValues(array) };
}

/** Stubs the secure-context globals away (see the module comment). */
export function stubNonSecurePage(): void {
  vi.stubGlobal('isSecureContext', false);
  vi.stubGlobal('crypto', nonSecureCrypto());
  vi.stubGlobal('ClipboardItem', undefined);
  // jsdom's and Node's navigator have no clipboard already; a runtime that has one gets it hidden.
  if (typeof navigator !== 'undefined' && 'clipboard' in navigator) {
    const real = navigator;
    vi.stubGlobal('navigator', new Proxy(real, {
      has: (target, key) => key !== 'clipboard' && Reflect.has(target, key),
      get: (target, key) => {
        if (key === 'clipboard') return undefined;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }));
  }
}
