// Random ids (RFC 4122 version 4 UUID strings) for every page Relay runs on. WebCrypto's
// UUID generator exists only in a secure context, and Relay Web or a LAN browser opens Relay over
// plain http:// by the server's name, which is not one; `crypto.getRandomValues` is there on every
// page, so the 16 bytes come from it and this module sets the version and variant bits itself.
// The presence session id and the Dynatrace dashboard id use it; secureContext.test.ts keeps the
// secure-only generator out of ui/src.

/** Fills `bytes` with random values: the page's `crypto.getRandomValues`, or — only on a page
 * with no WebCrypto at all, which no supported browser is — Math.random (these ids are not secrets). */
export function fillRandom(bytes: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  const webCrypto = (globalThis as { crypto?: Partial<Crypto> }).crypto;
  if (typeof webCrypto?.getRandomValues === 'function') return webCrypto.getRandomValues(bytes);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return bytes;
}

/** A lowercase RFC 4122 v4 UUID, `xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx`, from `random`. */
export function uuidV4(random: (bytes: Uint8Array<ArrayBuffer>) => Uint8Array = fillRandom): string {
  const b = random(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40; // version 4
  b[8] = (b[8] & 0x3f) | 0x80; // variant 10xx
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
