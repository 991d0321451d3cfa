// Alarm sound arming: browsers refuse audio until the page has seen a user gesture, so the
// sound is "armed" by the first gesture (or by turning it on, itself a gesture), and the
// operator's Sound on/off choice is kept per device in localStorage. A pure state machine
// plus the storage read/write; it plays nothing (./useAlarmSound does).

export const SOUND_KEY = 'relay-alarm-sound';

export interface SoundState {
  /** The operator's choice (persisted per device); on by default. */
  enabled: boolean;
  /** A user gesture has been seen, so audio may start. */
  armed: boolean;
}

export type SoundEvent =
  | { type: 'gesture' }
  | { type: 'toggle' }
  /** Playing failed (the browser still blocks audio): wait for another gesture. */
  | { type: 'blocked' };

export function soundReducer(s: SoundState, e: SoundEvent): SoundState {
  switch (e.type) {
    case 'gesture':
      return s.armed ? s : { ...s, armed: true };
    case 'toggle':
      return { enabled: !s.enabled, armed: true };
    case 'blocked':
      return s.armed ? { ...s, armed: false } : s;
  }
}

/** Audio may play: the operator wants it, the browser allows it, and an alarm is due. */
export const shouldPlay = (s: SoundState, alarmDue: boolean) => s.enabled && s.armed && alarmDue;

/** What the toggle shows: "Sound on" / "Sound off", and a hint while not yet armed. */
export function soundLabel(s: SoundState): { text: string; hint: string } {
  if (!s.enabled) return { text: 'Sound off', hint: 'Alarm sound is off on this device' };
  if (!s.armed) return { text: 'Sound on', hint: 'Alarm sound: click anywhere to allow it (the browser blocks sound until then)' };
  return { text: 'Sound on', hint: 'Alarm sound is on on this device' };
}

type Storage = Pick<globalThis.Storage, 'getItem' | 'setItem'> | null;

function storage(): Storage {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

export function loadSoundEnabled(s: Storage = storage()): boolean {
  try {
    return s?.getItem(SOUND_KEY) !== 'off';
  } catch {
    return true;
  }
}

export function saveSoundEnabled(enabled: boolean, s: Storage = storage()): void {
  try {
    s?.setItem(SOUND_KEY, enabled ? 'on' : 'off');
  } catch {
    /* storage off: the choice lasts this session */
  }
}
