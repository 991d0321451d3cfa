// The alarm tone's fallback (./useAlarmSound plays the MP3 first): WebAudio square pulses (880/1175/740/988 Hz) every 1.5 s while `active`.
// Started only once the sound is armed by a user gesture and turned on (./sound); a context the
// browser keeps suspended reports `onBlocked` so arming waits for the next gesture.
import { useEffect, useRef } from 'react';

export function useAlarmTone(active: boolean, onBlocked: () => void) {
  const blocked = useRef(onBlocked);
  blocked.current = onBlocked;
  useEffect(() => {
    if (!active || typeof AudioContext === 'undefined') return;
    let ctx: AudioContext | null = null;
    const play = () => {
      try {
        ctx ??= new AudioContext();
        if (ctx.state === 'suspended') void ctx.resume().catch(() => blocked.current());
        const t0 = ctx.currentTime;
        [880, 1175, 740, 988].forEach((hz, i) => {
          const osc = ctx!.createOscillator();
          const gain = ctx!.createGain();
          osc.type = 'square';
          osc.frequency.value = hz;
          gain.gain.value = 0.38 * 0.25;
          osc.connect(gain).connect(ctx!.destination);
          osc.start(t0 + i * 0.15);
          osc.stop(t0 + i * 0.15 + 0.12);
        });
      } catch {
        blocked.current(); // the flashing dialog still shows
      }
    };
    play();
    const id = setInterval(play, 1500);
    return () => {
      clearInterval(id);
      void ctx?.close().catch(() => {});
    };
  }, [active]);
}
