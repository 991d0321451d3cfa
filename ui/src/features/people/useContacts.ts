// Hook that loads contacts through the Transport, keeps them live via the
// `contacts` realtime subscription, resyncs after an outage, and adds contacts.
import { useCallback, useEffect, useReducer, useRef } from 'react';
import { useConnectionState, useTransport } from '../../transport/context';
import type { RealtimeEvent } from '../../transport/types';
import { CONTACTS, contactsReducer, initialContactsState, type Contact } from './contacts';

export function useContacts() {
  const transport = useTransport();
  const connection = useConnectionState();
  const [state, dispatch] = useReducer(contactsReducer, initialContactsState);
  const live = useRef(true);

  const load = useCallback(() => {
    dispatch({ type: 'sync-start' });
    transport
      .getFullList<Contact>(CONTACTS, { sort: 'name' })
      .then((contacts) => live.current && dispatch({ type: 'loaded', contacts }))
      .catch((err: unknown) => live.current && dispatch({ type: 'failed', error: errorText(err) }));
  }, [transport]);

  // Subscribe and fetch together; events racing the fetch are replayed onto it.
  useEffect(() => {
    let active = true; // per run: StrictMode mounts twice, each run owns its subscription
    let unsubscribe: (() => void) | null = null;
    live.current = true;
    transport
      .subscribe(CONTACTS, (event: RealtimeEvent) => {
        if (active) dispatch({ type: 'event', event: event as RealtimeEvent<Contact> });
      })
      .then((unsub) => {
        if (active) unsubscribe = unsub;
        else unsub();
      })
      .catch(() => {
        /* the connection state already shows realtime trouble */
      });
    load();
    return () => {
      active = false;
      live.current = false;
      unsubscribe?.();
    };
  }, [transport, load]);

  // Events missed while offline/reconnecting: refetch once we are back.
  const previous = useRef(connection);
  useEffect(() => {
    const was = previous.current;
    previous.current = connection;
    if (connection === 'connected' && was !== 'connected' && state.status !== 'loading' && !state.syncing) load();
  }, [connection, load, state.status, state.syncing]);

  const addContact = useCallback(
    async (data: { name: string; email: string }): Promise<void> => {
      const created = await transport.create<Contact>(CONTACTS, data);
      // Show it now; the realtime echo of the same record merges as a no-op.
      dispatch({ type: 'event', event: { action: 'create', record: created } });
    },
    [transport],
  );

  return { status: state.status, contacts: state.contacts, error: state.error, addContact };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : 'Could not load contacts.';
}
