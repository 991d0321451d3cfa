// @vitest-environment jsdom
// The preview card's body (RichBodyPreview) as markup: formatting, lists, links and highlights
// drawn from the sanitized tree, hostile HTML reduced to text, a placeholder line shown as its
// image only when the image is a safe data URL; and the "Insert image" flow with a fake transport
// putting the placeholder at the caret of an editor and into the preview.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { runImageInsert, type BodyImage, type InsertState } from './bodyImages';
import { cleanRich, insertLineAt, nextImageNumber, sanitizeRich } from './richBody';
import { RichBodyPreview } from './RichBodyPreview';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const render = (body: string, images: Record<number, BodyImage> = {}) => renderToStaticMarkup(<RichBodyPreview body={body} images={images} />);

describe('RichBodyPreview', () => {
  it('draws formatting, lists, links and highlights', () => {
    expect(render('<b>Bold</b> <i>it</i> <u>u</u><ul><li>one</li></ul><ol><li>two</li></ol>'))
      .toBe('<b>Bold</b> <i>it</i> <u>u</u><ul><li>one</li></ul><ol><li>two</li></ol>');
    expect(render('<a href="https://status.example.com/">status</a> by <span data-hl="deadline">5pm</span>'))
      .toBe('<a href="https://status.example.com/" target="_blank" rel="noopener noreferrer">status</a> by <span data-hl="deadline">5pm</span>');
  });

  it('shows text that looks like markup as text, and drops what the sanitizer drops', () => {
    expect(render('&lt;b&gt;Intro&lt;/b&gt;<br>x')).toBe('&lt;b&gt;Intro&lt;/b&gt;<br/>x');
    expect(render('<img src=x onerror="alert(1)"><a href="javascript:alert(1)">x</a><span data-hl="nope" style="color:red">y</span><script>alert(1)</script>'))
      .toBe('xy');
  });

  it('shows a placeholder line as its image, and only a safe one', () => {
    const html = render('Intro<br>[image 1]<br>[image 2]<br>see [image 1]', { 1: { src: PNG, alt: 'a "chart"' } });
    expect(html).toBe(`Intro<br/><img src="${PNG}" alt="a &quot;chart&quot;" class="alert-body-image" data-testid="alert-preview-image"/>[image 2]<br/>see [image 1]`);
    const unsafe = render('[image 1]<br>[image 2]', { 1: { src: 'javascript:alert(1)', alt: '' }, 2: { src: 'https://example.com/x.png', alt: '' } });
    expect(unsafe).not.toContain('<img');
  });

  it('Insert image with a fake transport: the prepared image lands at the caret and shows in the preview', async () => {
    const file = Object.assign(new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), { name: 'wide.png' });
    const editor = document.createElement('div');
    editor.append(sanitizeRich('Intro<br>After'));
    document.body.append(editor);
    const caret = document.createRange();
    caret.setStart(editor.lastChild!, 0);
    let draft = { body: cleanRich(editor.innerHTML), images: {} as Record<number, BodyImage> };
    const states: InsertState[] = [];
    const sent: Blob[] = [];
    await runImageInsert(file, async (f) => (sent.push(f), PNG), (s) => states.push(s), (image) => {
      const n = nextImageNumber(draft.body, draft.images);
      insertLineAt(editor, caret, `[image ${n}]`);
      draft = { body: cleanRich(editor.innerHTML), images: { ...draft.images, [n]: image } };
    });
    expect(sent).toEqual([file]);
    expect(states.map((s) => s.done)).toEqual([null, 'Image inserted.']);
    expect(draft.body).toBe('Intro<br>[image 1]<br>After');
    expect(render(draft.body, draft.images)).toBe(`Intro<br/><img src="${PNG}" alt="wide" class="alert-body-image" data-testid="alert-preview-image"/>After`);
  });
});
