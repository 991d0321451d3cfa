// Presence: heartbeat every 15 s with a per-tab session id (sessionStorage), poll the
// active-client list, and toast "<hostname> connected" for new sessions after the first snapshot.
// A renderer cannot learn its host name: it reports "browser" or "desktop" and the server names
// it by the address it sees (`Web · Browser · 10.0.0.7`, actors/src/presence client_hostname).
// The id comes from lib/ids (getRandomValues), which works on Relay Web's plain-http page too.
import { useEffect, useRef, useState } from 'react';
import { uuidV4 } from '../../lib/ids';
import { useTransport } from '../../transport/context';
import type { PresenceSnapshot, TransportMode } from '../../transport/types';

export const SESSION_KEY = 'relay:client-presence-session-id';
export const HEARTBEAT_MS = 15_000;
/** The server recomputes the active set every 5 s; follow it at that pace. */
export const PRESENCE_POLL_MS = 5_000;

/** This tab's id: kept in sessionStorage, or a fresh one each call where storage is refused. */
export function sessionId(): string {
  try {
    let id = sessionStorage.getItem(SESSION_KEY);
    if (!id) {
      id = uuidV4();
      sessionStorage.setItem(SESSION_KEY, id);
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
    const me = sessionId();
    let alive = true;
    const beat = () => transport.heartbeat(me, reportedHostname(transport.mode)).catch(() => {});
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
