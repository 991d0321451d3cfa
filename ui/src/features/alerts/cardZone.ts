// The time zone the alert card shows its event times in: a setting of this device (Settings →
// Alert card), kept in localStorage under `relay-alert-card-zone`, by default America/Chicago
// (Central Time), the zone the original always rendered the card in. A new draft's entry zone
// starts on it too. A change is announced to this window (an event) and seen by the other
// windows of the browser (the storage event); useCardZone re-renders on both. Storage that is
// missing or throws reads as the default; a stored value that is not a zone this browser knows
// reads as the default too.
import { useSyncExternalStore } from 'react';
import { isTimeZone } from './eventTimes';

export const CARD_ZONE_KEY = 'relay-alert-card-zone';
export const DEFAULT_CARD_ZONE = 'America/Chicago';
const CHANGED = 'relay-alert-card-zone-changed';

function storage(): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

/** This device's card zone (DEFAULT_CARD_ZONE unless a known zone was chosen). */
export function readCardZone(): string {
  let stored: string | null = null;
  try {
    stored = storage()?.getItem(CARD_ZONE_KEY) ?? null;
  } catch {
    stored = null;
  }
  return stored && isTimeZone(stored) ? stored : DEFAULT_CARD_ZONE;
}

/** Keeps `zone` as this device's card zone (the default is kept as no setting); false when refused. */
export function writeCardZone(zone: string): boolean {
  if (!isTimeZone(zone)) return false;
  try {
    if (zone === DEFAULT_CARD_ZONE) storage()?.removeItem(CARD_ZONE_KEY);
    else storage()?.setItem(CARD_ZONE_KEY, zone);
  } catch {
    return false;
  }
  if (typeof window !== 'undefined') window.dispatchEvent(new Event(CHANGED));
  return true;
}

function subscribe(onChange: () => void): () => void {
  if (typeof window === 'undefined') return () => {};
  const onStorage = (e: StorageEvent) => {
    if (e.key === null || e.key === CARD_ZONE_KEY) onChange();
  };
  window.addEventListener(CHANGED, onChange);
  window.addEventListener('storage', onStorage);
  return () => {
    window.removeEventListener(CHANGED, onChange);
    window.removeEventListener('storage', onStorage);
  };
}

/** The card zone, kept current when this window or another one changes it. */
export function useCardZone(): string {
  return useSyncExternalStore(subscribe, readCardZone, () => DEFAULT_CARD_ZONE);
}
