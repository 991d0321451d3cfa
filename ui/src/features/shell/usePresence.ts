// Presence: heartbeat every 15 s with this tab's own id (sessionStorage), poll the active-client
// list, and toast "<hostname> connected" for clients that appear after the first snapshot.
// The server keys each row by a presence id it derives from the tab id and this window's
// signed-in session (#39.6: no other client can reach the row, and the list never shows a tab
// id); the heartbeat answers this tab's presence id, which is how the hook knows itself and never
// toasts its own row. A renderer cannot learn its host name: it reports "browser" or "desktop"
// and the server names it by the address it sees (`Web · Browser · 10.0.0.7`,
// actors/src/presence client_hostname). The tab id comes from lib/ids (getRandomValues), which
// works on Relay Web's plain-http page too.
import { useEffect, useRef, useState } from 'react';
import { uuidV4 } from '../../lib/ids';
import { useTransport } from '../../transport/context';
import type { PresenceSnapshot, TransportMode } from '../../transport/types';

export const TAB_ID_KEY = 'relay:client-presence-session-id';
export const HEARTBEAT_MS = 15_000;
/** The server recomputes the active set every 5 s; follow it at that pace. */
export const PRESENCE_POLL_MS = 5_000;

/** This tab's own id: kept in sessionStorage, or a fresh one each call where storage is refused. */
export function tabId(): string {
  try {
    let id = sessionStorage.getItem(TAB_ID_KEY);
    if (!id) {
      id = uuidV4();
      sessionStorage.setItem(TAB_ID_KEY, id);
    }
    return id;
  } catch {
    return uuidV4();
  }
}

/** What this window reports as its hostname in heartbeats. */
export function reportedHostname(mode: TransportMode | undefined): 'browser' | 'desktop' {
  return mode === 'desktop' ? 'desktop' : 'browser';
}

export function usePresence(onNewClient: (hostname: string) => void): PresenceSnapshot | null {
  const transport = useTransport();
  const [snap, setSnap] = useState<PresenceSnapshot | null>(null);
  const known = useRef<Set<string> | null>(null);
  const cb = useRef(onNewClient);
  cb.current = onNewClient;
  useEffect(() => {
    const tab = tabId();
    /** This tab's presence id, as the last heartbeat answered it. */
    let me: string | null = null;
    let alive = true;
    const beat = () =>
      transport
        .heartbeat(tab, reportedHostname(transport.mode))
        .then((row) => {
          if (typeof row?.sessionId === 'string') me = row.sessionId;
        })
        .catch(() => {});
    const poll = async () => {
      const p = await transport.presence().catch(() => null);
      if (!alive || !p) return;
      const ids = new Set(p.active.map((a) => a.sessionId));
      if (known.current) {
        for (const a of p.active) if (a.sessionId !== me && !known.current.has(a.sessionId)) cb.current(a.hostname);
      }
      known.current = ids;
      setSnap(p);
    };
    void beat().then(poll);
    const hb = setInterval(beat, HEARTBEAT_MS);
    const pp = setInterval(poll, PRESENCE_POLL_MS);
    return () => {
      alive = false;
      clearInterval(hb);
      clearInterval(pp);
    };
  }, [transport]);
  return snap;
}
