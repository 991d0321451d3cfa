// Settings → Alarm sound (this device only): which tone the due alarm loops ("Bundled" or the
// custom file's name and size), "Choose MP3…" (checked by attention/mp3Check before it is kept in
// the IndexedDB tone store), "Test sound" (plays the active tone once; Stop ends it early) and
// "Use the bundled sound" (reset). Nothing goes to the server. Store, check and playback are
// injectable for tests.
import { useEffect, useRef, useState, type ChangeEvent } from 'react';
import { browserPlaybackDeps, playTone, type PlaybackDeps } from '../attention/alarmPlayback';
import { checkToneFile } from '../attention/mp3Check';
import { defaultToneStore, toneLabel, type CustomTone, type ToneStore } from '../attention/toneStore';

export interface AlarmSoundPanelProps {
  store?: ToneStore;
  check?: (file: Blob) => Promise<string | null>;
  playback?: PlaybackDeps;
  now?: () => number;
}

type Status = { kind: 'error' | 'info'; text: string } | null;

export function AlarmSoundPanel({ store: given, check = checkToneFile, playback, now = Date.now }: AlarmSoundPanelProps) {
  const store = given ?? defaultToneStore();
  const [tone, setTone] = useState<CustomTone | null | undefined>(undefined);
  const [status, setStatus] = useState<Status>(null);
  const [busy, setBusy] = useState(false);
  const [testing, setTesting] = useState(false);
  const stopTest = useRef<(() => void) | null>(null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    let live = true;
    store.get().then(
      (t) => live && setTone(t),
      () => live && setTone(null),
    );
    return () => void (live = false);
  }, [store]);
  useEffect(() => () => stopTest.current?.(), []);

  const endTest = () => {
    stopTest.current?.();
    stopTest.current = null;
    setTesting(false);
  };

  async function choose(e: ChangeEvent<HTMLInputElement>) {
    const file = e.currentTarget.files?.[0];
    e.currentTarget.value = '';
    if (!file) return;
    endTest();
    setBusy(true);
    setStatus({ kind: 'info', text: 'Checking…' });
    try {
      const problem = await check(file);
      if (problem) {
        setStatus({ kind: 'error', text: `${file.name}: ${problem}` });
        return;
      }
      const next: CustomTone = { name: file.name, size: file.size, type: file.type || 'audio/mpeg', blob: file, savedAt: now() };
      await store.put(next);
      setTone(next);
      setStatus({ kind: 'info', text: 'Saved on this device.' });
    } catch {
      setStatus({ kind: 'error', text: 'Could not keep the sound on this device (browser storage is unavailable).' });
    } finally {
      setBusy(false);
    }
  }

  async function reset() {
    endTest();
    setBusy(true);
    try {
      await store.clear();
      setTone(null);
      setStatus({ kind: 'info', text: 'Using the bundled sound.' });
    } catch {
      setStatus({ kind: 'error', text: 'Could not reset the sound (browser storage is unavailable).' });
    } finally {
      setBusy(false);
    }
  }

  function test() {
    if (testing) return endTest();
    setStatus(null);
    setTesting(true);
    stopTest.current = playTone(playback ?? browserPlaybackDeps(store), {
      loop: false,
      testId: 'alarm-test-audio',
      onEnded: endTest,
      onBlocked: () => {
        endTest();
        setStatus({ kind: 'error', text: 'The browser blocked the sound; try again.' });
      },
      onFallback: () => {
        endTest();
        setStatus({ kind: 'error', text: 'This tone will not play here; the alarm would use the fallback beeps.' });
      },
    });
  }

  return (
    <div className="panel card" data-testid="settings-alarm-sound">
      <h2>Alarm sound</h2>
      <p className="muted">Looped by the due-alarm popup on this device only; the file stays in this browser.</p>
      <dl className="kv">
        <dt>Active tone</dt>
        <dd data-testid="alarm-sound-active">{tone === undefined ? '…' : toneLabel(tone)}</dd>
      </dl>
      <div className="row-wrap">
        <button type="button" className="button button-ghost" disabled={busy} onClick={() => input.current?.click()}>Choose MP3…</button>
        <input ref={input} type="file" accept="audio/mpeg,.mp3" hidden aria-label="Choose MP3" data-testid="alarm-sound-file" disabled={busy} onChange={(e) => void choose(e)} />
        <button type="button" className="button button-ghost" data-testid="alarm-sound-test" aria-pressed={testing} disabled={busy || tone === undefined} onClick={test}>
          {testing ? 'Stop' : 'Test sound'}
        </button>
        <button type="button" className="button button-ghost" data-testid="alarm-sound-reset" disabled={busy || !tone} onClick={() => void reset()}>Use the bundled sound</button>
      </div>
      {status && (
        <p className={status.kind === 'error' ? 'error-text' : 'muted'} role={status.kind === 'error' ? 'alert' : 'status'} data-testid={status.kind === 'error' ? 'alarm-sound-error' : 'alarm-sound-status'}>
          {status.text}
        </p>
      )}
    </div>
  );
}
