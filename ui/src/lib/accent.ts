// Accent colors (Settings → Appearance), persisted in localStorage `relay-accent`;
// other windows follow through the `storage` event.
export const ACCENTS = [
  { id: 'red', label: 'Signal Red', color: '#e63946' },
  { id: 'orange', label: 'Orange', color: '#f97316' },
  { id: 'blue', label: 'Blue', color: '#3b82f6' },
  { id: 'green', label: 'Green', color: '#22c55e' },
  { id: 'pink', label: 'Pink', color: '#ec4899' },
  { id: 'purple', label: 'Purple', color: '#a855f7' },
] as const;
export const ACCENT_KEY = 'relay-accent';
export const DEFAULT_ACCENT = '#e63946';

export function accentColor(stored: string | null): string {
  const hit = ACCENTS.find((a) => a.id === stored || a.color === stored);
  return hit?.color ?? DEFAULT_ACCENT;
}

export function applyAccent(color: string, root: HTMLElement = document.documentElement): void {
  root.style.setProperty('--accent', color);
  root.style.setProperty('--accent-strong', color);
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
