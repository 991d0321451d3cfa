// Markup tests for the composer's image control (server-rendered, no DOM): the "Insert image"
// button with its hidden file input (the accept list), disabled with "Preparing image…" while a
// request runs, a refusal as role="alert". The preview and the flow into it: RichBodyPreview.test.tsx.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { InsertImageView } from './AlertBodyImages';
import { IDLE_INSERT, type InsertState } from './bodyImages';

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
