// Desktop-only sign-in helpers: whether a passphrase is available without typing (server mode:
// this server's own, revealed by the shell; client mode: one remembered in the OS secret store,
// which the shell uses itself and never hands to the renderer), remembering the passphrase after
// a successful client-mode sign-in, and forgetting it. Outside the desktop shell: inert.
import { useCallback, useEffect, useState } from 'react';
import { DesktopBridge, type DesktopConnectionInfo } from '../../transport/desktop';

export interface DesktopPassphrase {
  info: DesktopConnectionInfo | null;
  /** Client mode with a store that persists: the "Remember on this computer" choice is offered. */
  canRemember: boolean;
  /** Server mode: this server's passphrase. */
  reveal(): Promise<string>;
  remember(passphrase: string): Promise<void>;
  forget(): Promise<void>;
}

export function useDesktopPassphrase(enabled: boolean, w: unknown = globalThis): DesktopPassphrase {
  const [bridge] = useState(() => (enabled ? DesktopBridge.of(w) : null));
  const [info, setInfo] = useState<DesktopConnectionInfo | null>(null);
  const refresh = useCallback(async () => {
    if (!bridge) return;
    setInfo(await bridge.info().catch(() => null));
  }, [bridge]);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  return {
    info,
    canRemember: info?.mode === 'client' && info.secretStorage !== 'memory-only',
    reveal: async () => {
      if (!bridge) throw new Error('Not in the desktop app.');
      return bridge.revealPassphrase();
    },
    remember: async (passphrase) => {
      if (!bridge) return;
      await bridge.rememberPassphrase(passphrase);
      await refresh();
    },
    forget: async () => {
      if (!bridge) return;
      await bridge.forgetPassphrase();
      await refresh();
    },
  };
}
