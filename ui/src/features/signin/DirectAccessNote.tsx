// The sign-in screen's note for a browser on the data API (./directAccess): a link to Relay Web
// when this server runs it, else what to ask the administrator for. Nothing in the desktop or on
// Relay Web itself.
import { useEffect, useState } from 'react';
import { useTransport } from '../../transport/context';
import type { RelayAccess } from '../../transport/types';
import { NO_RELAY_WEB, RELOAD_FORGETS, relayWebUrl } from './directAccess';

export function DirectAccessNote() {
  const transport = useTransport();
  const direct = transport.mode === 'direct' || transport.mode === undefined;
  const [access, setAccess] = useState<RelayAccess | null | 'unknown'>('unknown');
  useEffect(() => {
    if (!direct || !transport.relayAccess) return;
    let live = true;
    transport
      .relayAccess()
      .then((a) => live && setAccess(a))
      .catch(() => live && setAccess(null));
    return () => {
      live = false;
    };
  }, [transport, direct]);
  if (!direct || access === 'unknown') return null;
  const url = relayWebUrl(access, window.location);
  return (
    <div className="signin-direct-note muted" role="note" data-testid="signin-direct-note">
      <p>{RELOAD_FORGETS}</p>
      {url ? (
        <p>
          Relay Web keeps you signed in:{' '}
          <a href={url} data-testid="signin-relay-web-link">
            {url}
          </a>
        </p>
      ) : (
        <p data-testid="signin-no-relay-web">{NO_RELAY_WEB}</p>
      )}
    </div>
  );
}
