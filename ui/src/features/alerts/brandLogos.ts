// Company and footer logos on the alert card: each is read from
// GET /api/relay/branding/logo/{kind} (set on the server PC) into an object URL when the Alerts
// view first shows and again after a logo change in this window (lib/logoChanges); the previous
// URL is revoked. No logo set, no connection or a refused read simply shows no logo.
import { useEffect, useMemo, useState } from 'react';
import { onLogosChanged, type ObjectUrls } from '../../lib/logoChanges';
import { useTransport } from '../../transport/context';
import type { LogoKind } from '../../transport/types';

export type LogoReader = (kind: LogoKind) => Promise<Blob | null>;

/**
 * Reads `kind`'s logo and hands its URL to `show` (nothing when none is set or the read fails).
 * Returns the cleanup: it revokes the URL, and an answer arriving after it is dropped unseen.
 */
export function loadLogo(read: LogoReader, kind: LogoKind, show: (url: string) => void, urls: ObjectUrls = URL): () => void {
  let live = true;
  let made: string | null = null;
  read(kind)
    .then((blob) => {
      if (!live || !blob) return;
      made = urls.createObjectURL(blob);
      show(made);
    })
    .catch(() => {});
  return () => {
    live = false;
    if (made) urls.revokeObjectURL(made);
  };
}

/** The `kind` logo's URL for this view, or null. */
export function useBrandLogo(kind: LogoKind): string | null {
  const transport = useTransport();
  const read = useMemo<LogoReader>(() => (k) => transport.brandingLogo(k), [transport]);
  const [url, setUrl] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => onLogosChanged(() => setVersion((v) => v + 1)), []);
  useEffect(() => {
    setUrl(null);
    return loadLogo(read, kind, setUrl);
  }, [read, kind, version]);
  return url;
}
