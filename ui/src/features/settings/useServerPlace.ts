// Which ServerPlace this renderer is (./serverPlace): the transport's mode, and on the desktop the
// bridge's connection info (server or client mode). Until the bridge answers, a desktop window
// counts as a paired laptop, whose texts name both the desktop screen and the command.
import { useEffect, useState } from 'react';
import { useTransport } from '../../transport/context';
import { DesktopBridge } from '../../transport/desktop';
import type { ServerPlace } from './serverPlace';

export function useServerPlace(w: unknown = globalThis): ServerPlace {
  const mode = useTransport().mode ?? 'direct';
  const [desktopMode, setDesktopMode] = useState<'server' | 'client' | null>(null);
  useEffect(() => {
    if (mode !== 'desktop') return;
    const bridge = DesktopBridge.of(w);
    if (!bridge) return;
    let live = true;
    void bridge.info().then((info) => {
      if (live && (info?.mode === 'server' || info?.mode === 'client')) setDesktopMode(info.mode);
    }).catch(() => undefined);
    return () => {
      live = false;
    };
  }, [mode, w]);
  if (mode !== 'desktop') return mode;
  return desktopMode === 'server' ? 'server-pc' : 'laptop';
}
