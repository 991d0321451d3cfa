// @vitest-environment jsdom
// A screenshot pasted into the alert body (an image file on the clipboard, no text) goes through
// Insert image's own flow: the same checks (type, 5 MB), the same server preparation
// (prepareAlertImage), an `[image N]` line at the caret and the picture in the preview; a refusal
// is said beside Insert image as an alert, and nothing is inserted. A paste with text beside a
// picture (a spreadsheet copy) still pastes the text.
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { domRoot, flush } from '../../lib/domTest';
import { fakeTransport } from '../../lib/domTransport';
import { PASTED_REFUSED } from './AlertBodyImages';
import AlertsView from './AlertsView';
import { IMAGE_TOO_LARGE, IMAGE_WRONG_TYPE } from './bodyImages';
import { inApp } from '../../lib/domApp';

const dom = domRoot();
afterEach(() => {
  delete (document as { execCommand?: unknown }).execCommand;
  sessionStorage.clear();
});

async function mount() {
  const fake = fakeTransport();
  await dom.render(inApp(fake.transport, <AlertsView />));
  await flush();
  const $ = (id: string) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`);
  return { ...fake, $, body: $('alert-body')! };
}

/** Pastes into `el` a clipboard holding `files` and the given text flavours. */
async function paste(el: HTMLElement, files: File[], flavours: Record<string, string> = {}) {
  const event = new Event('paste', { bubbles: true, cancelable: true });
  Object.defineProperty(event, 'clipboardData', { value: { files, getData: (t: string) => flavours[t] ?? '', types: [...Object.keys(flavours), ...(files.length ? ['Files'] : [])] } });
  await act(async () => {
    el.focus();
    el.dispatchEvent(event);
  });
  await flush();
  return event;
}

const png = (bytes = 16, name = 'image.png', type = 'image/png') => new File([new Uint8Array(bytes)], name, { type });

describe('pasting an image into the alert body', () => {
  it('prepares a pasted screenshot on the server and inserts it like Insert image', async () => {
    const { body, prepareAlertImage, $ } = await mount();
    const file = png();
    const event = await paste(body, [file]);
    expect(event.defaultPrevented).toBe(true);
    expect(prepareAlertImage).toHaveBeenCalledTimes(1);
    expect(prepareAlertImage).toHaveBeenCalledWith(file);
    expect(body.textContent).toContain('[image 1]');
    expect($('alert-image-status')!.textContent).toBe('Image inserted.');
    expect($('alert-preview-body')!.querySelector('img')?.getAttribute('src')).toBe('data:image/png;base64,iVBORw0KGgo=');
  });

  it('refuses an image over 5 MB before uploading, and says so', async () => {
    const { body, prepareAlertImage, $ } = await mount();
    await paste(body, [png(5 * 1024 * 1024 + 1)]);
    expect(prepareAlertImage).not.toHaveBeenCalled();
    const error = $('alert-image-error')!;
    expect(error.getAttribute('role')).toBe('alert');
    expect(error.textContent).toBe(`${PASTED_REFUSED} ${IMAGE_TOO_LARGE}`);
    expect(body.textContent).not.toContain('[image');
  });

  it('refuses a type Insert image refuses (GIF), and says so', async () => {
    const { body, prepareAlertImage, $ } = await mount();
    await paste(body, [png(16, 'anim.gif', 'image/gif')]);
    expect(prepareAlertImage).not.toHaveBeenCalled();
    expect($('alert-image-error')!.textContent).toBe(`${PASTED_REFUSED} ${IMAGE_WRONG_TYPE}`);
  });

  it('says the server refusal as it wrote it', async () => {
    const { body, prepareAlertImage, $ } = await mount();
    prepareAlertImage.mockRejectedValueOnce(new Error('The image has too many pixels.'));
    await paste(body, [png()]);
    expect($('alert-image-error')!.textContent).toBe(`${PASTED_REFUSED} The image has too many pixels.`);
    expect(body.textContent).not.toContain('[image');
  });

  it('a paste with text beside a picture (a spreadsheet copy) pastes the text, not the picture', async () => {
    Object.defineProperty(document, 'execCommand', { configurable: true, value: vi.fn(() => false) });
    const { body, prepareAlertImage } = await mount();
    await paste(body, [png()], { 'text/plain': 'Site\tStatus' });
    expect(prepareAlertImage).not.toHaveBeenCalled();
    expect(body.textContent).toContain('Site');
  });
});
