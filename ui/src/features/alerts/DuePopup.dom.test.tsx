// @vitest-environment jsdom
// Load Alert in the due popup and the composer's unsent draft: with nothing typed (or the draft
// already sent) it loads at once; with unsent changes it first asks in the popup (its name and
// focus move to the question); Keep my draft leaves both the draft and the alarm as they were,
// Replace draft dismisses the alarm and loads its alert.
import { act, type ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ToastProvider } from '../../components/Toasts';
import { DataProvider } from '../../data/store';
import { toApiDate } from '../../lib/dates';
import { domRoot, flush, typeInto } from '../../lib/domTest';
import { fakeTransport } from '../../lib/domTransport';
import { emptyCompose } from '../../lib/recipients';
import { TransportProvider } from '../../transport/context';
import { AttentionProvider } from '../attention/AttentionContext';
import { ShellContext, type ShellApi } from '../shell/ShellContext';
import AlertsView from './AlertsView';
import { DuePopup } from './DuePopup';

const dom = domRoot();
afterEach(() => {
  localStorage.clear();
  sessionStorage.clear();
});

const ALARM = {
  id: 'a1', created: '', updated: '', title: 'Send the maintenance notice', status: 'pending', dueAt: toApiDate(new Date(Date.now() - 60_000)),
  severity: 'MAINTENANCE', alertSubject: 'Database maintenance tonight', alertBodyHtml: 'Planned work 22:00-23:00.', createdBy: 'NOC',
};

async function mount() {
  const fake = fakeTransport({ alert_reminders: [ALARM] });
  const go = vi.fn();
  const shell = { tab: 'alerts', go, compose: emptyCompose, composeDispatch: () => {}, listQuery: '', focusRecord: null, openRecord: () => {} } as ShellApi;
  const tree = (children: ReactNode) => (
    <TransportProvider transport={fake.transport}>
      <ToastProvider>
        <DataProvider>
          <ShellContext.Provider value={shell}>
            <AttentionProvider>{children}</AttentionProvider>
          </ShellContext.Provider>
        </DataProvider>
      </ToastProvider>
    </TransportProvider>
  );
  await dom.render(tree(<><AlertsView /><DuePopup /></>));
  await flush();
  const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.querySelector<T>(`[data-testid="${id}"]`);
  return { ...fake, go, $ };
}

describe('Load Alert and an unsent draft', () => {
  it('loads at once into an empty composer', async () => {
    const { $, update } = await mount();
    expect($('due-popup')).not.toBeNull();
    await act(async () => $('due-load')!.click());
    await flush();
    expect($('due-replace-text')).toBeNull();
    expect($<HTMLInputElement>('alert-subject')!.value).toBe('Database maintenance tonight');
    expect(update).toHaveBeenCalledWith('alert_reminders', 'a1', expect.objectContaining({ status: 'dismissed' }));
  });

  it('asks before replacing unsent changes; Keep my draft keeps the draft and the alarm', async () => {
    const { $, update } = await mount();
    await typeInto($<HTMLInputElement>('alert-subject')!, 'VPN outage: my unsent work');
    await act(async () => $('due-load')!.click());
    await flush();
    const popup = $('due-popup')!;
    expect(popup.getAttribute('role')).toBe('alertdialog');
    expect(document.getElementById(popup.getAttribute('aria-labelledby')!)?.textContent).toBe('Replace your unsent alert?');
    expect(popup.getAttribute('aria-describedby')).toBe($('due-replace-text')!.id);
    expect(document.activeElement).toBe($('due-replace-cancel'));
    expect($<HTMLInputElement>('alert-subject')!.value).toBe('VPN outage: my unsent work');
    await act(async () => $('due-replace-cancel')!.click());
    await flush();
    expect($('due-replace-text')).toBeNull();
    expect($<HTMLInputElement>('alert-subject')!.value).toBe('VPN outage: my unsent work');
    expect(update).not.toHaveBeenCalled();
    expect(document.activeElement).toBe($('due-load'));
  });

  it('Replace draft dismisses the alarm and loads its alert', async () => {
    const { $, update, go } = await mount();
    await typeInto($<HTMLInputElement>('alert-subject')!, 'VPN outage: my unsent work');
    await act(async () => $('due-load')!.click());
    await act(async () => $('due-replace-confirm')!.click());
    await flush();
    expect(update).toHaveBeenCalledWith('alert_reminders', 'a1', expect.objectContaining({ status: 'dismissed' }));
    expect($<HTMLInputElement>('alert-subject')!.value).toBe('Database maintenance tonight');
    expect(go).toHaveBeenCalledWith('alerts');
  });
});
