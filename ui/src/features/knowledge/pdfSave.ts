// Saving a Wiki PDF the viewer already verified: a browser downloads the bytes under the
// document's file name; the desktop hands them to the shell's native Save As
// (DesktopBridge.saveWikiPdf), which checks them against the checksum again and lets the operator
// pick the folder and name. Answers the note the viewer shows: "Saved as …", nothing when the
// dialog was cancelled (or for a browser download, which the browser reports itself), or why it
// was refused.
import { downloadBlob } from '../../lib/download';
import type { WikiDocument } from './knowledge';

/** The shell's Save As (DesktopBridge.saveWikiPdf). */
export interface PdfSaveShell {
  saveWikiPdf(bytes: Uint8Array, fileName: string, checksum: string): Promise<string | null>;
}

export type SaveNote = { kind: 'saved' | 'error'; text: string } | null;

/** The name a saved copy is offered under: the published file name, else the title as a PDF. */
export function pdfFileName(doc: Pick<WikiDocument, 'fileName' | 'title'>): string {
  return doc.fileName || `${doc.title}.pdf`;
}

export async function savePdf(
  doc: Pick<WikiDocument, 'fileName' | 'title' | 'checksum'>,
  blob: Blob,
  shell: PdfSaveShell | null,
  download: (name: string, blob: Blob) => void = downloadBlob,
): Promise<SaveNote> {
  const name = pdfFileName(doc);
  if (!shell) {
    download(name, blob);
    return null;
  }
  try {
    const saved = await shell.saveWikiPdf(new Uint8Array(await blob.arrayBuffer()), name, doc.checksum);
    return saved === null ? null : { kind: 'saved', text: `Saved as ${saved}.` };
  } catch (err) {
    const message = err instanceof Error && err.message ? err.message : 'The PDF could not be saved.';
    return { kind: 'error', text: message };
  }
}
