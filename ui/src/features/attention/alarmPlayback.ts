// Playing the active alarm tone once or looped (no React): the bundled MP3, or this device's
// custom MP3 from the tone store through an object URL. The audio element is a hidden <audio>
// in the document (data-testid "alarm-audio") so it can be observed; stopping pauses it, removes
// it and revokes the object URL. A play() refused with NotAllowedError reports `onBlocked`
// (arming waits for the next gesture); any other refusal or a media error reports `onFallback`
// (the caller plays the WebAudio pulses instead). Page dependencies are injectable for tests.
import bundledToneUrl from './alarm.mp3';
import { defaultToneStore, type ToneStore } from './toneStore';

export { bundledToneUrl };

/** The part of an HTMLAudioElement playback uses. */
export interface AudioLike {
  src: string;
  loop: boolean;
  play(): Promise<void>;
  pause(): void;
  load(): void;
  removeAttribute(name: string): void;
  addEventListener(type: 'error' | 'ended', listener: () => void): void;
  remove?(): void;
}

export interface PlaybackDeps {
  store: ToneStore;
  bundledUrl: string;
  createAudio: (testId: string) => AudioLike;
  createUrl: (b: Blob) => string;
  revokeUrl: (url: string) => void;
}

export interface PlayOptions {
  loop: boolean;
  /** data-testid of the <audio> element. */
  testId?: string;
  onBlocked?: () => void;
  onFallback?: () => void;
  /** A non-looping play reached its end. */
  onEnded?: () => void;
}

function pageAudio(testId: string): AudioLike {
  const a = document.createElement('audio');
  a.dataset.testid = testId;
  a.hidden = true;
  document.body.append(a);
  return a;
}

export function browserPlaybackDeps(store: ToneStore = defaultToneStore()): PlaybackDeps {
  return {
    store,
    bundledUrl: bundledToneUrl,
    createAudio: pageAudio,
    createUrl: (b) => URL.createObjectURL(b),
    revokeUrl: (u) => URL.revokeObjectURL(u),
  };
}

const isNotAllowed = (e: unknown) => typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'NotAllowedError';

/** Starts the active tone; returns stop(), which releases everything (safe to call twice). */
export function playTone(deps: PlaybackDeps, opts: PlayOptions): () => void {
  let stopped = false;
  let audio: AudioLike | null = null;
  let objectUrl: string | null = null;
  let failed = false;
  const fail = () => {
    if (stopped || failed) return;
    failed = true;
    opts.onFallback?.();
  };
  void (async () => {
    const custom = await deps.store.get().catch(() => null);
    if (stopped) return;
    objectUrl = custom ? deps.createUrl(custom.blob) : null;
    const a = deps.createAudio(opts.testId ?? 'alarm-audio');
    audio = a;
    a.loop = opts.loop;
    a.addEventListener('error', fail);
    a.addEventListener('ended', () => {
      if (!stopped && !opts.loop) opts.onEnded?.();
    });
    a.src = objectUrl ?? deps.bundledUrl;
    try {
      await a.play();
    } catch (e) {
      if (stopped) return;
      if (isNotAllowed(e)) opts.onBlocked?.();
      else fail();
    }
  })();
  return () => {
    if (stopped) return;
    stopped = true;
    if (audio) {
      audio.pause();
      audio.removeAttribute('src');
      audio.load();
      audio.remove?.();
      audio = null;
    }
    if (objectUrl) deps.revokeUrl(objectUrl);
    objectUrl = null;
  };
}
