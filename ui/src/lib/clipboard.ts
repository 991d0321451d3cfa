// Clipboard writes: plain text with a fallback for contexts where the async API is refused, and
// text with an HTML flavour (falling back to the text alone).
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.className = 'offscreen';
    document.body.appendChild(ta);
    ta.select();
    const ok = document.execCommand('copy');
    ta.remove();
    if (!ok) throw new Error('The clipboard is not available.');
  }
}

/** Writes `text` and `html` as one clipboard item; where that is refused, `text` alone (copyText). */
export async function copyRich(text: string, html: string): Promise<void> {
  try {
    if (typeof ClipboardItem === 'undefined' || !navigator.clipboard?.write) throw new Error('no rich clipboard');
    await navigator.clipboard.write([
      new ClipboardItem({ 'text/plain': new Blob([text], { type: 'text/plain' }), 'text/html': new Blob([html], { type: 'text/html' }) }),
    ]);
  } catch {
    await copyText(text);
  }
}
