// PocketBaseTransport.readSpreadsheet: the workbook's raw bytes are posted to
// /api/relay/spreadsheet/rows?sheet= as an .xlsx body with the app token (and the CSRF token
// through the Relay Web gateway, the same body again after a healed gateway 401); the rows come
// back as the server sent them; the server's refusals (413, 415, 422, 503) become TransportErrors
// carrying its operator-facing message unchanged.
import { describe, expect, it } from 'vitest';
import { XLSX_CONTENT_TYPE } from './pocketbase';
import { disposeAfterEach, json, signedInDirect, signedInGateway } from './testkit';

const keep = disposeAfterEach();
const PATH = '/api/relay/spreadsheet/rows';
const rows = { sheet: 'Servers', columns: ['name', 'os'], rows: [{ name: 'web-01', os: 'Linux' }, { name: 'db-01', os: '' }] };
const workbook = () => new Blob([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3])], { type: XLSX_CONTENT_TYPE });
const refusal = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  json(status, { status, message, data: { code } }, headers);

describe('readSpreadsheet', () => {
  it('posts the raw workbook with the sheet name and the app token, and answers the rows', async () => {
    const t = keep(await signedInDirect({ [`POST ${PATH}`]: () => json(200, rows) }));
    const file = workbook();
    await expect(t.transport.readSpreadsheet(file, 'bridge groups')).resolves.toEqual(rows);
    const call = t.calls.find((c) => c.path === PATH)!;
    expect(call.method).toBe('POST');
    expect(new URLSearchParams(call.search).get('sheet')).toBe('bridge groups');
    expect(call.body).toBe(file);
    expect(call.headers.get('Content-Type')).toBe(XLSX_CONTENT_TYPE);
    expect(call.headers.get('Authorization')).toBe('tok-123');
  });

  it('carries the CSRF token through the Relay Web gateway and resends the same bytes after a healed 401', async () => {
    let first = true;
    const t = keep(await signedInGateway({
      [`POST ${PATH}`]: () => {
        if (!first) return json(200, rows);
        first = false;
        return json(401, { status: 401, message: 'The token is no longer valid.', data: {} });
      },
    }));
    const file = workbook();
    await expect(t.transport.readSpreadsheet(file, 'servers')).resolves.toEqual(rows);
    const sent = t.calls.filter((c) => c.path === PATH);
    expect(sent).toHaveLength(2);
    for (const call of sent) {
      expect(call.headers.get('X-Relay-CSRF')).toBe('csrf-1');
      expect(call.headers.get('Authorization')).toBe('web-tok');
      expect(call.body).toBe(file);
    }
    expect(t.calls.filter((c) => c.path === '/web/api/connection')).toHaveLength(2); // sign-in + the heal
  });

  it('maps every refusal to a TransportError with the server message as written', async () => {
    let reply = () => refusal(415, 'not_a_workbook', 'The file is not an Excel .xlsx workbook.');
    const t = keep(await signedInDirect({ [`POST ${PATH}`]: () => reply() }));
    await expect(t.transport.readSpreadsheet(workbook(), 'servers')).rejects.toMatchObject({
      kind: 'server', status: 415, message: 'The file is not an Excel .xlsx workbook.', fieldErrors: {},
    });
    reply = () => refusal(422, 'duplicate_column', 'The column "name" appears more than once.');
    await expect(t.transport.readSpreadsheet(workbook(), 'servers')).rejects.toMatchObject({ status: 422, message: 'The column "name" appears more than once.' });
    reply = () => refusal(413, 'too_large', 'The workbook must be under 25 MB.');
    await expect(t.transport.readSpreadsheet(workbook(), 'servers')).rejects.toMatchObject({ status: 413, message: 'The workbook must be under 25 MB.' });
    reply = () => refusal(503, 'busy', 'Another spreadsheet is being read; retry in a moment.', { 'Retry-After': '1' });
    await expect(t.transport.readSpreadsheet(workbook(), 'servers')).rejects.toMatchObject({ kind: 'server', status: 503, message: 'Another spreadsheet is being read; retry in a moment.' });
    reply = () => json(404, { status: 404, message: 'Not found.', data: {} });
    await expect(t.transport.readSpreadsheet(workbook(), 'servers')).rejects.toMatchObject({ kind: 'not-found', status: 404 });
  });
});
