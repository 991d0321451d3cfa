// @vitest-environment jsdom
// The Compose add box: a combobox of contacts with an email (arrow keys + Enter pick one); Enter
// adds an address as typed or the best match; an entry that is neither says why inline (an alert
// tied to the input, aria-invalid) and adds nothing, until the text changes.
import { useReducer, type ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ToastProvider } from '../../components/Toasts';
import { DataProvider } from '../../data/store';
import { domRoot, flush, pressKey, typeInto } from '../../lib/domTest';
import { fakeTransport } from '../../lib/domTransport';
import { addBoxRefusal, composeReducer, emptyCompose } from '../../lib/recipients';
import { TransportProvider } from '../../transport/context';
import { ShellContext, type ShellApi } from '../shell/ShellContext';
import { ComposeView } from './ComposeView';

const dom = domRoot();
// The recipient list is virtualized: it measures itself with a ResizeObserver, which jsdom lacks.
beforeEach(() => vi.stubGlobal('ResizeObserver', class { observe() {} unobserve() {} disconnect() {} }));
afterEach(() => vi.unstubAllGlobals());

function Shell({ children }: { children: ReactNode }) {
  const [compose, composeDispatch] = useReducer(composeReducer, emptyCompose);
  const api = { tab: 'compose', go: () => {}, compose, composeDispatch, listQuery: '', focusRecord: null, openRecord: () => {} } as ShellApi;
  return <ShellContext.Provider value={api}>{children}</ShellContext.Provider>;
}

async function mount() {
  const { transport } = fakeTransport({ contacts: [{ id: 'c1', name: 'Cy Nakamura', email: 'cy@example.com', created: '', updated: '' }] });
  await dom.render(
    <TransportProvider transport={transport}>
      <ToastProvider>
        <DataProvider>
          <Shell><ComposeView /></Shell>
        </DataProvider>
      </ToastProvider>
    </TransportProvider>,
  );
  await flush();
  const input = document.querySelector<HTMLInputElement>('[data-testid="compose-add-input"]')!;
  const count = () => document.querySelector('[data-testid="recipient-count"]')!.textContent;
  const error = () => document.querySelector<HTMLElement>('[data-testid="compose-add-error"]');
  return { input, count, error };
}

describe('Compose add box', () => {
  it('an entry that is neither an address nor a match says so inline and adds nothing', async () => {
    const { input, count, error } = await mount();
    await typeInto(input, 'helpdesk');
    expect(await pressKey(input, 'Enter')).toBe(true);
    expect(error()?.textContent).toBe(addBoxRefusal('helpdesk'));
    expect(error()?.getAttribute('role')).toBe('alert');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(input.getAttribute('aria-describedby')).toBe(error()?.id);
    expect(count()).toBe('0 recipients');
    await typeInto(input, 'helpdesk@');
    expect(error()).toBeNull();
    expect(input.getAttribute('aria-invalid')).toBeNull();
  });

  it('Enter adds an address as typed; arrow keys and Enter pick a contact', async () => {
    const { input, count, error } = await mount();
    await typeInto(input, 'dana@example.com');
    await pressKey(input, 'Enter');
    expect(count()).toBe('1 recipient');
    expect(input.value).toBe('');
    await typeInto(input, 'nakamura');
    expect(input.getAttribute('role')).toBe('combobox');
    expect(document.querySelector('[data-testid="compose-suggestions"]')?.getAttribute('role')).toBe('listbox');
    await pressKey(input, 'ArrowDown');
    await pressKey(input, 'Enter');
    expect(count()).toBe('2 recipients');
    expect(error()).toBeNull();
  });
});
