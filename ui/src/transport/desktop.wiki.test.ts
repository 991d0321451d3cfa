// The desktop bridge's Wiki Save As (wiki_save_pdf) with a mocked window.__TAURI__: the PDF goes
// as the raw invoke body (the same bytes, no JSON or base64 copy), the suggested name
// percent-encoded and the checksum as headers; the answer gives the saved file's name, null when
// cancelled or malformed; refusals come through as BridgeRefusals with the shell's message.
import { describe, expect, it, vi } from 'vitest';
import { DesktopBridge } from './desktop';

const BYTES = new TextEncoder().encode('%PDF-1.7\n%%EOF\n');
const SUM = 'cd'.repeat(32);

function bridgeWith(reply: () => unknown) {
  const invoke = vi.fn(async (..._args: unknown[]) => reply());
  return { invoke, bridge: new DesktopBridge({ core: { invoke } }) };
}

describe('DesktopBridge.saveWikiPdf', () => {
  it('sends the bytes as the raw body with the name and checksum as headers', async () => {
    const { invoke, bridge } = bridgeWith(() => ({ saved: true, fileName: 'Réseau SOP.pdf' }));
    await expect(bridge.saveWikiPdf(BYTES, 'Réseau SOP.pdf', SUM)).resolves.toBe('Réseau SOP.pdf');
    expect(invoke).toHaveBeenCalledTimes(1);
    const [cmd, body, options] = invoke.mock.calls[0];
    expect(cmd).toBe('wiki_save_pdf');
    expect(body).toBe(BYTES);
    expect(options).toEqual({ headers: { 'x-relay-file-name': 'R%C3%A9seau%20SOP.pdf', 'x-relay-checksum': SUM } });
  });

  it('answers null when the dialog was cancelled or the answer is malformed', async () => {
    await expect(bridgeWith(() => ({ saved: false, fileName: null })).bridge.saveWikiPdf(BYTES, 'a.pdf', SUM)).resolves.toBeNull();
    await expect(bridgeWith(() => ({ saved: true })).bridge.saveWikiPdf(BYTES, 'a.pdf', SUM)).resolves.toBeNull();
    await expect(bridgeWith(() => null).bridge.saveWikiPdf(BYTES, 'a.pdf', SUM)).resolves.toBeNull();
  });

  it('rejects with the shell refusal, message as written', async () => {
    const { bridge } = bridgeWith(() => {
      throw { code: 'rejected', message: 'This PDF does not match the published document (checksum mismatch), so it was not saved.' };
    });
    await expect(bridge.saveWikiPdf(BYTES, 'a.pdf', SUM)).rejects.toMatchObject({ name: 'BridgeRefusal', code: 'rejected', message: expect.stringContaining('checksum mismatch') });
  });
});
