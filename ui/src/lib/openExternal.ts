// Opens an https link outside the app: the desktop shell's `open_external` (its rate limit and
// external-link policy decide) inside the desktop, a new browser tab (noopener) on the web.
// Refusals reach the caller as a rejected promise; nothing here checks the link itself.
import { DesktopBridge } from '../transport/desktop';
import type { Transport } from '../transport/types';

export type ExternalOpener = (url: string) => Promise<void>;

export function externalOpener(transport: Pick<Transport, 'mode'>, w: typeof globalThis = globalThis): ExternalOpener {
  const bridge = transport.mode === 'desktop' ? DesktopBridge.of(w) : null;
  if (bridge) return (url) => bridge.openExternal(url);
  return async (url) => {
    w.open(url, '_blank', 'noopener,noreferrer');
  };
}
