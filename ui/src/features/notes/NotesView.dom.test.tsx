// @vitest-environment jsdom
// Each note card says when it was last updated: "Updated 5 min ago", with the exact time in its
// title and the instant in <time dateTime>.
import { describe, expect, it } from 'vitest';
import { ToastProvider } from '../../components/Toasts';
import { DataProvider } from '../../data/store';
import { toApiDate } from '../../lib/dates';
import { domRoot, flush } from '../../lib/domTest';
import { fakeTransport } from '../../lib/domTransport';
import { emptyCompose } from '../../lib/recipients';
import { TransportProvider } from '../../transport/context';
import { ShellContext, type ShellApi } from '../shell/ShellContext';
import NotesView from './NotesView';
import { noteStamp } from './noteStamp';

const dom = domRoot();
const shell = { tab: 'notes', go: () => {}, compose: emptyCompose, composeDispatch: () => {}, listQuery: '', focusRecord: null, openRecord: () => {} } as ShellApi;

describe('note updated stamp', () => {
  it('shows "Updated 5 min ago" with the exact time in its title', async () => {
    const at = new Date(Date.now() - 5 * 60_000 - 2_000);
    const note = { id: 'n1', title: 'Shift handover', content: 'VPN flaps', color: 'blue', tags: [], sortOrder: 0, created: toApiDate(at), updated: toApiDate(at) };
    const { transport } = fakeTransport({ standalone_notes: [note] });
    await dom.render(
      <TransportProvider transport={transport}>
        <ToastProvider>
          <DataProvider>
            <ShellContext.Provider value={shell}><NotesView /></ShellContext.Provider>
          </DataProvider>
        </ToastProvider>
      </TransportProvider>,
    );
    await flush();
    const stamp = document.querySelector<HTMLTimeElement>('[data-testid="note-card"] [data-testid="note-updated"]')!;
    expect(stamp.textContent).toBe('Updated 5 min ago');
    expect(stamp.tagName).toBe('TIME');
    expect(stamp.dateTime).toBe(at.toISOString());
    expect(stamp.title).toBe(`Updated ${at.toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'medium' })}`);
  });

  it('has no stamp without a readable time', () => {
    expect(noteStamp(undefined, Date.now())).toBeNull();
    expect(noteStamp('not a date', Date.now())).toBeNull();
    expect(noteStamp('2026-01-05 12:00:00.000Z', Date.parse('2026-01-05T14:00:00Z'))?.text).toBe('Updated 2 h ago');
  });
});
