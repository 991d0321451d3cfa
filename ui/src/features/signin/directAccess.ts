// What a browser on the data API is told about staying signed in. There the app token lives in
// page memory only (nothing is persisted), so a reload or a new window asks for the passphrase
// again; Relay Web keeps a session across both. When the server runs Relay Web the sign-in
// screen links to it, by the name the browser already uses when that is an address or
// `localhost` (the gateway accepts its own addresses), else by the `<hostname>.local` name the
// server gives (the gateway's Host allowlist does not know other DNS names).
import type { RelayAccess } from '../../transport/types';

export const RELOAD_FORGETS =
  'On this page the sign-in lasts until you reload or close it: the passphrase and session are kept only in this page’s memory, never in the browser.';
export const NO_RELAY_WEB =
  'For a browser that stays signed in across reloads and pop-outs, ask the administrator of the Relay server to start Relay Web (relay serve --web).';

/** Whether `hostname` (as in `location.hostname`) is an IP address or localhost. */
export function isAddressOrLocalhost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === 'localhost' || /^\d{1,3}(\.\d{1,3}){3}$/.test(h) || (h.startsWith('[') && h.endsWith(']'));
}

/** The Relay Web URL to offer, or null when the server does not run it. */
export function relayWebUrl(access: RelayAccess | null, page: Pick<Location, 'hostname'>): string | null {
  if (!access?.relayWeb) return null;
  const host = isAddressOrLocalhost(page.hostname) ? page.hostname : access.relayWeb.host;
  return `http://${host}:${access.relayWeb.port}/`;
}
