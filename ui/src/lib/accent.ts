// Accent colors (Settings → Appearance), persisted in localStorage `relay-accent`;
// other windows follow through the `storage` event. The colours themselves live in palette.ts.
import { ACCENTS, DEFAULT_ACCENT as DEFAULT } from './palette';

export { ACCENTS } from './palette';
export const ACCENT_KEY = 'relay-accent';
export const DEFAULT_ACCENT: string = DEFAULT.color;

export function accentColor(stored: string | null): string {
  const hit = ACCENTS.find((a) => a.id === stored || a.color === stored);
  return hit?.color ?? DEFAULT_ACCENT;
}

export function applyAccent(color: string, root: HTMLElement = document.documentElement): void {
  root.style.setProperty('--accent', color);
  root.style.setProperty('--accent-strong', ACCENTS.find((a) => a.color === color)?.strong ?? color);
}

export function readAccent(): string {
  try {
    return accentColor(localStorage.getItem(ACCENT_KEY));
  } catch {
    return DEFAULT_ACCENT;
  }
}

export function installAccent(): void {
  applyAccent(readAccent());
  window.addEventListener('storage', (e) => {
    if (e.key === ACCENT_KEY) applyAccent(accentColor(e.newValue));
  });
}
