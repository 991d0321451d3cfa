// Markup tests for the composer's image parts (server-rendered, no DOM): the "Insert image"
// button with its hidden file input (the accept list), disabled with "Preparing image…" while a
// request runs, a refusal as role="alert"; and the preview body, where a placeholder shows its
// image as an <img> and everything else stays escaped text. The last test walks the button flow
// with a fake transport into the preview.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { AlertBodyPreview, InsertImageView } from './AlertBodyImages';
import { IDLE_INSERT, insertImage, runImageInsert, type BodyImage, type InsertState } from './bodyImages';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const view = (state: InsertState) => renderToStaticMarkup(<InsertImageView state={state} onPick={() => {}} onFile={() => {}} />);
const tagOf = (html: string, testId: string) => html.match(new RegExp(`<[a-z]+[^>]*data-testid="${testId}"[^>]*>`))?.[0] ?? '';

describe('InsertImageView', () => {
  it('offers the button and a hidden PNG/JPEG/WebP file input', () => {
    const html = view(IDLE_INSERT);
    const button = tagOf(html, 'alert-insert-image');
    expect(button).not.toContain('disabled');
    expect(html).toContain('>Insert image</button>');
    const input = tagOf(html, 'alert-image-file');
    expect(input).toContain('type="file"');
    expect(input).toContain('hidden');
    expect(input).toContain('accept=".png,.jpg,.jpeg,.webp,image/png,image/jpeg,image/webp"');
    expect(html).toMatch(/<span[^>]*role="status"[^>]*><\/span>/);
    expect(html).not.toContain('role="alert"');
  });

  it('is disabled and says so while the image is prepared', () => {
    const html = view({ busy: true, error: null, done: null });
    expect(tagOf(html, 'alert-insert-image')).toContain('disabled');
    expect(tagOf(html, 'alert-image-file')).toContain('disabled');
    expect(html).toMatch(/role="status"[^>]*>Preparing image…</);
  });

  it('shows a refusal as an alert', () => {
    const html = view({ busy: false, error: 'Image must be under 5 MB', done: null });
    expect(html).toMatch(/<p[^>]*role="alert"[^>]*>Image must be under 5 MB<\/p>/);
    expect(tagOf(html, 'alert-insert-image')).not.toContain('disabled');
  });
});

describe('AlertBodyPreview', () => {
  const render = (body: string, images: Record<number, BodyImage>) => renderToStaticMarkup(<AlertBodyPreview body={body} images={images} />);

  it('shows a placeholder line as its image and the rest as escaped text', () => {
    const html = render('<b>Intro</b>\n[image 1]\n[image 2]\nEnd', { 1: { src: PNG, alt: 'a "chart"' } });
    expect(html).toBe(`&lt;b&gt;Intro&lt;/b&gt;\n<img src="${PNG}" alt="a &quot;chart&quot;" class="alert-body-image" data-testid="alert-preview-image"/>[image 2]\nEnd`);
  });

  it('never draws an image whose source is not a safe data URL', () => {
    const html = render('[image 1]\n[image 2]', { 1: { src: 'javascript:alert(1)', alt: '' }, 2: { src: 'https://example.com/x.png', alt: '' } });
    expect(html).not.toContain('<img');
    expect(html).toBe('[image 1]\n[image 2]');
  });

  it('Insert image with a fake transport: the prepared image lands at the caret and shows in the preview', async () => {
    const file = Object.assign(new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), { name: 'wide.png' });
    let draft = { body: 'Intro\nAfter', images: {} as Record<number, BodyImage> };
    const states: InsertState[] = [];
    const sent: Blob[] = [];
    await runImageInsert(file, async (f) => (sent.push(f), PNG), (s) => states.push(s), (image) => {
      const next = insertImage(draft.body, draft.images, image, 6);
      draft = { body: next.body, images: next.images };
    });
    expect(sent).toEqual([file]);
    expect(view(states[0])).toContain('Preparing image…');
    expect(view(states[1])).toMatch(/role="status"[^>]*>Image inserted\.</);
    expect(draft.body).toBe('Intro\n[image 1]\nAfter');
    expect(render(draft.body, draft.images)).toBe(`Intro\n<img src="${PNG}" alt="wide" class="alert-body-image" data-testid="alert-preview-image"/>After`);
  });
});
