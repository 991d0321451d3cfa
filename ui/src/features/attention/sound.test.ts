// Tests for alarm sound arming (first gesture), the on/off toggle and its per-device storage.
import { describe, expect, it } from 'vitest';
import { loadSoundEnabled, saveSoundEnabled, shouldPlay, SOUND_KEY, soundLabel, soundReducer, type SoundState } from './sound';

const fresh: SoundState = { enabled: true, armed: false };

function memory(init: Record<string, string> = {}) {
  const m = new Map(Object.entries(init));
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), m };
}

describe('soundReducer', () => {
  it('is armed by the first gesture and stays armed', () => {
    const s = soundReducer(fresh, { type: 'gesture' });
    expect(s).toEqual({ enabled: true, armed: true });
    expect(soundReducer(s, { type: 'gesture' })).toBe(s);
  });
  it('toggling is a gesture too', () => {
    expect(soundReducer(fresh, { type: 'toggle' })).toEqual({ enabled: false, armed: true });
    expect(soundReducer({ enabled: false, armed: false }, { type: 'toggle' })).toEqual({ enabled: true, armed: true });
  });
  it('a blocked play disarms until the next gesture', () => {
    const s = soundReducer({ enabled: true, armed: true }, { type: 'blocked' });
    expect(s.armed).toBe(false);
    expect(soundReducer(s, { type: 'gesture' }).armed).toBe(true);
    expect(soundReducer(fresh, { type: 'blocked' })).toBe(fresh);
  });
});

describe('shouldPlay', () => {
  it('needs enabled, armed and a due alarm', () => {
    expect(shouldPlay({ enabled: true, armed: true }, true)).toBe(true);
    expect(shouldPlay({ enabled: true, armed: false }, true)).toBe(false);
    expect(shouldPlay({ enabled: false, armed: true }, true)).toBe(false);
    expect(shouldPlay({ enabled: true, armed: true }, false)).toBe(false);
  });
});

describe('soundLabel', () => {
  it('says on/off and hints while not armed', () => {
    expect(soundLabel({ enabled: false, armed: true }).text).toBe('Sound off');
    expect(soundLabel(fresh)).toMatchObject({ text: 'Sound on' });
    expect(soundLabel(fresh).hint).toMatch(/click anywhere/);
    expect(soundLabel({ enabled: true, armed: true }).hint).not.toMatch(/click/);
  });
});

describe('per-device storage', () => {
  it('defaults to on and round-trips off/on', () => {
    const s = memory();
    expect(loadSoundEnabled(s)).toBe(true);
    saveSoundEnabled(false, s);
    expect(s.m.get(SOUND_KEY)).toBe('off');
    expect(loadSoundEnabled(s)).toBe(false);
    saveSoundEnabled(true, s);
    expect(loadSoundEnabled(s)).toBe(true);
  });
  it('survives storage that throws or is missing', () => {
    const bad = { getItem: () => { throw new Error('denied'); }, setItem: () => { throw new Error('denied'); } };
    expect(loadSoundEnabled(bad)).toBe(true);
    expect(() => saveSoundEnabled(false, bad)).not.toThrow();
    expect(loadSoundEnabled(null)).toBe(true);
  });
});
