// The due alarm's sound while `active` (an alarm is due, the sound is on and armed: ./sound):
// loops the active MP3 (./alarmPlayback: bundled or this device's custom one); if it will not
// play, falls back to the WebAudio pulses (./useAlarmTone). A NotAllowedError reports `onBlocked`
// so arming waits for the next gesture. Everything stops and is released when `active` ends and
// on unmount. Sound ignores reduced motion (only the visuals honour it).
import { useEffect, useRef, useState } from 'react';
import { browserPlaybackDeps, playTone, type PlaybackDeps } from './alarmPlayback';
import { useAlarmTone } from './useAlarmTone';

export function useAlarmSound(active: boolean, onBlocked: () => void, deps?: PlaybackDeps): void {
  const blocked = useRef(onBlocked);
  blocked.current = onBlocked;
  const depsRef = useRef(deps);
  depsRef.current = deps;
  const [fallback, setFallback] = useState(false);
  useEffect(() => {
    if (!active) return;
    const stop = playTone(depsRef.current ?? browserPlaybackDeps(), {
      loop: true,
      onBlocked: () => blocked.current(),
      onFallback: () => setFallback(true),
    });
    return () => {
      stop();
      setFallback(false);
    };
  }, [active]);
  useAlarmTone(active && fallback, onBlocked);
}
