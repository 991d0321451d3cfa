// How a window that starts signed out gets its session back without the passphrase being asked
// again, as a pure rule: Relay Web always tries its cookie session first (App, through
// Transport.resumeSession: a reload or a new tab of a signed-in browser); the desktop main window,
// when this load is a reload, signs in with the passphrase the shell already has (client mode:
// the remembered one, never shown to the renderer; server mode: this server's own), the same
// thing the "Use saved passphrase" button does. Desktop popouts borrow the main window's session
// through the shell (transport/desktop aux_session) and need nothing here. The navigation type
// comes from the browser (Navigation Timing), so nothing is stored to remember a sign-in.
import type { TransportMode } from '../../transport/types';

export type StartResume = 'cookie' | 'saved-passphrase' | null;

export function resumeOnStart(o: { mode: TransportMode | undefined; navigation: string | null; popout: boolean }): StartResume {
  if (o.mode === 'relay-web') return 'cookie';
  if (o.mode === 'desktop' && !o.popout && o.navigation === 'reload') return 'saved-passphrase';
  return null;
}

/** This document's navigation type ('navigate', 'reload', 'back_forward', …), or null when unknown. */
export function navigationType(perf: Pick<Performance, 'getEntriesByType'> | undefined = globalThis.performance): string | null {
  try {
    const entry = perf?.getEntriesByType('navigation')[0] as { type?: unknown } | undefined;
    return typeof entry?.type === 'string' ? entry.type : null;
  } catch {
    return null;
  }
}
