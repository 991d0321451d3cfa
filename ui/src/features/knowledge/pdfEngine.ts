// pdf.js for the Knowledge viewer, loaded on first use (its own chunk) with its worker bundled as
// a same-origin file (Vite `?url`), so the CSP's `script-src 'self'` (and `worker-src 'self'` on
// the desktop) is all it needs. Documents open only from bytes already verified in memory: no
// URL, no range or stream fetches, no eval, no XFA, no system or fetched fonts (non-embedded
// standard fonts fall back to the browser's generic ones), no CMaps, no WebAssembly decoders.
// Renders one page into a canvas; no text or annotation layer, so links in a PDF are inert.
import type { PDFDocumentProxy, RenderTask } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

export type PdfDocument = PDFDocumentProxy;

/** The getDocument options besides `data` (exported for the test that pins them). */
export const PDF_OPTIONS = {
  isEvalSupported: false,
  disableAutoFetch: true,
  disableStream: true,
  disableRange: true,
  enableXfa: false,
  useSystemFonts: false,
  useWorkerFetch: false,
  useWasm: false,
  stopAtErrors: false,
  // 0: errors only; warnings (a missing standard font) stay out of the console.
  verbosity: 0,
} as const;

/** Opens a PDF from verified bytes (pdf.js takes ownership of the buffer). */
export async function openPdf(data: Uint8Array): Promise<PdfDocument> {
  const pdfjs = await import('pdfjs-dist');
  pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;
  return pdfjs.getDocument({ ...PDF_OPTIONS, data }).promise;
}

/** Longest canvas side in CSS pixels times the device pixel ratio we allow (memory bound). */
const MAX_CANVAS_SIDE = 4096;

/**
 * Renders page `pageNumber` (from 1) at `cssWidth` CSS pixels wide into `canvas`; resolves when
 * drawn. `cancel()` on the returned task stops it (a page scrolled away, the viewer closed).
 */
export async function renderPage(
  doc: PdfDocument,
  pageNumber: number,
  canvas: HTMLCanvasElement,
  cssWidth: number,
): Promise<{ task: RenderTask; done: Promise<void> }> {
  const page = await doc.getPage(pageNumber);
  const base = page.getViewport({ scale: 1 });
  const ratio = Math.min(globalThis.devicePixelRatio || 1, 2);
  const scale = Math.min(cssWidth / base.width, MAX_CANVAS_SIDE / (Math.max(base.width, base.height) * ratio));
  const viewport = page.getViewport({ scale: scale * ratio });
  canvas.width = Math.floor(viewport.width);
  canvas.height = Math.floor(viewport.height);
  canvas.style.width = `${Math.floor(viewport.width / ratio)}px`;
  canvas.style.height = `${Math.floor(viewport.height / ratio)}px`;
  const task = page.render({ canvas, viewport });
  return { task, done: task.promise };
}

/** Page size at scale 1 (points), for placeholders before a page is drawn. */
export async function pageAspect(doc: PdfDocument, pageNumber: number): Promise<number> {
  const page = await doc.getPage(pageNumber);
  const v = page.getViewport({ scale: 1 });
  return v.height / v.width;
}
