// The check a custom alarm MP3 passes before it is kept (Settings → Alarm sound): at most 2 MiB,
// starting with an ID3 tag or an MPEG audio frame sync, and loadable by this browser (an audio
// element reaches `loadedmetadata` within a few seconds). Returns a message for the operator when
// the file is refused, null when it is fine. The loader is injectable for tests.

export const MAX_TONE_BYTES = 2 * 1024 * 1024;
export const LOAD_TIMEOUT_MS = 5000;

export const MP3_MESSAGES = {
  empty: 'That file is empty.',
  tooBig: 'That file is larger than 2 MiB; choose a shorter MP3.',
  notMp3: 'That file is not an MP3 (it starts with neither an ID3 tag nor an MPEG audio frame).',
  unplayable: 'This browser cannot play that file; choose another MP3.',
} as const;

/** The first bytes are an ID3v2 tag ("ID3") or an MPEG audio frame sync (0xFF, then 0b111xxxxx). */
export function hasMp3Magic(head: Uint8Array): boolean {
  if (head.length >= 3 && head[0] === 0x49 && head[1] === 0x44 && head[2] === 0x33) return true;
  return head.length >= 2 && head[0] === 0xff && (head[1] & 0xe0) === 0xe0;
}

/** The size and magic checks (no browser needed): a message, or null when the bytes may be an MP3. */
export function sniffMp3(head: Uint8Array, size: number): string | null {
  if (size === 0) return MP3_MESSAGES.empty;
  if (size > MAX_TONE_BYTES) return MP3_MESSAGES.tooBig;
  return hasMp3Magic(head) ? null : MP3_MESSAGES.notMp3;
}

/** What loading needs from the page: an audio element and object URLs. */
export interface LoadProbe {
  createAudio: () => Pick<HTMLAudioElement, 'addEventListener' | 'removeAttribute' | 'load'> & { preload: string; src: string };
  createUrl: (b: Blob) => string;
  revokeUrl: (url: string) => void;
}

const browserProbe = (): LoadProbe => ({
  createAudio: () => new Audio(),
  createUrl: (b) => URL.createObjectURL(b),
  revokeUrl: (u) => URL.revokeObjectURL(u),
});

/** Resolves true once an audio element has read the blob's metadata, false on error or timeout. */
export function canLoadAudio(blob: Blob, probe: LoadProbe = browserProbe(), timeoutMs = LOAD_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const url = probe.createUrl(blob);
    const audio = probe.createAudio();
    let done = false;
    const finish = (ok: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      audio.removeAttribute('src');
      audio.load();
      probe.revokeUrl(url);
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    audio.addEventListener('loadedmetadata', () => finish(true));
    audio.addEventListener('error', () => finish(false));
    audio.preload = 'metadata';
    audio.src = url;
  });
}

/** The whole check: size and magic first, then whether the browser can load it. */
export async function checkToneFile(file: Blob, canLoad: (b: Blob) => Promise<boolean> = (b) => canLoadAudio(b)): Promise<string | null> {
  const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  const sniffed = sniffMp3(head, file.size);
  if (sniffed) return sniffed;
  return (await canLoad(file)) ? null : MP3_MESSAGES.unplayable;
}
