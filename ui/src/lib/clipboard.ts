// Clipboard writes that work on every page Relay runs on. The async Clipboard API
// (`navigator.clipboard`, `ClipboardItem`) exists only in a secure context — the desktop shell,
// https, localhost — and is missing on Relay Web or a LAN browser on http://<server name>:8090.
// Plain text, and text with an HTML flavour, go through the async API when the page has it and it
// accepts them, else through document.execCommand('copy') run from the operator's click: its copy
// event is given both flavours (copyByCommand). A picture (image/png) can only go through the
// async API (itemWriter: Copy for Outlook). This is the one module that names `navigator.clipboard`
// or `ClipboardItem`; lib/secureContext.test.ts fails on any other.

export const COPY_FAILED = 'Could not copy: the browser refused the clipboard. Select the text and press Ctrl+C instead.';

/** The page's clipboard facilities; pageClipboard() reads them, tests pass their own. */
export interface ClipboardEnv {
  /** `navigator.clipboard` where the page has it (a secure context), else undefined. */
  clipboard?: { writeText?(text: string): Promise<void>; write?(items: ClipboardItem[]): Promise<void> };
  /** The `ClipboardItem` constructor where the page has it, else undefined. */
  Item?: typeof ClipboardItem;
  doc?: Document;
}

/** What this page offers (async clipboard and ClipboardItem only in a secure context). */
export function pageClipboard(): ClipboardEnv {
  return {
    clipboard: typeof navigator === 'undefined' ? undefined : (navigator.clipboard ?? undefined),
    Item: typeof ClipboardItem === 'undefined' ? undefined : ClipboardItem,
    doc: typeof document === 'undefined' ? undefined : document,
  };
}

/** Writes one clipboard item of `parts` (MIME type → Blob) through the async API; undefined when
 * the page has none (not a secure context, or a browser without ClipboardItem). */
export function itemWriter(env: ClipboardEnv = pageClipboard()): ((parts: Record<string, Blob>) => Promise<void>) | undefined {
  const { clipboard, Item } = env;
  const write = clipboard?.write?.bind(clipboard);
  if (!write || !Item) return undefined;
  return (parts) => write([new Item(parts)]);
}

/**
 * The copy command, which needs no secure context (only the operator's click): an off-screen
 * textarea holding `text` is selected, and the copy event it raises is given `text` as text/plain
 * and, when given, `html` as text/html (a browser that does not hand the event its data copies the
 * selected text). Focus goes back where it was. False when the browser refused or has no command.
 */
export function copyByCommand(text: string, html?: string, doc: Document | undefined = pageClipboard().doc): boolean {
  if (!doc || typeof doc.execCommand !== 'function') return false;
  const before = doc.activeElement as HTMLElement | null;
  const ta = doc.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.setAttribute('aria-hidden', 'true');
  ta.className = 'offscreen';
  const onCopy = (e: ClipboardEvent) => {
    if (!e.clipboardData) return;
    e.clipboardData.setData('text/plain', text);
    if (html !== undefined) e.clipboardData.setData('text/html', html);
    e.preventDefault();
  };
  doc.addEventListener('copy', onCopy, true);
  doc.body.appendChild(ta);
  try {
    ta.select();
    return doc.execCommand('copy') === true;
  } catch {
    return false;
  } finally {
    doc.removeEventListener('copy', onCopy, true);
    ta.remove();
    before?.focus?.({ preventScroll: true });
  }
}

/** Copies `text`: the async API where the page has it and it accepts, else the copy command;
 * rejects with COPY_FAILED when both refuse. */
export async function copyText(text: string, env: ClipboardEnv = pageClipboard()): Promise<void> {
  if (env.clipboard?.writeText) {
    try {
      await env.clipboard.writeText(text);
      return;
    } catch {
      // Refused (permissions, focus): the copy command below.
    }
  }
  if (!copyByCommand(text, undefined, env.doc)) throw new Error(COPY_FAILED);
}

/** Copies `text` and `html` as one clipboard item: the async API where the page has it and it
 * accepts, else the copy command with both flavours, else `text` alone (copyText). */
export async function copyRich(text: string, html: string, env: ClipboardEnv = pageClipboard()): Promise<void> {
  const write = itemWriter(env);
  if (write) {
    try {
      await write({ 'text/plain': new Blob([text], { type: 'text/plain' }), 'text/html': new Blob([html], { type: 'text/html' }) });
      return;
    } catch {
      // Refused: the copy command below.
    }
  }
  if (copyByCommand(text, html, env.doc)) return;
  await copyText(text, env);
}
