// @vitest-environment jsdom
// The note editor's tags are chips: typing then Enter or a comma adds one, Backspace in the empty
// box removes the last, each chip has a "Remove tag …" button, the typed text left in the box is
// added on Save, and the saved record holds the same `tags` array as before (lowercased, unique,
// at most 20 of 50 characters).
import { act } from 'react';
import { describe, expect, it } from 'vitest';
import { ToastProvider } from '../../components/Toasts';
import { DataProvider } from '../../data/store';
import { domRoot, flush, pressKey, typeInto } from '../../lib/domTest';
import { fakeTransport } from '../../lib/domTransport';
import { emptyCompose } from '../../lib/recipients';
import { addTags } from '../../lib/notes';
import { TransportProvider } from '../../transport/context';
import { ShellContext, type ShellApi } from '../shell/ShellContext';
import NotesView from './NotesView';

const dom = domRoot();
const shell = { tab: 'notes', go: () => {}, compose: emptyCompose, composeDispatch: () => {}, listQuery: '', focusRecord: null, openRecord: () => {} } as ShellApi;
const $ = <T extends Element>(sel: string) => document.querySelector<T>(sel)!;
const chips = () => [...document.querySelectorAll('[data-testid="note-tags-chip"]')].map((c) => c.querySelector('span')!.textContent);

async function openEditor() {
  const { transport, create } = fakeTransport();
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
  await act(async () => $<HTMLButtonElement>('[data-testid="note-new"]').click());
  return { create };
}

describe('note tag chips', () => {
  it('adds chips on Enter and comma, removes with Backspace and the remove button, saves the array', async () => {
    const { create } = await openEditor();
    const input = $<HTMLInputElement>('[data-testid="note-tags"]');
    expect(input.labels?.[0]?.textContent).toBe('Tags');
    await typeInto(input, 'Ops');
    await pressKey(input, 'Enter');
    await typeInto(input, 'night,');
    expect(chips()).toEqual(['#ops', '#night']);
    expect(input.value).toBe('');
    await pressKey(input, 'Backspace');
    expect(chips()).toEqual(['#ops']);
    await typeInto(input, 'db, vpn');
    expect(chips()).toEqual(['#ops', '#db']);
    const remove = $<HTMLButtonElement>('button[aria-label="Remove tag ops"]');
    await act(async () => remove.click());
    expect(chips()).toEqual(['#db']);
    await typeInto($<HTMLInputElement>('[data-testid="note-title"]'), 'Shift handover');
    await act(async () => $<HTMLButtonElement>('[data-testid="note-save"]').click());
    await flush();
    expect(create).toHaveBeenCalledTimes(1);
    expect((create.mock.calls[0][1] as { tags: string[] }).tags).toEqual(['db', 'vpn']);
  });

  it('keeps the server limits: 20 tags of 50 characters', () => {
    const many = addTags([], Array.from({ length: 25 }, (_, i) => `t${i}`).join(','));
    expect(many).toHaveLength(20);
    expect(addTags(many, 'more')).toHaveLength(20);
    expect(addTags([], 'x'.repeat(60))).toEqual(['x'.repeat(50)]);
  });
});
