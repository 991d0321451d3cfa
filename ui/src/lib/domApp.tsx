// The providers a view needs in the jsdom tests, in the app's order: its Transport, toasts and
// the shared live collections (DataProvider). Test code only: nothing in the app imports it.
import type { ReactNode } from 'react';
import { ToastProvider } from '../components/Toasts';
import { DataProvider } from '../data/store';
import { TransportProvider } from '../transport/context';
import type { Transport } from '../transport/types';

/** `view` inside TransportProvider, ToastProvider and DataProvider. */
export function inApp(transport: Transport, view: ReactNode) {
  return (
    <TransportProvider transport={transport}>
      <ToastProvider>
        <DataProvider>{view}</DataProvider>
      </ToastProvider>
    </TransportProvider>
  );
}
