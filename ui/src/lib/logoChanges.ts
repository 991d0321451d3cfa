// What the logo readers share: a same-window signal that a logo was set or removed (Settings →
// Administration → Logos), so the alert card, which stays mounted with its tab, reads the logos
// again at once (other clients read them when they next load the Alerts view); and the object-URL
// interface both the card and the Settings previews show them through.

/** Object URLs for logo images (the browser's `URL`, or a fake in tests). */
export interface ObjectUrls {
  createObjectURL(blob: Blob): string;
  revokeObjectURL(url: string): void;
}

const listeners = new Set<() => void>();

/** Calls `listener` after every change; returns the unsubscribe. */
export function onLogosChanged(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells every listener that a logo changed. */
export function logosChanged(): void {
  for (const l of [...listeners]) l();
}
