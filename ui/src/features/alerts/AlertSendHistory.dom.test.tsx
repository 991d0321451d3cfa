// @vitest-environment jsdom
// One send, one history row: the same alert sent several ways in one draft session (Copy for
// Outlook, then Copy alert, then Copy alert again) writes a single alert_history row and says the
// later ones were already saved; an edit makes it another alert (a new row), and Reset starts a
// new session (sending the same text again is a new send). On a page that is not a secure context
// so every copy goes through the copy command (jsdom has no async clipboard or PNG renderer).
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { domRoot, flush, typeInto } from '../../lib/domTest';
import { fakeTransport } from '../../lib/domTransport';
import { stubNonSecurePage } from '../../lib/nonSecureTest';
import AlertsView, { ALREADY_IN_HISTORY } from './AlertsView';
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

async function mount() {
  const fake = fakeTransport();
  await dom.render(inApp(fake.transport, <AlertsView />));
  await flush();
  const $ = <T extends HTMLElement = HTMLButtonElement>(id: string) => document.querySelector<T>(`[data-testid="${id}"]`)!;
  const click = async (id: string) => {
    await act(async () => $(id).click());
    await flush();
  };
  const historyRows = () => fake.create.mock.calls.filter(([c]) => c === 'alert_history');
  const toasts = () => [...document.querySelectorAll('[data-testid="toast"]')].map((t) => t.textContent);
  return { ...fake, $, click, historyRows, toasts };
}

describe('alert sends and history rows', () => {
  it('one alert sent three ways in one draft session is one history row', async () => {
    const { $, click, historyRows, toasts } = await mount();
    await typeInto($<HTMLInputElement>('alert-subject'), 'VPN outage');
    await click('alert-copy-outlook');
    await click('alert-copy');
    await click('alert-copy');
    expect(historyRows()).toHaveLength(1);
    expect(historyRows()[0][1]).toMatchObject({ subject: 'VPN outage', pinned: false });
    // Both later sends say so (one toast, counted: "×2").
    expect(toasts()).toContain(`Alert copied (${ALREADY_IN_HISTORY}). ×2 (2 times)`);
  });

  it('an edited alert is another send; after Reset the same text is a new send', async () => {
    const { $, click, historyRows } = await mount();
    await typeInto($<HTMLInputElement>('alert-subject'), 'VPN outage');
    await click('alert-copy');
    await typeInto($<HTMLInputElement>('alert-subject'), 'VPN outage resolved');
    await click('alert-copy');
    expect(historyRows().map(([, d]) => (d as { subject: string }).subject)).toEqual(['VPN outage', 'VPN outage resolved']);
    await act(async () => [...document.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent === 'Reset')!.click());
    await typeInto($<HTMLInputElement>('alert-subject'), 'VPN outage resolved');
    await click('alert-copy');
    expect(historyRows()).toHaveLength(3);
  });
});
