// Tests for the custom alarm MP3 check: size and magic (ID3 tag, MPEG frame sync), and the
// browser-load probe with a fake audio element (loaded, error, timeout; the object URL released).
import { describe, expect, it, vi } from 'vitest';
import { canLoadAudio, checkToneFile, hasMp3Magic, MAX_TONE_BYTES, MP3_MESSAGES, sniffMp3, type LoadProbe } from './mp3Check';

const bytes = (...b: number[]) => new Uint8Array(b);
const ID3 = bytes(0x49, 0x44, 0x33, 0x04);
const SYNC = bytes(0xff, 0xf3, 0x60, 0xc4);

describe('sniffMp3', () => {
  it('accepts an ID3 tag or an MPEG audio frame sync', () => {
    expect(sniffMp3(ID3, 1000)).toBeNull();
    expect(sniffMp3(SYNC, 1000)).toBeNull();
    expect(sniffMp3(bytes(0xff, 0xfb), 1000)).toBeNull();
    expect(sniffMp3(bytes(0xff, 0xe0), 1000)).toBeNull();
  });
  it('refuses other magic: PNG, text, a sync byte without the three top bits', () => {
    expect(sniffMp3(bytes(0x89, 0x50, 0x4e, 0x47), 1000)).toBe(MP3_MESSAGES.notMp3);
    expect(sniffMp3(new TextEncoder().encode('hello'), 5)).toBe(MP3_MESSAGES.notMp3);
    expect(sniffMp3(bytes(0xff, 0xc0), 1000)).toBe(MP3_MESSAGES.notMp3);
    expect(sniffMp3(bytes(0x49, 0x44), 1000)).toBe(MP3_MESSAGES.notMp3);
    expect(hasMp3Magic(bytes(0xff))).toBe(false);
  });
  it('refuses an empty file and one over 2 MiB', () => {
    expect(sniffMp3(bytes(), 0)).toBe(MP3_MESSAGES.empty);
    expect(sniffMp3(ID3, MAX_TONE_BYTES)).toBeNull();
    expect(sniffMp3(ID3, MAX_TONE_BYTES + 1)).toBe(MP3_MESSAGES.tooBig);
  });
});

describe('checkToneFile', () => {
  it('asks the browser only once size and magic pass', async () => {
    const canLoad = vi.fn(async () => true);
    expect(await checkToneFile(new Blob([SYNC, new Uint8Array(100)]), canLoad)).toBeNull();
    expect(canLoad).toHaveBeenCalledTimes(1);
    expect(await checkToneFile(new Blob(['not audio']), canLoad)).toBe(MP3_MESSAGES.notMp3);
    expect(await checkToneFile(new Blob([]), canLoad)).toBe(MP3_MESSAGES.empty);
    expect(await checkToneFile(new Blob([ID3, new Uint8Array(MAX_TONE_BYTES)]), canLoad)).toBe(MP3_MESSAGES.tooBig);
    expect(canLoad).toHaveBeenCalledTimes(1);
  });
  it('refuses a file the browser cannot load', async () => {
    expect(await checkToneFile(new Blob([ID3, new Uint8Array(10)]), async () => false)).toBe(MP3_MESSAGES.unplayable);
  });
});

function fakeProbe() {
  const listeners = new Map<string, () => void>();
  const audio = {
    preload: '',
    src: '',
    addEventListener: (t: string, f: () => void) => void listeners.set(t, f),
    removeAttribute: vi.fn(),
    load: vi.fn(),
  };
  const revoked: string[] = [];
  const probe = {
    createAudio: () => audio,
    createUrl: () => 'blob:probe',
    revokeUrl: (u: string) => void revoked.push(u),
  } as unknown as LoadProbe;
  return { probe, audio, revoked, fire: (t: string) => listeners.get(t)?.() };
}

describe('canLoadAudio', () => {
  it('is true once the metadata loads, and releases the URL', async () => {
    const f = fakeProbe();
    const p = canLoadAudio(new Blob(['x']), f.probe, 1000);
    expect(f.audio.src).toBe('blob:probe');
    f.fire('loadedmetadata');
    expect(await p).toBe(true);
    expect(f.revoked).toEqual(['blob:probe']);
    expect(f.audio.removeAttribute).toHaveBeenCalledWith('src');
  });
  it('is false on a media error', async () => {
    const f = fakeProbe();
    const p = canLoadAudio(new Blob(['x']), f.probe, 1000);
    f.fire('error');
    expect(await p).toBe(false);
    expect(f.revoked).toEqual(['blob:probe']);
  });
  it('is false when nothing happens within the timeout', async () => {
    vi.useFakeTimers();
    try {
      const f = fakeProbe();
      const p = canLoadAudio(new Blob(['x']), f.probe, 3000);
      vi.advanceTimersByTime(3000);
      expect(await p).toBe(false);
      f.fire('loadedmetadata'); // too late: no second resolution, no second revoke
      expect(f.revoked).toEqual(['blob:probe']);
    } finally {
      vi.useRealTimers();
    }
  });
});
