// PocketBaseTransport.brandingLogo: GET /api/relay/branding/logo/{kind} with the app token (and
// through the Relay Web gateway without a CSRF token, a read); a 200 answers the image/png bytes
// as a Blob, a 404 (no logo set) answers null, a 401 is a rejected TransportError (and the
// connection's auth is rejected like any other refused token), an unreachable server is network.
import { describe, expect, it } from 'vitest';
import { BRANDING_LOGO_PATH } from './pocketbase';
import { disposeAfterEach, json, signedInDirect, signedInGateway, type Reply } from './testkit';

const keep = disposeAfterEach();
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3]);
const png = () => new Response(PNG, { status: 200, headers: { 'Content-Type': 'image/png', 'X-Content-Type-Options': 'nosniff' } });
const signedIn = async (extra: Record<string, () => Reply>) => keep(await signedInDirect(extra));

describe('PocketBaseTransport brandingLogo', () => {
  it('reads the logo bytes with the app token', async () => {
    const t = await signedIn({ [`GET ${BRANDING_LOGO_PATH}company`]: png });
    const blob = await t.transport.brandingLogo('company');
    expect(blob).not.toBeNull();
    expect(blob!.type).toBe('image/png');
    expect(new Uint8Array(await blob!.arrayBuffer())).toEqual(PNG);
    const call = t.calls.find((c) => c.path === '/api/relay/branding/logo/company')!;
    expect(call.method).toBe('GET');
    expect(call.headers.get('Authorization')).toBe('tok-123');
    expect(t.last()).toBe('connected');
  });

  it('answers null when no logo is set (204)', async () => {
    const t = await signedIn({ [`GET ${BRANDING_LOGO_PATH}footer`]: () => new Response(null, { status: 204 }) });
    await expect(t.transport.brandingLogo('footer')).resolves.toBeNull();
  });

  it("answers null on an older server's 404 for no logo", async () => {
    const t = await signedIn({ [`GET ${BRANDING_LOGO_PATH}company`]: png });
    await expect(t.transport.brandingLogo('footer')).resolves.toBeNull();
    expect(t.calls.some((c) => c.path === '/api/relay/branding/logo/footer')).toBe(true);
  });

  it('maps a 401 to a rejected TransportError with the server message', async () => {
    const t = await signedIn({
      [`GET ${BRANDING_LOGO_PATH}footer`]: () => json(401, { status: 401, message: 'The request requires valid authorization token.', data: {} }),
    });
    await expect(t.transport.brandingLogo('footer')).rejects.toMatchObject({
      name: 'TransportError', kind: 'rejected', status: 401, message: 'The request requires valid authorization token.',
    });
    expect(t.last()).toBe('auth-failed');
  });

  it('maps other refusals and an unreachable server to TransportErrors', async () => {
    let reply: () => Reply = () => json(503, { status: 503, message: 'Branding is unavailable.', data: {} });
    const t = await signedIn({ [`GET ${BRANDING_LOGO_PATH}company`]: () => reply() });
    await expect(t.transport.brandingLogo('company')).rejects.toMatchObject({ kind: 'server', status: 503, message: 'Branding is unavailable.' });
    reply = () => new Response('<html>bad gateway</html>', { status: 502 });
    await expect(t.transport.brandingLogo('company')).rejects.toMatchObject({ kind: 'server', status: 502, message: 'Request failed (502).' });
    reply = () => json(429, { status: 429, message: 'Slow down.', data: {} }, { 'Retry-After': '7' });
    await expect(t.transport.brandingLogo('company')).rejects.toMatchObject({ kind: 'rate-limited', retryAfterSeconds: 7 });
    reply = () => 'network-error';
    await expect(t.transport.brandingLogo('company')).rejects.toMatchObject({ kind: 'network', status: 0 });
  });

  it('through the Relay Web gateway: the same path with the web token and no CSRF header', async () => {
    const { transport, calls } = keep(await signedInGateway({ [`GET ${BRANDING_LOGO_PATH}company`]: png }));
    const blob = await transport.brandingLogo('company');
    expect(blob?.size).toBe(PNG.length);
    const get = calls.find((c) => c.path === '/api/relay/branding/logo/company')!;
    expect(get.headers.get('Authorization')).toBe('web-tok');
    expect(get.headers.get('X-Relay-CSRF')).toBeNull();
  });
});
