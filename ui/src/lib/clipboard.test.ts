// @vitest-environment jsdom
// Clipboard writes on a page that is not a secure context (Relay Web on http://: no
// navigator.clipboard, no ClipboardItem): plain text and text with HTML go through the copy
// command, whose copy event carries both flavours; a refused command says so (COPY_FAILED), never
// a TypeError; and on a secure page the async API is used first, the command when it refuses.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { copyByCommand, copyRich, copyText, COPY_FAILED, itemWriter, pageClipboard } from './clipboard';
import { stubNonSecurePage } from './nonSecureTest';

/** A document.execCommand that raises a copy event (jsdom has neither) and records its data. */
function installCopyCommand(result = true) {
  const copied: Record<string, string>[] = [];
  const execCommand = vi.fn((command: string) => {
    if (command !== 'copy') return false;
    const data = new Map<string, string>();
    const event = new Event('copy', { bubbles: true, cancelable: true });
    Object.defineProperty(event, 'clipboardData', { value: { setData: (type: string, value: string) => void data.set(type, value) } });
    document.activeElement?.dispatchEvent(event);
    if (!event.defaultPrevented) data.set('text/plain', (document.activeElement as HTMLTextAreaElement | null)?.value ?? '');
    copied.push(Object.fromEntries(data));
    return result;
  });
  Object.defineProperty(document, 'execCommand', { value: execCommand, configurable: true });
  return { copied, execCommand };
}

beforeEach(() => {
  document.body.innerHTML = '<button type="button" id="copy-button">Copy</button>';
});

afterEach(() => {
  vi.unstubAllGlobals();
  delete (document as { execCommand?: unknown }).execCommand;
});

describe('on a non-secure (http://) page', () => {
  beforeEach(() => stubNonSecurePage());

  it('the page offers no async clipboard and no item writer', () => {
    expect(pageClipboard().clipboard).toBeUndefined();
    expect(pageClipboard().Item).toBeUndefined();
    expect(itemWriter()).toBeUndefined();
  });

  it('copyText goes through the copy command, leaves nothing behind and gives the focus back', async () => {
    const { copied, execCommand } = installCopyCommand();
    const button = document.getElementById('copy-button') as HTMLButtonElement;
    button.focus();
    await copyText('alice@example.com; bob@example.com');
    expect(execCommand).toHaveBeenCalledWith('copy');
    expect(copied).toEqual([{ 'text/plain': 'alice@example.com; bob@example.com' }]);
    expect(document.querySelector('textarea')).toBeNull();
    expect(document.activeElement).toBe(button);
  });

  it('copyRich carries the HTML flavour through the copy event', async () => {
    const { copied } = installCopyCommand();
    await copyRich('[ISSUE] Mail down', '<p><strong>[ISSUE] Mail down</strong></p>');
    expect(copied).toEqual([{ 'text/plain': '[ISSUE] Mail down', 'text/html': '<p><strong>[ISSUE] Mail down</strong></p>' }]);
  });

  it('a refused command rejects with COPY_FAILED', async () => {
    installCopyCommand(false);
    await expect(copyText('x')).rejects.toThrow(COPY_FAILED);
    await expect(copyRich('x', '<b>x</b>')).rejects.toThrow(COPY_FAILED);
  });

  it('a browser without the command at all rejects with COPY_FAILED, not a TypeError', async () => {
    expect(copyByCommand('x')).toBe(false);
    await expect(copyText('x')).rejects.toThrow(COPY_FAILED);
  });
});

describe('on a secure page', () => {
  class FakeItem {
    constructor(readonly parts: Record<string, Blob>) {}
  }
  const Item = FakeItem as unknown as typeof ClipboardItem;

  it('copyText uses the async API, the copy command only when it refuses', async () => {
    const { copied } = installCopyCommand();
    const writeText = vi.fn(async () => {});
    await copyText('one', { clipboard: { writeText }, doc: document });
    expect(writeText).toHaveBeenCalledWith('one');
    expect(copied).toEqual([]);
    writeText.mockRejectedValueOnce(new DOMException('denied', 'NotAllowedError'));
    await copyText('two', { clipboard: { writeText }, doc: document });
    expect(copied).toEqual([{ 'text/plain': 'two' }]);
  });

  it('copyRich writes one item of text and HTML, the copy command when refused', async () => {
    const { copied } = installCopyCommand();
    const write = vi.fn(async (_items: ClipboardItem[]) => {});
    await copyRich('t', '<b>t</b>', { clipboard: { write }, Item, doc: document });
    const [[items]] = write.mock.calls as unknown as [[FakeItem[]]];
    expect(Object.keys(items[0].parts).sort()).toEqual(['text/html', 'text/plain']);
    expect(await items[0].parts['text/html'].text()).toBe('<b>t</b>');
    write.mockRejectedValueOnce(new DOMException('denied', 'NotAllowedError'));
    await copyRich('u', '<b>u</b>', { clipboard: { write }, Item, doc: document });
    expect(copied).toEqual([{ 'text/plain': 'u', 'text/html': '<b>u</b>' }]);
  });
});
