// @vitest-environment jsdom
// Tests for Settings → Alarm sound with a memory tone store, a stub check and fake playback:
// the active tone label, choosing a valid file (kept, label shows its name and size), an invalid
// one (refused with the message, nothing kept), reset to the bundled tone, and Test sound / Stop.
import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { domRoot, flush as settle } from '../../lib/domTest';
import type { AudioLike, PlaybackDeps } from '../attention/alarmPlayback';
import { memoryToneStore, type CustomTone } from '../attention/toneStore';
import { AlarmSoundPanel } from './AlarmSoundPanel';

const dom = domRoot();
const flush = () => settle(10);
const $ = (id: string) => dom.host?.querySelector<HTMLElement>(`[data-testid="${id}"]`) ?? null;
const text = (id: string) => $(id)?.textContent ?? null;

async function choose(file: File) {
  const input = $('alarm-sound-file') as HTMLInputElement;
  Object.defineProperty(input, 'files', { configurable: true, value: [file] });
  await act(async () => void input.dispatchEvent(new Event('change', { bubbles: true })));
  await flush();
}

function fakePlayback(store: PlaybackDeps['store']) {
  const audios: { src: string; loop: boolean; paused: boolean; ended?: () => void }[] = [];
  const deps: PlaybackDeps = {
    store,
    bundledUrl: '/assets/alarm.mp3',
    createAudio: () => {
      const a = { src: '', loop: true, paused: true, ended: undefined as (() => void) | undefined };
      audios.push(a);
      const el: AudioLike = {
        get src() { return a.src; },
        set src(v: string) { a.src = v; },
        get loop() { return a.loop; },
        set loop(v: boolean) { a.loop = v; },
        play: () => Promise.resolve(void (a.paused = false)),
        pause: () => void (a.paused = true),
        load: () => {},
        removeAttribute: () => void (a.src = ''),
        addEventListener: (t, f) => void (t === 'ended' && (a.ended = f)),
      };
      return el;
    },
    createUrl: () => 'blob:test',
    revokeUrl: vi.fn(),
  };
  return { deps, audios };
}

const mp3 = (name = 'custom.mp3', size = 9404) => new File([new Uint8Array(size)], name, { type: 'audio/mpeg' });
const saved: CustomTone = { name: 'siren.mp3', size: 2048, type: 'audio/mpeg', blob: new Blob([new Uint8Array(2048)]), savedAt: 1 };

describe('AlarmSoundPanel', () => {
  it('shows the bundled tone, keeps a valid file and labels it, then resets', async () => {
    const store = memoryToneStore();
    const check = vi.fn(async () => null);
    await dom.render(<AlarmSoundPanel store={store} check={check} now={() => 42} />);
    await flush();
    expect(text('alarm-sound-active')).toBe('Bundled');
    expect(($('alarm-sound-reset') as HTMLButtonElement).disabled).toBe(true);
    expect(($('alarm-sound-file') as HTMLInputElement).accept).toBe('audio/mpeg,.mp3');

    await choose(mp3());
    expect(check).toHaveBeenCalledTimes(1);
    expect(store.current()).toMatchObject({ name: 'custom.mp3', size: 9404, type: 'audio/mpeg', savedAt: 42 });
    expect(store.current()?.blob).toBeInstanceOf(Blob);
    expect(text('alarm-sound-active')).toBe('custom.mp3 (9.2 KB)');
    expect(text('alarm-sound-status')).toBe('Saved on this device.');
    expect($('alarm-sound-error')).toBeNull();

    await act(async () => $('alarm-sound-reset')!.click());
    await flush();
    expect(store.current()).toBeNull();
    expect(text('alarm-sound-active')).toBe('Bundled');
    expect(text('alarm-sound-status')).toBe('Using the bundled sound.');
  });

  it('refuses an invalid file with the message and keeps the current tone', async () => {
    const store = memoryToneStore(saved);
    await dom.render(<AlarmSoundPanel store={store} check={async () => 'That file is not an MP3.'} />);
    await flush();
    expect(text('alarm-sound-active')).toBe('siren.mp3 (2.0 KB)');
    await choose(mp3('notes.txt', 10));
    expect(text('alarm-sound-error')).toBe('notes.txt: That file is not an MP3.');
    expect($('alarm-sound-error')?.getAttribute('role')).toBe('alert');
    expect(store.current()?.name).toBe('siren.mp3');
    expect(text('alarm-sound-active')).toBe('siren.mp3 (2.0 KB)');
  });

  it('reports storage that will not keep the file', async () => {
    const store = { ...memoryToneStore(), put: () => Promise.reject(new Error('quota')) };
    await dom.render(<AlarmSoundPanel store={store} check={async () => null} />);
    await flush();
    await choose(mp3());
    expect(text('alarm-sound-error')).toMatch(/Could not keep the sound/);
    expect(text('alarm-sound-active')).toBe('Bundled');
  });

  it('Test sound plays the active tone once; Stop or its end returns the button', async () => {
    const store = memoryToneStore(saved);
    const pb = fakePlayback(store);
    await dom.render(<AlarmSoundPanel store={store} playback={pb.deps} />);
    await flush();
    const button = $('alarm-sound-test') as HTMLButtonElement;
    expect(button.textContent).toBe('Test sound');
    await act(async () => button.click());
    await flush();
    expect(pb.audios).toHaveLength(1);
    expect(pb.audios[0]).toMatchObject({ src: 'blob:test', loop: false, paused: false });
    expect(button.textContent).toBe('Stop');
    await act(async () => button.click());
    expect(pb.audios[0].paused).toBe(true);
    expect(pb.deps.revokeUrl).toHaveBeenCalledWith('blob:test');
    expect(button.textContent).toBe('Test sound');

    await act(async () => button.click());
    await flush();
    expect(button.textContent).toBe('Stop');
    await act(async () => pb.audios[1].ended?.());
    expect(button.textContent).toBe('Test sound');
  });
});
