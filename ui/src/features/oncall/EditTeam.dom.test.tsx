// @vitest-environment jsdom
// The Edit team dialog's Name field is a combobox fed from People contacts: typing offers the
// matching contacts (two of the same name told apart by their details), arrow keys and Enter pick
// one and fill that contact's phone (by id, not by name), Esc closes only the list, and a name
// shared by two contacts typed in full fills nothing and says why.
import { act } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { ToastProvider } from '../../components/Toasts';
import { DataProvider } from '../../data/store';
import { domRoot, flush, pressKey, typeInto } from '../../lib/domTest';
import { fakeTransport } from '../../lib/domTransport';
import { TransportProvider } from '../../transport/context';
import { EditTeam } from './EditTeam';

const dom = domRoot();
afterEach(() => localStorage.clear());

const CONTACTS = [
  { id: 'c1', name: 'Alex Kim', phone: '3125550101', email: 'alex.kim@corp.test', created: '', updated: '' },
  { id: 'c2', name: 'Alex Kim', phone: '3125550202', email: 'alex.kim2@corp.test', created: '', updated: '' },
  { id: 'c3', name: 'Blair Doe', phone: '3125550303', email: 'blair@corp.test', created: '', updated: '' },
];
const CARD = { teamId: 'network', team: 'Network', rows: [{ id: 'r1', team: 'Network', teamId: 'network', role: 'Primary', name: '', contact: '', timeWindow: '' }] };

async function open() {
  const fake = fakeTransport({ contacts: CONTACTS, oncall: CARD.rows });
  const host = await dom.render(
    <TransportProvider transport={fake.transport}>
      <ToastProvider>
        <DataProvider>
          <EditTeam card={CARD} onClose={() => {}} />
        </DataProvider>
      </ToastProvider>
    </TransportProvider>,
  );
  await flush();
  const name = document.querySelector<HTMLInputElement>('[data-testid="edit-row-name"]')!;
  const phone = document.querySelector<HTMLInputElement>('[data-testid="edit-row-phone"]')!;
  return { ...fake, host, name, phone };
}

const options = () => [...document.querySelectorAll<HTMLElement>('[role="option"]')];

describe('Edit team: Name combobox fed from contacts', () => {
  it('is a combobox whose listbox offers both contacts of a shared name', async () => {
    const { name } = await open();
    expect(name.getAttribute('role')).toBe('combobox');
    expect(name.getAttribute('aria-expanded')).toBe('false');
    await typeInto(name, 'alex');
    expect(name.getAttribute('aria-expanded')).toBe('true');
    const list = document.getElementById(name.getAttribute('aria-controls')!)!;
    expect(list.getAttribute('role')).toBe('listbox');
    expect(options().map((o) => o.textContent)).toEqual([
      expect.stringContaining('alex.kim@corp.test'),
      expect.stringContaining('alex.kim2@corp.test'),
    ]);
  });

  it('ArrowDown twice + Enter picks the second Alex Kim and fills HER phone; Save writes it', async () => {
    const { name, phone, update } = await open();
    await typeInto(name, 'alex');
    await pressKey(name, 'ArrowDown');
    expect(name.getAttribute('aria-activedescendant')).toBe(options()[0].id);
    await pressKey(name, 'ArrowDown');
    expect(options()[1].getAttribute('aria-selected')).toBe('true');
    expect(await pressKey(name, 'Enter')).toBe(true);
    expect(name.value).toBe('Alex Kim');
    expect(phone.value).toBe('(312) 555-0202');
    expect(name.getAttribute('aria-expanded')).toBe('false');
    await act(async () => name.blur());
    expect(phone.value).toBe('(312) 555-0202'); // leaving the field does not re-resolve by name
    await act(async () => document.querySelector<HTMLButtonElement>('[data-testid="edit-team-save"]')!.click());
    await flush();
    expect(update).toHaveBeenCalledWith('oncall', 'r1', expect.objectContaining({ name: 'Alex Kim', contact: '3125550202' }));
  });

  it('Esc closes the list only (its keydown handled, so the dialog stays)', async () => {
    const { name } = await open();
    await typeInto(name, 'blair');
    expect(options()).toHaveLength(1);
    expect(await pressKey(name, 'Escape')).toBe(true);
    expect(name.getAttribute('aria-expanded')).toBe('false');
    expect(options()).toHaveLength(0);
    expect(document.querySelector('[data-testid="edit-team"]')).not.toBeNull();
  });

  it('a name shared by two contacts typed in full fills no phone and says why', async () => {
    const { name, phone } = await open();
    await typeInto(name, 'Alex Kim');
    await act(async () => name.blur());
    expect(phone.value).toBe('');
    const hint = document.querySelector('[data-testid="edit-row-name-hint"]');
    expect(hint?.textContent).toMatch(/2 contacts are named Alex Kim/);
    expect(name.getAttribute('aria-describedby')).toBe(hint?.id);
  });

  it('a name only one contact has, typed in full, fills that phone on leaving the field', async () => {
    const { name, phone } = await open();
    await typeInto(name, 'Blair Doe');
    await act(async () => name.blur());
    expect(phone.value).toBe('(312) 555-0303');
  });
});
