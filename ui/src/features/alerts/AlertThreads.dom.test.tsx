// @vitest-environment jsdom
// History as alert threads: one line per thread (subject, severity, number of sends, last time)
// that expands to its sends in order with their sender; "Continue thread" loads the thread's last
// send as the server has it now (not the possibly stale synced copy) as UPDATE #N+1, and the next
// send writes into the same thread (the server numbers it) with its event times.
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { domRoot, flush } from '../../lib/domTest';
import { fakeTransport } from '../../lib/domTransport';
import { stubNonSecurePage } from '../../lib/nonSecureTest';
import AlertsView from './AlertsView';
import { inApp } from '../../lib/domApp';

const dom = domRoot();
beforeEach(() => {
  stubNonSecurePage();
  Object.defineProperty(document, 'execCommand', { configurable: true, value: vi.fn(() => true) });
});
afterEach(() => {
  vi.unstubAllGlobals();
  delete (document as { execCommand?: unknown }).execCommand;
  sessionStorage.clear();
});

const send = (id: string, updateNumber: number, created: string, extra: object = {}) => ({
  id, created, updated: created, threadId: 'vpn000000000001', updateNumber, severity: 'ISSUE', subject: 'VPN down', bodyHtml: 'Investigating',
  sender: `NOC ${updateNumber}`, recipient: '', pinned: false, label: '', eventStart: '', eventEnd: '', timeZone: 'UTC', ...extra,
});
const rows = [
  send('vpn000000000001', 0, '2026-12-07 08:00:00.000Z'),
  send('vpn000000000002', 1, '2026-12-07 09:00:00.000Z'),
  { id: 'old000000000001', created: '2026-01-01 08:00:00.000Z', updated: '', severity: 'INFO', subject: 'Old notice', bodyHtml: '', sender: '', recipient: '', pinned: false, label: '' },
];
// What the server has now: a third send another client made after this one synced.
const serverLast = send('vpn000000000003', 2, '2026-12-07 10:00:00.000Z', { sender: 'Desk', eventStart: '2026-12-07 15:00:00.000Z' });

async function mount() {
  const list = vi.fn(async (_c: string, opts?: { filter?: string }) =>
    opts?.filter ? { items: [serverLast], page: 1, perPage: 1, totalItems: 1, totalPages: 1 } : { items: rows, page: 1, perPage: 50, totalItems: rows.length, totalPages: 1 });
  const fake = fakeTransport({ alert_history: rows }, { list });
  await dom.render(inApp(fake.transport, <AlertsView />));
  await flush();
  const all = (id: string) => [...document.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];
  const click = async (el: HTMLElement) => {
    await act(async () => el.click());
    await flush();
  };
  await click(all('alert-history-open')[0]);
  return { ...fake, list, all, click };
}

describe('alert history threads', () => {
  it('lists threads, not copies, and expands one to its sends in order', async () => {
    const { all, click } = await mount();
    const threads = all('alert-history-item');
    expect(threads).toHaveLength(2);
    expect(threads[0].textContent).toContain('VPN down');
    expect(all('alert-thread-summary').map((s) => s.textContent)).toEqual([expect.stringMatching(/^ISSUE · 2 sends · last /), expect.stringMatching(/^INFO · 1 send · last /)]);
    await click(all('alert-thread-toggle')[0]);
    expect(all('alert-thread-send-label').map((s) => s.textContent)).toEqual(['Original', 'UPDATE #1']);
    expect(all('alert-thread-send').map((s) => s.textContent)).toEqual([expect.stringContaining('From NOC 0'), expect.stringContaining('From NOC 1')]);
  });

  it('continues a thread from the server\'s last send as UPDATE #N+1 and sends into it', async () => {
    const { all, click, list, create } = await mount();
    await click(all('alert-thread-continue')[0]);
    expect(list).toHaveBeenCalledWith('alert_history', expect.objectContaining({ filter: "threadId = 'vpn000000000001' || id = 'vpn000000000001'", sort: '-updateNumber,-created' }));
    expect(all('alert-preview-heading')[0].textContent).toBe('UPDATE #3 — VPN down');
    expect(all('alert-update-n')[0]).toHaveProperty('value', '3');
    expect(all('alert-start')[0]).toHaveProperty('value', '2026-12-07T15:00');
    expect(all('alert-thread-note')).toHaveLength(1);
    create.mockImplementationOnce(async (_c: string, data: object) => ({ id: 'vpn000000000004', created: '', updated: '', ...data, updateNumber: 3 }));
    await click(all('alert-copy')[0]);
    const sent = create.mock.calls.filter(([c]) => c === 'alert_history');
    expect(sent).toHaveLength(1);
    expect(sent[0][1]).toMatchObject({ threadId: 'vpn000000000001', subject: 'VPN down', sender: 'Desk', eventStart: '2026-12-07 15:00:00.000Z', timeZone: 'UTC' });
  });

  it('a fresh alert starts a new thread', async () => {
    const { all, click, create } = await mount();
    await click(document.querySelector<HTMLElement>('[aria-label="Close"]') ?? all('alert-history-open')[0]);
    await click(all('alert-copy')[0]);
    const sent = create.mock.calls.filter(([c]) => c === 'alert_history');
    expect(sent[0]?.[1]).toMatchObject({ threadId: '' });
  });
});
