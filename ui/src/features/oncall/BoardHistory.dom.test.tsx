// @vitest-environment jsdom
// The On-Call board's history controls: "Board as of" shows the board as it was at the picked
// moment (rebuilt from the server's oncall_history), read-only and labelled as a past view, Now
// returns to the live board, and Export history downloads the changes of a date range as CSV.
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ToastProvider } from '../../components/Toasts';
import { DataProvider } from '../../data/store';
import { toLocalInput } from '../../lib/dates';
import { domRoot, flush, typeInto } from '../../lib/domTest';
import { fakeTransport } from '../../lib/domTransport';
import { TransportProvider } from '../../transport/context';
import { toWireTime } from './history';
import OnCallView from './OnCallView';

const downloads = vi.hoisted(() => ({ downloadText: vi.fn() }));
vi.mock('../../lib/download', () => downloads);

const dom = domRoot();
afterEach(() => {
  localStorage.clear();
  downloads.downloadText.mockClear();
});

const HOUR = 60 * 60 * 1000;
const now = Date.now();
const ago = (hours: number) => toWireTime(new Date(now - hours * HOUR));
const row = (name: string) => ({ team: 'Network', role: 'Primary', name, contact: '5550100', timeWindow: '', sortOrder: 0, teamId: 'network' });
// Ada was put on the card 48 hours ago and replaced by Bob 24 hours ago.
const HISTORY = [
  { id: 'h1', created: ago(48), updated: ago(48), revision: 1, recordId: 'r1', action: 'create', teamId: 'network', team: 'Network', stateBefore: {}, stateAfter: row('Ada') },
  { id: 'h2', created: ago(24), updated: ago(24), revision: 2, recordId: 'r1', action: 'update', teamId: 'network', team: 'Network', stateBefore: row('Ada'), stateAfter: row('=Bob') },
];

async function open() {
  const fake = fakeTransport({
    oncall: [{ id: 'r1', created: ago(48), updated: ago(24), ...row('=Bob') }],
    oncall_board_settings: [{ id: 's1', created: '', updated: '', key: 'primary', teamOrder: ['network'], locked: false }],
    oncall_history: HISTORY,
  });
  await dom.render(
    <TransportProvider transport={fake.transport}>
      <ToastProvider>
        <DataProvider>
          <OnCallView />
        </DataProvider>
      </ToastProvider>
    </TransportProvider>,
  );
  await flush();
  return fake;
}

const q = <T extends Element = HTMLElement>(id: string) => document.querySelector<T>(`[data-testid="${id}"]`);
const cardText = () => q('team-card')?.textContent ?? '';
const click = (el: HTMLElement | null) => act(async () => el!.click());

describe('Board as of', () => {
  it('shows the board as it was at the picked moment, read-only and labelled, until Now', async () => {
    await open();
    expect(cardText()).toContain('=Bob');
    expect(q('board-past-view')).toBeNull();
    expect(q('board-add')).not.toBeNull();

    await typeInto(q<HTMLInputElement>('board-asof')!, toLocalInput(new Date(now - 36 * HOUR)));
    await flush();
    expect(q('board-past-view')?.textContent).toContain('Past view');
    expect(q('board-past-view')?.textContent).toContain('Read-only');
    expect(cardText()).toContain('Ada');
    expect(cardText()).not.toContain('Bob');
    expect(q('board-add')).toBeNull();
    expect(q('card-edit')).toBeNull();

    await typeInto(q<HTMLInputElement>('board-asof')!, toLocalInput(new Date(now - 72 * HOUR)));
    await flush();
    expect(q('team-card')).toBeNull();

    await click(q('board-asof-now'));
    await flush();
    expect(q('board-past-view')).toBeNull();
    expect(cardText()).toContain('=Bob');
    expect(q('board-add')).not.toBeNull();
  });
});

describe('Export history', () => {
  it('downloads the changes of the range as a formula-guarded CSV', async () => {
    await open();
    await click(q('history-export'));
    const day = (hoursAgo: number) => toLocalInput(new Date(now - hoursAgo * HOUR)).slice(0, 10);
    await typeInto(q<HTMLInputElement>('history-from')!, day(72));
    await typeInto(q<HTMLInputElement>('history-to')!, day(0));
    await click(q('history-export-save'));
    await flush();
    expect(downloads.downloadText).toHaveBeenCalledTimes(1);
    const [name, csv] = downloads.downloadText.mock.calls[0] as [string, string];
    expect(name).toBe(`oncall-history-${day(72)}-to-${day(0)}.csv`);
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toBe('Time,Team,Role,Name,Contact,Time Window,Action');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/,Network,Primary,Ada,.*,create$/);
    expect(lines[2]).toMatch(/,Network,Primary,'=Bob,.*,update$/);
  });

  it('refuses a range that ends before it starts, and says so when a range holds no change', async () => {
    await open();
    await click(q('history-export'));
    const day = (hoursAgo: number) => toLocalInput(new Date(now - hoursAgo * HOUR)).slice(0, 10);
    await typeInto(q<HTMLInputElement>('history-from')!, day(0));
    await typeInto(q<HTMLInputElement>('history-to')!, day(96));
    await click(q('history-export-save'));
    expect(q('history-export-error')?.textContent).toContain('start date');
    await typeInto(q<HTMLInputElement>('history-from')!, day(120));
    await click(q('history-export-save'));
    await flush();
    expect(q('history-export-error')?.textContent).toBe('No on-call changes in that range.');
    expect(downloads.downloadText).not.toHaveBeenCalled();
  });
});
