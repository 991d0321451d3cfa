// @vitest-environment jsdom
// The alert card's time zone is a setting of this device (Settings → Alert card), Central Time
// (America/Chicago) unless changed, not the browser's zone: the card shows the event times in it,
// labelled by severity (Scheduled for MAINTENANCE, …), a new draft enters its times in it, and a
// change in Settings re-renders the card at once.
import { act } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { ToastProvider } from '../../components/Toasts';
import { DataProvider } from '../../data/store';
import { domRoot, flush, typeInto } from '../../lib/domTest';
import { fakeTransport } from '../../lib/domTransport';
import { TransportProvider } from '../../transport/context';
import AlertsView from './AlertsView';
import { CARD_ZONE_KEY, DEFAULT_CARD_ZONE, readCardZone } from './cardZone';
import { CardZoneSetting } from './CardZoneSetting';

const dom = domRoot();
afterEach(() => {
  localStorage.clear();
  sessionStorage.clear();
});

async function mount() {
  const { transport } = fakeTransport();
  await dom.render(
    <TransportProvider transport={transport}>
      <ToastProvider>
        <DataProvider>
          <CardZoneSetting />
          <AlertsView />
        </DataProvider>
      </ToastProvider>
    </TransportProvider>,
  );
  await flush();
  return <T extends HTMLElement = HTMLElement>(id: string) => document.querySelector<T>(`[data-testid="${id}"]`)!;
}

async function choose(select: HTMLSelectElement, value: string) {
  await act(async () => {
    select.value = value;
    select.dispatchEvent(new Event('change', { bubbles: true }));
  });
}

describe('alert card time zone (per device)', () => {
  it('is Central Time by default: the entry zone starts there and the card shows Scheduled in CST', async () => {
    expect(DEFAULT_CARD_ZONE).toBe('America/Chicago');
    const $ = await mount();
    expect($<HTMLSelectElement>('settings-card-zone').value).toBe('America/Chicago');
    expect($<HTMLSelectElement>('alert-tz').value).toBe('America/Chicago');
    await act(async () => $('sev-MAINTENANCE').click());
    await typeInto($<HTMLInputElement>('alert-start'), '2026-03-07T22:00');
    await typeInto($<HTMLInputElement>('alert-end'), '2026-03-07T23:30');
    expect($('alert-preview-times').textContent).toBe('Scheduled: Sat 7 Mar 2026, 22:00 – 23:30 CST (UTC-06:00)');
    expect($('alert-card-zone-note').textContent).toContain('America/Chicago');
  });

  it('a change in Settings moves the card to that zone at once and is kept for this device', async () => {
    const $ = await mount();
    await act(async () => $('sev-ISSUE').click());
    await typeInto($<HTMLInputElement>('alert-start'), '2026-03-07T22:00');
    await choose($<HTMLSelectElement>('settings-card-zone'), 'Europe/London');
    expect(localStorage.getItem(CARD_ZONE_KEY)).toBe('Europe/London');
    expect(readCardZone()).toBe('Europe/London');
    // Entered in Chicago (the draft's zone), shown in London.
    expect($('alert-preview-times').textContent).toBe('Started: Sun 8 Mar 2026, 04:00 GMT (UTC+00:00)');
    // A new draft enters its times in the device zone.
    await act(async () => [...document.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent === 'Reset')!.click());
    expect($<HTMLSelectElement>('alert-tz').value).toBe('Europe/London');
  });
});
