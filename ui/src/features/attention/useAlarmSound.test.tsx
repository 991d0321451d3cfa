// @vitest-environment jsdom
// Tests for the due alarm's playback with a fake audio element and a fake AudioContext: the
// bundled MP3 loops; a custom tone plays through an object URL that is revoked when done; a
// refused play() or a media error falls back to the WebAudio pulses; a NotAllowedError reports
// blocked (and plays no pulses); everything stops when inactive and on unmount.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flush as settle } from '../../lib/domTest';
import { playTone, type AudioLike, type PlaybackDeps } from './alarmPlayback';
import { memoryToneStore, type CustomTone } from './toneStore';
import { useAlarmSound } from './useAlarmSound';


class FakeAudio implements AudioLike {
  src = '';
  loop = false;
  paused = true;
  removed = false;
  listeners = new Map<string, () => void>();
  constructor(private playResult: () => Promise<void>) {}
  play() {
    this.paused = false;
    return this.playResult();
  }
  pause() {
    this.paused = true;
  }
  load() {}
  removeAttribute(name: string) {
    if (name === 'src') this.src = '';
  }
  addEventListener(type: 'error' | 'ended', f: () => void) {
    this.listeners.set(type, f);
  }
  remove() {
    this.removed = true;
  }
}

function harness(play: () => Promise<void> = () => Promise.resolve(), custom: CustomTone | null = null) {
  const audios: FakeAudio[] = [];
  const created: string[] = [];
  const revoked: string[] = [];
  const deps: PlaybackDeps = {
    store: memoryToneStore(custom),
    bundledUrl: '/assets/alarm-abc123.mp3',
    createAudio: () => {
      const a = new FakeAudio(play);
      audios.push(a);
      return a;
    },
    createUrl: () => {
      const u = `blob:tone-${created.length + 1}`;
      created.push(u);
      return u;
    },
    revokeUrl: (u) => void revoked.push(u),
  };
  return { deps, audios, created, revoked };
}

const flush = () => settle(5);
const custom: CustomTone = { name: 'custom.mp3', size: 3, type: 'audio/mpeg', blob: new Blob(['abc']), savedAt: 1 };
const refused = (name: string) => () => Promise.reject(Object.assign(new Error(name), { name }));

let oscillators = 0;
let closed = 0;
class FakeAudioContext {
  state = 'running';
  currentTime = 0;
  destination = {};
  createOscillator() {
    oscillators += 1;
    return { type: '', frequency: { value: 0 }, connect: (g: unknown) => g, start() {}, stop() {} };
  }
  createGain() {
    return { gain: { value: 0 }, connect: (d: unknown) => d };
  }
  resume() {
    return Promise.resolve();
  }
  close() {
    closed += 1;
    return Promise.resolve();
  }
}

let root: Root;
let container: HTMLElement;
function Probe({ active, onBlocked, deps }: { active: boolean; onBlocked: () => void; deps: PlaybackDeps }) {
  useAlarmSound(active, onBlocked, deps);
  return null;
}
const render = (props: { active: boolean; onBlocked: () => void; deps: PlaybackDeps }) => act(() => root.render(<Probe {...props} />));

beforeEach(() => {
  oscillators = 0;
  closed = 0;
  vi.stubGlobal('AudioContext', FakeAudioContext);
  container = document.createElement('div');
  root = createRoot(container);
});
afterEach(() => {
  act(() => root.unmount());
  vi.unstubAllGlobals();
});

describe('useAlarmSound', () => {
  it('loops the bundled MP3 while active and stops it when no longer active', async () => {
    const h = harness();
    const onBlocked = vi.fn();
    await render({ active: true, onBlocked, deps: h.deps });
    await flush();
    expect(h.audios).toHaveLength(1);
    const a = h.audios[0];
    expect(a.src).toBe('/assets/alarm-abc123.mp3');
    expect(a.loop).toBe(true);
    expect(a.paused).toBe(false);
    expect(oscillators).toBe(0);
    await render({ active: false, onBlocked, deps: h.deps });
    expect(a.paused).toBe(true);
    expect(a.src).toBe('');
    expect(a.removed).toBe(true);
    expect(onBlocked).not.toHaveBeenCalled();
    expect(h.created).toEqual([]);
  });

  it('plays a custom tone through an object URL and revokes it on unmount', async () => {
    const h = harness(undefined, custom);
    await render({ active: true, onBlocked: vi.fn(), deps: h.deps });
    await flush();
    expect(h.audios[0].src).toBe('blob:tone-1');
    expect(h.revoked).toEqual([]);
    act(() => root.unmount());
    expect(h.revoked).toEqual(['blob:tone-1']);
    expect(h.audios[0].paused).toBe(true);
    root = createRoot(container);
  });

  it('falls back to the WebAudio pulses when play() is refused, and stops them when inactive', async () => {
    const h = harness(refused('NotSupportedError'), custom);
    const onBlocked = vi.fn();
    await render({ active: true, onBlocked, deps: h.deps });
    await flush();
    expect(oscillators).toBe(4);
    expect(onBlocked).not.toHaveBeenCalled();
    await render({ active: false, onBlocked, deps: h.deps });
    expect(closed).toBe(1);
    expect(h.revoked).toEqual(['blob:tone-1']);
  });

  it('falls back on a media error after playing started', async () => {
    const h = harness();
    await render({ active: true, onBlocked: vi.fn(), deps: h.deps });
    await flush();
    expect(oscillators).toBe(0);
    act(() => h.audios[0].listeners.get('error')?.());
    await flush();
    expect(oscillators).toBe(4);
  });

  it('reports blocked on NotAllowedError, so arming waits for the next gesture', async () => {
    const h = harness(refused('NotAllowedError'));
    const onBlocked = vi.fn();
    await render({ active: true, onBlocked, deps: h.deps });
    await flush();
    expect(onBlocked).toHaveBeenCalledTimes(1);
    expect(oscillators).toBe(0);
  });
});

describe('playTone', () => {
  it('plays once without loop and reports the end; stop() twice is harmless', async () => {
    const h = harness(undefined, custom);
    const onEnded = vi.fn();
    const stop = playTone(h.deps, { loop: false, onEnded, testId: 'alarm-test-audio' });
    await flush();
    expect(h.audios[0].loop).toBe(false);
    h.audios[0].listeners.get('ended')?.();
    expect(onEnded).toHaveBeenCalledTimes(1);
    stop();
    stop();
    expect(h.revoked).toEqual(['blob:tone-1']);
  });
  it('stopped before the store answers: nothing is created', async () => {
    const h = harness(undefined, custom);
    const stop = playTone(h.deps, { loop: true });
    stop();
    await flush();
    expect(h.audios).toHaveLength(0);
    expect(h.created).toHaveLength(0);
  });
  it('a store that fails plays the bundled tone', async () => {
    const h = harness();
    h.deps.store = { get: () => Promise.reject(new Error('no idb')), put: () => Promise.resolve(), clear: () => Promise.resolve() };
    const stop = playTone(h.deps, { loop: true });
    await flush();
    expect(h.audios[0].src).toBe('/assets/alarm-abc123.mp3');
    stop();
  });
});
