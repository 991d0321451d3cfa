// Saving a verified Wiki PDF: browsers download it under the published file name (the title as a
// PDF when there is none) with no note; the desktop sends the exact bytes, name and checksum to
// the shell's Save As and shows "Saved as …", nothing when cancelled, or the shell's refusal.
import { describe, expect, it, vi } from 'vitest';
import { BridgeRefusal } from '../../transport/desktop';
import { pdfFileName, savePdf } from './pdfSave';

const DOC = { fileName: 'Core Router SOP.pdf', title: 'Core Router SOP', checksum: 'ab'.repeat(32) };
const BYTES = new TextEncoder().encode('%PDF-1.7\n%%EOF\n');
const blob = () => new Blob([BYTES], { type: 'application/pdf' });

describe('savePdf', () => {
  it('downloads in a browser under the file name, the title as a PDF when it has none', async () => {
    const download = vi.fn();
    await expect(savePdf(DOC, blob(), null, download)).resolves.toBeNull();
    expect(download).toHaveBeenCalledWith('Core Router SOP.pdf', expect.any(Blob));
    expect(pdfFileName({ fileName: '', title: 'Quick guide' })).toBe('Quick guide.pdf');
  });

  it('hands the desktop shell the exact bytes, the name and the checksum, never downloading itself', async () => {
    const download = vi.fn();
    const saveWikiPdf = vi.fn(async () => 'Router.pdf');
    await expect(savePdf(DOC, blob(), { saveWikiPdf }, download)).resolves.toEqual({ kind: 'saved', text: 'Saved as Router.pdf.' });
    expect(saveWikiPdf).toHaveBeenCalledWith(BYTES, 'Core Router SOP.pdf', DOC.checksum);
    expect(download).not.toHaveBeenCalled();
  });

  it('shows nothing when the Save As was cancelled and the refusal when the shell refused', async () => {
    await expect(savePdf(DOC, blob(), { saveWikiPdf: async () => null })).resolves.toBeNull();
    const refused = { saveWikiPdf: async () => Promise.reject(new BridgeRefusal('This PDF does not match the published document (checksum mismatch), so it was not saved.', 'rejected')) };
    await expect(savePdf(DOC, blob(), refused)).resolves.toEqual({ kind: 'error', text: expect.stringContaining('checksum mismatch') });
  });
});
