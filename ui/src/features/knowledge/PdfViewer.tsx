// The Knowledge tab's in-app PDF viewer (a dialog; Esc closes it): fetches the document's bytes
// with the signed-in transport, refuses to show them unless their SHA-256 matches the published
// checksum (./pdfVerify), then renders pages to canvases as they scroll into view (pages far away
// are released again), with previous/next, a page number field, the outline panel from the
// record's `outline`, and opening at a given page (a search hit). No text or annotation layer:
// links inside a PDF are inert. Download saves the verified bytes (./pdfSave): a browser download
// under the document's file name, or on the desktop the shell's native Save As, which checks
// them again; the button is disabled until the checksum matched.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type FormEvent, type RefObject } from 'react';
import { Modal } from '../../components/Modal';
import { errorMessage } from '../../components/Toasts';
import { useTransport } from '../../transport/context';
import { DesktopBridge } from '../../transport/desktop';
import { isTransportError } from '../../transport/types';
import { outlineOf, pagesText, typeLabel, type WikiDocument } from './knowledge';
import { openPdf, pageAspect, renderPage, type PdfDocument } from './pdfEngine';
import { savePdf, type SaveNote } from './pdfSave';
import { ChecksumMismatch, verifiedPdfBytes } from './pdfVerify';

/** Pages rendered ahead of the visible area (CSS margin of the observer). */
const RENDER_MARGIN = '600px 0px';
/** Widest a page is drawn, CSS px. */
const MAX_PAGE_WIDTH = 960;
/** Gap between pages, px (keep in step with `.pdf-pages` in styles.css). */
const PAGE_GAP = 12;

type Load =
  | { status: 'loading'; step: string }
  | { status: 'ready'; pdf: PdfDocument; aspect: number; blob: Blob }
  | { status: 'error'; message: string };

export function clampPage(n: number, count: number): number {
  if (!Number.isFinite(n) || count < 1) return 1;
  return Math.min(Math.max(1, Math.round(n)), count);
}

function loadError(err: unknown): string {
  if (err instanceof ChecksumMismatch) return err.message;
  if (isTransportError(err) && err.kind === 'not-found') return 'This document is no longer in the library.';
  if (isTransportError(err)) return errorMessage(err, 'The PDF could not be fetched.');
  return 'This PDF could not be opened.';
}

export function PdfViewer({
  doc,
  initialPage,
  removed,
  onClose,
}: {
  doc: WikiDocument;
  initialPage: number;
  /** The document left the library while open (trashed): shown, no longer downloadable. */
  removed: boolean;
  onClose: () => void;
}) {
  const transport = useTransport();
  // The desktop window saves through the shell's native Save As (never a renderer download).
  const shell = useMemo(() => (transport.mode === 'desktop' ? DesktopBridge.of(globalThis) : null), [transport.mode]);
  const canDownload = transport.mode !== 'desktop' || shell !== null;
  const [saving, setSaving] = useState(false);
  const [saveNote, setSaveNote] = useState<SaveNote>(null);
  const [load, setLoad] = useState<Load>({ status: 'loading', step: 'Fetching the PDF…' });
  const [page, setPage] = useState(() => clampPage(initialPage, doc.pageCount || 1));
  const [pageInput, setPageInput] = useState(String(page));
  const [showOutline, setShowOutline] = useState(true);
  const scroller = useRef<HTMLDivElement>(null);
  /** Set by a page jump; keeps that page current while the scroll cannot move further. */
  const pinned = useRef<number | null>(initialPage);
  const outline = useMemo(() => outlineOf(doc), [doc]);
  const count = load.status === 'ready' ? load.pdf.numPages : Math.max(1, doc.pageCount || 1);

  useEffect(() => {
    const ctl = new AbortController();
    let pdf: PdfDocument | null = null;
    let live = true;
    setLoad({ status: 'loading', step: 'Fetching the PDF…' });
    (async () => {
      const fetched = await transport.wikiPdf(doc.id, ctl.signal);
      if (!live) return;
      setLoad({ status: 'loading', step: 'Checking the PDF…' });
      const bytes = await verifiedPdfBytes(fetched, doc.checksum);
      // Copied before pdf.js takes the buffer over to its worker.
      const blob = new Blob([bytes as BlobPart], { type: 'application/pdf' });
      const opened = await openPdf(bytes);
      if (!live) {
        void opened.destroy();
        return;
      }
      pdf = opened;
      setLoad({ status: 'ready', pdf: opened, aspect: await pageAspect(opened, 1), blob });
    })().catch((err: unknown) => {
      if (live && !(isTransportError(err) && err.kind === 'aborted')) setLoad({ status: 'error', message: loadError(err) });
    });
    return () => {
      live = false;
      ctl.abort();
      if (pdf) void pdf.destroy();
    };
  }, [transport, doc.id, doc.checksum]);

  const scrollToPage = useCallback((n: number, pin = true) => {
    const el = scroller.current?.querySelector<HTMLElement>(`[data-page="${n}"]`);
    if (!el || !scroller.current) return;
    pinned.current = pin ? n : null;
    scroller.current.scrollTop = el.offsetTop; // `.pdf-pages` is the offset parent
  }, []);

  const goTo = useCallback(
    (n: number) => {
      const to = clampPage(n, count);
      setPage(to);
      setPageInput(String(to));
      scrollToPage(to);
    },
    [count, scrollToPage],
  );

  // The pages' width follows the scroll area (drawn again on a resize).
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const box = scroller.current;
    if (!box) return;
    const measure = () => setWidth(Math.max(200, Math.min(box.clientWidth - 24, MAX_PAGE_WIDTH)));
    measure();
    const ro = typeof ResizeObserver === 'function' ? new ResizeObserver(measure) : null;
    ro?.observe(box);
    return () => ro?.disconnect();
  }, []);

  // Open at the asked page once the pages are laid out (they exist once ready and measured).
  const ready = load.status === 'ready';
  const laidOut = ready && width > 0;
  useEffect(() => {
    if (laidOut) goTo(initialPage);
    // Only when the pages first exist (or another page is asked for).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [laidOut, initialPage]);

  const onScroll = () => {
    const box = scroller.current;
    if (!box) return;
    const probe = box.scrollTop + box.clientHeight / 3;
    let current = 1;
    for (const el of box.querySelectorAll<HTMLElement>('[data-page]')) {
      if (el.offsetTop <= probe) current = Number(el.dataset.page);
    }
    const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - 2;
    if (pinned.current !== null && (atEnd || pinned.current === current)) current = Math.max(current, pinned.current);
    setPage(current);
    setPageInput(String(current));
  };
  const release = () => {
    pinned.current = null;
  };

  const submitPage = (e: FormEvent) => {
    e.preventDefault();
    const n = Number(pageInput);
    if (Number.isFinite(n)) goTo(n);
    else setPageInput(String(page));
  };

  const download = () => {
    if (load.status !== 'ready' || removed || saving) return;
    setSaving(true);
    setSaveNote(null);
    void savePdf(doc, load.blob, shell).then((note) => {
      setSaveNote(note);
      setSaving(false);
    });
  };

  return (
    <Modal title={doc.title} onClose={onClose} className="modal-viewer" testId="pdf-viewer">
      <div className="pdf-toolbar">
        <button type="button" className="button button-ghost small" onClick={() => goTo(page - 1)} disabled={!ready || page <= 1} data-testid="pdf-prev">
          Previous page
        </button>
        <form className="pdf-page-form" onSubmit={submitPage}>
          <label htmlFor="pdf-page-number">Page</label>
          <input
            id="pdf-page-number"
            className="input pdf-page-input"
            inputMode="numeric"
            value={pageInput}
            onChange={(e) => setPageInput(e.target.value)}
            onBlur={() => setPageInput(String(page))}
            disabled={!ready}
            data-testid="pdf-page-indicator"
            aria-describedby="pdf-page-count"
          />
          <span id="pdf-page-count" className="muted">
            of {count}
          </span>
        </form>
        <button type="button" className="button button-ghost small" onClick={() => goTo(page + 1)} disabled={!ready || page >= count} data-testid="pdf-next">
          Next page
        </button>
        {outline.length > 0 && (
          <button type="button" className="button button-ghost small" aria-pressed={showOutline} onClick={() => setShowOutline((v) => !v)} data-testid="pdf-outline-toggle">
            Outline
          </button>
        )}
        <span className="muted small push-right">
          {typeLabel(doc.documentType)} · {pagesText(doc.pageCount)}
        </span>
        {canDownload && (
          <button type="button" className="button button-primary small" onClick={download} disabled={!ready || removed || saving} data-testid="pdf-download">
            {saving ? 'Saving…' : 'Download'}
          </button>
        )}
      </div>
      {saveNote && (
        <p className={`${saveNote.kind === 'error' ? 'error-text' : 'muted'} small`} role={saveNote.kind === 'error' ? 'alert' : 'status'} data-testid="pdf-save-note">
          {saveNote.text}
        </p>
      )}
      {removed && (
        <p className="warn-text small" role="status">
          This document was removed from the library while open.
        </p>
      )}
      <div className="pdf-body">
        {outline.length > 0 && showOutline && (
          <div className="pdf-outline" role="group" aria-label="Outline" data-testid="pdf-outline">
            <ul className="plain-list">
              {outline.map((o, i) => (
                <li key={i} className={`pdf-outline-depth-${o.depth}`}>
                  <button type="button" className="link-button pdf-outline-item" onClick={() => goTo(o.pageIndex + 1)} disabled={!ready}>
                    {o.title}
                  </button>
                </li>
              ))}
            </ul>
          </div>
        )}
        <div
          ref={scroller}
          className="pdf-pages"
          onScroll={onScroll}
          onWheel={release}
          onPointerDown={release}
          onKeyDown={release}
          tabIndex={0}
          role="region"
          aria-label={`Pages of ${doc.title}`}
          data-testid="pdf-pages"
        >
          {load.status === 'loading' && (
            <p className="muted" role="status">
              {load.step}
            </p>
          )}
          {load.status === 'error' && (
            <p className="error-text" role="alert" data-testid="pdf-error">
              {load.message}
            </p>
          )}
          {load.status === 'ready' && width > 0 && <Pages pdf={load.pdf} aspect={load.aspect} width={width} scroller={scroller} />}
        </div>
      </div>
    </Modal>
  );
}

/** Every page as a placeholder of the first page's shape; a page is drawn while near the view. */
function Pages({ pdf, aspect, width, scroller }: { pdf: PdfDocument; aspect: number; width: number; scroller: RefObject<HTMLDivElement | null> }) {
  const numbers = useMemo(() => Array.from({ length: pdf.numPages }, (_, i) => i + 1), [pdf]);
  return (
    <>
      {numbers.map((n) => (
        <PageCanvas key={n} pdf={pdf} n={n} width={width} height={Math.round(width * aspect)} scroller={scroller} />
      ))}
      <div className="pdf-gap" aria-hidden="true" style={{ height: PAGE_GAP }} />
    </>
  );
}

function PageCanvas({
  pdf,
  n,
  width,
  height,
  scroller,
}: {
  pdf: PdfDocument;
  n: number;
  width: number;
  height: number;
  scroller: RefObject<HTMLDivElement | null>;
}) {
  const holder = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [near, setNear] = useState(false);
  const [drawn, setDrawn] = useState(false);

  useEffect(() => {
    const el = holder.current;
    if (!el || typeof IntersectionObserver !== 'function') {
      setNear(true);
      return;
    }
    const io = new IntersectionObserver((entries) => setNear(entries.some((e) => e.isIntersecting)), { root: scroller.current, rootMargin: RENDER_MARGIN });
    io.observe(el);
    return () => io.disconnect();
  }, [scroller]);

  useEffect(() => {
    const c = canvas.current;
    if (!near || !c) return;
    let cancelled = false;
    let cancel: (() => void) | null = null;
    renderPage(pdf, n, c, width)
      .then(({ task, done }) => {
        cancel = () => task.cancel();
        if (cancelled) task.cancel();
        return done;
      })
      .then(
        () => !cancelled && setDrawn(true),
        () => {}, // cancelled, or a page pdf.js cannot draw: it stays a blank placeholder
      );
    return () => {
      cancelled = true;
      cancel?.();
      // Far away again: give the bitmap back.
      c.width = 0;
      c.height = 0;
      setDrawn(false);
    };
  }, [near, pdf, n, width]);

  return (
    <div
      ref={holder}
      className="pdf-page"
      data-page={n}
      data-drawn={drawn ? 'true' : 'false'}
      style={{ width, minHeight: drawn ? undefined : height }}
      aria-label={`Page ${n}`}
      role="img"
    >
      <canvas ref={canvas} />
    </div>
  );
}
