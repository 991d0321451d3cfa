// A document's cover thumbnail: fetched with the signed-in transport once the card comes near the
// view (GET /api/relay/wiki/documents/{id}/cover), shown from a blob: URL that is revoked when the
// card goes or the cover changes; a document without a cover (404, or no `coverChecksum`) or a
// failed fetch shows the plain placeholder. Decorative: the card's title names the document.
import { useEffect, useRef, useState } from 'react';
import { useTransport } from '../../transport/context';

export function Cover({ documentId, coverChecksum }: { documentId: string; coverChecksum: string | undefined }) {
  const transport = useTransport();
  const holder = useRef<HTMLDivElement>(null);
  const [near, setNear] = useState(false);
  const [url, setUrl] = useState<string | null>(null);

  useEffect(() => {
    const el = holder.current;
    if (!el || typeof IntersectionObserver !== 'function') {
      setNear(true);
      return;
    }
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          setNear(true);
          io.disconnect();
        }
      },
      { rootMargin: '300px' },
    );
    io.observe(el);
    return () => io.disconnect();
  }, []);

  useEffect(() => {
    if (!near || !coverChecksum) return;
    const ctl = new AbortController();
    let made: string | null = null;
    transport
      .wikiCover(documentId, ctl.signal)
      .then((blob) => {
        if (ctl.signal.aborted || !blob) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      })
      .catch(() => {}); // the placeholder stays
    return () => {
      ctl.abort();
      if (made) URL.revokeObjectURL(made);
      setUrl(null);
    };
  }, [transport, near, documentId, coverChecksum]);

  return (
    <div ref={holder} className="knowledge-cover" aria-hidden="true" data-testid="knowledge-cover" data-loaded={url ? 'true' : 'false'}>
      {url ? <img src={url} alt="" /> : <span className="knowledge-cover-placeholder">PDF</span>}
    </div>
  );
}
