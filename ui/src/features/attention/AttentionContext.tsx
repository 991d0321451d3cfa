// The window's attention signals, mounted once in the Shell: due alarms (./useDueAlarms) and
// connection loss change the window title and the favicon (./attention) and are restored when
// resolved; the time the connection was lost feeds the banner; the alarm sound's on/off choice
// (per device) and its arming by the first user gesture (./sound). Components read it with
// useAttention(); it renders nothing itself.
import { createContext, useContext, useEffect, useMemo, useReducer, useState, type ReactNode } from 'react';
import { useConnectionState } from '../../transport/context';
import type { ConnectionState } from '../../transport/types';
import { attentionFor, attentionTitle, faviconHref, nextLostAt, stripPrefixes, type Attention } from './attention';
import { loadSoundEnabled, saveSoundEnabled, shouldPlay, soundReducer, type SoundState } from './sound';
import { useDueAlarms, type AlarmRec } from './useDueAlarms';

export interface AttentionApi {
  due: AlarmRec[];
  connection: ConnectionState;
  attention: Attention;
  /** When the connection was lost (ms), null while connected. */
  lostAt: number | null;
  sound: SoundState;
  /** The alarm sound may play now. */
  playing: boolean;
  toggleSound: () => void;
  /** Audio was refused: wait for another gesture. */
  soundBlocked: () => void;
}

const Ctx = createContext<AttentionApi | null>(null);

export function useAttention(): AttentionApi {
  const a = useContext(Ctx);
  if (!a) throw new Error('useAttention outside AttentionProvider');
  return a;
}

/** Keeps document.title and the icon link in step with `a`; restores both on unmount. */
function useWindowSignals(a: Attention) {
  useEffect(() => {
    document.title = attentionTitle(document.title, a);
  }, [a]);
  useEffect(() => {
    const link = document.querySelector<HTMLLinkElement>('link[rel~="icon"]');
    if (!link) return;
    const normal = link.getAttribute('href') ?? '/favicon.svg';
    link.setAttribute('href', faviconHref(a.favicon, normal));
    return () => link.setAttribute('href', normal);
  }, [a.favicon]);
  useEffect(() => () => void (document.title = stripPrefixes(document.title)), []);
}

function hadGesture(): boolean {
  return typeof navigator !== 'undefined' && Boolean((navigator as { userActivation?: { hasBeenActive?: boolean } }).userActivation?.hasBeenActive);
}

export function AttentionProvider({ children }: { children: ReactNode }) {
  const due = useDueAlarms();
  const connection = useConnectionState();
  const [lostAt, setLostAt] = useState<number | null>(null);
  useEffect(() => setLostAt((prev) => nextLostAt(prev, connection, Date.now())), [connection]);
  // A gesture before the shell mounted (the sign-in click) already counts: the browser's sticky activation.
  const [sound, dispatch] = useReducer(soundReducer, undefined, (): SoundState => ({ enabled: loadSoundEnabled(), armed: hadGesture() }));

  // Armed by the first user gesture (capture phase, so a handler that stops propagation still counts).
  useEffect(() => {
    if (sound.armed) return;
    const arm = () => dispatch({ type: 'gesture' });
    window.addEventListener('pointerdown', arm, true);
    window.addEventListener('keydown', arm, true);
    return () => {
      window.removeEventListener('pointerdown', arm, true);
      window.removeEventListener('keydown', arm, true);
    };
  }, [sound.armed]);

  const attention = useMemo(() => attentionFor({ due: due.length, connection }), [due.length, connection]);
  useWindowSignals(attention);

  const api = useMemo<AttentionApi>(
    () => ({
      due,
      connection,
      attention,
      lostAt,
      sound,
      playing: shouldPlay(sound, due.length > 0),
      toggleSound: () => {
        saveSoundEnabled(!sound.enabled);
        dispatch({ type: 'toggle' });
      },
      soundBlocked: () => dispatch({ type: 'blocked' }),
    }),
    [due, connection, attention, lostAt, sound],
  );
  return <Ctx.Provider value={api}>{children}</Ctx.Provider>;
}
