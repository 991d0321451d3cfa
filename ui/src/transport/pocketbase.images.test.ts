// PocketBaseTransport.prepareAlertImage: the image's raw bytes are posted to
// /api/relay/images/alert-body as application/octet-stream with the app token (and the CSRF token
// through the Relay Web gateway, the same bytes again after a healed gateway 401); the data URL
// comes back as the server wrote it; the server's refusals (413, 415, 422, 503) become
// TransportErrors carrying its operator-facing message unchanged.
import { describe, expect, it } from 'vitest';
import { ALERT_IMAGE_PATH } from './pocketbase';
import { disposeAfterEach, json, signedInDirect, signedInGateway } from './testkit';

const keep = disposeAfterEach();
const PATH = '/api/relay/images/alert-body';
const DATA_URL = 'data:image/png;base64,iVBORw0KGgo=';
const png = () => new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])], { type: 'image/png' });
const refusal = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  json(status, { status, message, data: { code } }, headers);

describe('prepareAlertImage', () => {
  it('posts the raw image with the app token and answers the data URL', async () => {
    expect(ALERT_IMAGE_PATH).toBe(PATH);
    const t = keep(await signedInDirect({ [`POST ${PATH}`]: () => json(200, { dataUrl: DATA_URL }) }));
    const file = png();
    await expect(t.transport.prepareAlertImage(file)).resolves.toBe(DATA_URL);
    const call = t.calls.find((c) => c.path === PATH)!;
    expect(call.method).toBe('POST');
    expect(call.body).toBe(file);
    expect(call.headers.get('Content-Type')).toBe('application/octet-stream');
    expect(call.headers.get('Authorization')).toBe('tok-123');
  });

  it('carries the CSRF token through the Relay Web gateway and resends the same bytes after a healed 401', async () => {
    let first = true;
    const t = keep(await signedInGateway({
      [`POST ${PATH}`]: () => {
        if (!first) return json(200, { dataUrl: DATA_URL });
        first = false;
        return json(401, { status: 401, message: 'The token is no longer valid.', data: {} });
      },
    }));
    const file = png();
    await expect(t.transport.prepareAlertImage(file)).resolves.toBe(DATA_URL);
    const sent = t.calls.filter((c) => c.path === PATH);
    expect(sent).toHaveLength(2);
    for (const call of sent) {
      expect(call.headers.get('X-Relay-CSRF')).toBe('csrf-1');
      expect(call.headers.get('Authorization')).toBe('web-tok');
      expect(call.body).toBe(file);
    }
  });

  it('maps every refusal to a TransportError with the server message as written', async () => {
    let reply = () => refusal(415, 'unsupported_format', 'Image must be a PNG, JPEG or WebP file');
    const t = keep(await signedInDirect({ [`POST ${PATH}`]: () => reply() }));
    await expect(t.transport.prepareAlertImage(png())).rejects.toMatchObject({
      kind: 'server', status: 415, message: 'Image must be a PNG, JPEG or WebP file', fieldErrors: {},
    });
    reply = () => refusal(413, 'too_large', 'Image must be under 5 MB');
    await expect(t.transport.prepareAlertImage(png())).rejects.toMatchObject({ status: 413, message: 'Image must be under 5 MB', fieldErrors: {} });
    reply = () => refusal(422, 'animated', 'Animated images are not supported');
    await expect(t.transport.prepareAlertImage(png())).rejects.toMatchObject({ status: 422, message: 'Animated images are not supported' });
    reply = () => refusal(503, 'busy', 'Another image is being processed; retry in a moment', { 'Retry-After': '1' });
    await expect(t.transport.prepareAlertImage(png())).rejects.toMatchObject({ kind: 'server', status: 503, message: 'Another image is being processed; retry in a moment' });
    reply = () => json(404, { status: 404, message: 'Not found.', data: {} });
    await expect(t.transport.prepareAlertImage(png())).rejects.toMatchObject({ kind: 'not-found', status: 404 });
  });

  it('refuses an answer without a data URL', async () => {
    const t = keep(await signedInDirect({ [`POST ${PATH}`]: () => json(200, { url: '/x.png' }) }));
    await expect(t.transport.prepareAlertImage(png())).rejects.toMatchObject({ kind: 'server', message: 'The server answered without an image.' });
  });
});
