// React glue for the Transport: a context carrying the one Transport instance
// and a hook that follows its ConnectionState.
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import type { ConnectionState, Transport } from './types';

const TransportContext = createContext<Transport | null>(null);

export function TransportProvider({ transport, children }: { transport: Transport; children: ReactNode }) {
  return <TransportContext.Provider value={transport}>{children}</TransportContext.Provider>;
}

export function useTransport(): Transport {
  const t = useContext(TransportContext);
  if (!t) throw new Error('useTransport() outside <TransportProvider>');
  return t;
}

export function useConnectionState(): ConnectionState {
  const transport = useTransport();
  const [state, setState] = useState<ConnectionState>('connecting');
  useEffect(() => transport.onStateChange(setState), [transport]);
  return state;
}
