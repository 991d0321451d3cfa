// @vitest-environment jsdom
// Copy for Outlook on a page that is not a secure context (Relay Web on http://: no async
// clipboard, no ClipboardItem): the button says beforehand that only formatted text can be copied
// there, the click copies the card's HTML and text through the copy command, shows the notice
// `alert-copy-outlook-notice` (why there is no picture, that Save PNG works) until dismissed, and
// saves the alert to history like any export.
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { domRoot, flush } from '../../lib/domTest';
import { stubNonSecurePage } from '../../lib/nonSecureTest';
import type { Transport } from '../../transport/types';
import AlertsView from './AlertsView';
import { OUTLOOK_NO_PICTURE_HTTP } from './cardExport';
import { inApp } from '../../lib/domApp';

const dom = domRoot();

afterEach(() => {
  vi.unstubAllGlobals();
  delete (document as { execCommand?: unknown }).execCommand;
  localStorage.clear();
  sessionStorage.clear();
});

function fakeTransport() {
  const create = vi.fn(async (_c: string, data: object) => ({ id: 'rec1', created: '', updated: '', ...data }));
  const transport = {
    mode: 'relay-web',
    serverUrl: 'http://relay-server.lan:8090',
    list: async () => ({ items: [], page: 1, perPage: 50, totalItems: 0, totalPages: 0 }),
    getFullList: async () => [],
    subscribe: async () => () => {},
    onStateChange: (cb: (s: string) => void) => {
      cb('connected');
      return () => {};
    },
    create,
    brandingLogo: async () => null,
    authIdentity: () => null,
  } as unknown as Transport;
  return { transport, create };
}

describe('Copy for Outlook on a non-secure (http://) page', () => {
  it('copies the formatted card without the picture, says why, and saves to history', async () => {
    stubNonSecurePage();
    const copied: Record<string, string>[] = [];
    Object.defineProperty(document, 'execCommand', {
      configurable: true,
      value: vi.fn(() => {
        const data = new Map<string, string>();
        const event = new Event('copy', { bubbles: true, cancelable: true });
        Object.defineProperty(event, 'clipboardData', { value: { setData: (type: string, value: string) => void data.set(type, value) } });
        document.activeElement?.dispatchEvent(event);
        copied.push(Object.fromEntries(data));
        return true;
      }),
    });
    const { transport, create } = fakeTransport();
    const host = await dom.render(inApp(transport, <AlertsView />));
    await flush();
    const button = host.querySelector<HTMLButtonElement>('[data-testid="alert-copy-outlook"]')!;
    expect(button.title).toMatch(/http:\/\/ page.*Save PNG/);
    expect(host.querySelector('[data-testid="alert-copy-outlook-notice"]')).toBeNull();
    await act(async () => button.click());
    await flush();
    expect(copied).toHaveLength(1);
    expect(copied[0]['text/html']).toMatch(/^<table role="presentation"/);
    expect(copied[0]['text/plain']).toMatch(/^\[INFO\]/);
    const notice = host.querySelector('[data-testid="alert-copy-outlook-notice"]');
    expect(notice?.getAttribute('role')).toBe('status');
    expect(notice?.textContent).toContain(OUTLOOK_NO_PICTURE_HTTP);
    expect(create).toHaveBeenCalledWith('alert_history', expect.objectContaining({ severity: 'INFO' }));
    expect([...document.querySelectorAll('[data-testid="toast"]')].map((t) => t.textContent)).toContain('Alert card copied for Outlook as formatted text only (no picture on this http:// page: use Save PNG) and saved to history.');
    await act(async () => host.querySelector<HTMLButtonElement>('[data-testid="alert-copy-outlook-notice-dismiss"]')!.click());
    expect(host.querySelector('[data-testid="alert-copy-outlook-notice"]')).toBeNull();
  });
});
