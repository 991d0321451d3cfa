// @vitest-environment jsdom
// The Sound on/off toggle draws its bell as an inline SVG (no emoji font needed): a bell when on,
// a struck bell when off; the words stay the accessible name.
import { act } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { domRoot, flush } from '../../lib/domTest';
import { fakeTransport } from '../../lib/domTransport';
import { DataProvider } from '../../data/store';
import { TransportProvider } from '../../transport/context';
import { AttentionProvider } from './AttentionContext';
import { SoundToggle } from './AttentionUi';

const dom = domRoot();
afterEach(() => localStorage.clear());

describe('SoundToggle', () => {
  it('shows an SVG bell, struck through when the sound is off', async () => {
    const { transport } = fakeTransport();
    await dom.render(
      <TransportProvider transport={transport}>
        <DataProvider>
          <AttentionProvider><SoundToggle /></AttentionProvider>
        </DataProvider>
      </TransportProvider>,
    );
    await flush();
    const button = document.querySelector<HTMLButtonElement>('[data-testid="sound-toggle"]')!;
    expect(button.textContent?.trim()).toBe('Sound on');
    expect(button.querySelector('svg[data-icon="bell"][aria-hidden="true"]')).not.toBeNull();
    await act(async () => button.click());
    expect(button.textContent?.trim()).toBe('Sound off');
    expect(button.querySelector('svg[data-icon="bell-off"]')).not.toBeNull();
  });
});
