// @vitest-environment jsdom
// Alert-body images: the sanitizer table for stored bodies (only a base64 PNG/JPEG/GIF/WebP data
// URL survives, as exactly `<img src="…" alt="…" class="alert-body-image">`, read through
// richBody's storedToRich and written back by richToStored), a fuzz check that no source can break
// out of the attribute, the `[image N]` placeholders (numbering), the file checks, and the
// "Insert image" flow with a fake transport, and which pasted file is an image to insert.
import { describe, expect, it, vi } from 'vitest';
import { TransportError } from '../../transport/types';
import {
  ALT_MAX, IMAGE_MAX_BYTES, IMAGE_TOO_LARGE, IMAGE_UNUSABLE, IMAGE_WRONG_TYPE, INSERTED, checkImageFile, imageTag,
  isSafeImageSrc, prepareImage, runImageInsert, tokenNumber, transferImage, type InsertState,
} from './bodyImages';
import { nextImageNumber, richToStored, storedToRich } from './richBody';

/** A stored body read and written back: what survives of `html`. */
const sanitizeImgTag = (html: string) => {
  const { body, images } = storedToRich(html);
  return richToStored(body, images).replace(/^\[image \d+\]$/, '');
};
const parseImgTag = (html: string) => storedToRich(html).images[1] ?? null;

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const tag = (src: string, alt = '') => `<img src="${src}" alt="${alt}" class="alert-body-image">`;

describe('stored body images (storedToRich, richToStored)', () => {
  const kept: [string, string, string][] = [
    ['a PNG data URL', `<img src="${PNG}" alt="chart">`, tag(PNG, 'chart')],
    ['JPEG', '<img src="data:image/jpeg;base64,/9j/4AAQ" alt="">', tag('data:image/jpeg;base64,/9j/4AAQ')],
    ['jpg', '<img src="data:image/jpg;base64,/9j/4AAQ">', tag('data:image/jpg;base64,/9j/4AAQ')],
    ['GIF', '<img src="data:image/gif;base64,R0lGODlh">', tag('data:image/gif;base64,R0lGODlh')],
    ['WebP', '<img src="data:image/webp;base64,UklGRg==">', tag('data:image/webp;base64,UklGRg==')],
    ['an uppercase tag', `<IMG SRC="${PNG}">`, tag(PNG)],
    ['leading and trailing blanks, trimmed as a browser does', `<img src=" ${PNG} ">`, tag(PNG)],
    ['single quotes', `<img src='${PNG}' alt='a'>`, tag(PNG, 'a')],
    ['a bare value, self-closing', `<img src=${PNG} />`, tag(PNG)],
    ['an entity in the source, decoded as a browser does', '<img src="data&colon;image/png;base64,QUJD">', tag('data:image/png;base64,QUJD')],
    ['<image>, which the HTML parser reads as <img>', `<image src="${PNG}">`, tag(PNG)],
    ['extra attributes dropped', `<img id="x" class="evil" style="position:fixed" width="9999" src="${PNG}" alt="a" title="t" data-x="1">`, tag(PNG, 'a')],
    ['onerror dropped', `<img src="${PNG}" onerror="alert(1)" onload=alert(2)>`, tag(PNG)],
    ['an alt holding a closing tag: DOMPurify drops the alt', `<img src="${PNG}" alt='"><script>alert(1)</script>'>`, tag(PNG, '')],
    ['alt escaped, cannot leave its attribute', `<img src="${PNG}" alt='a "quoted" <b>'>`, tag(PNG, 'a &quot;quoted&quot; &lt;b&gt;')],
    ['alt entities decoded once, then escaped again', `<img src="${PNG}" alt="a &amp; b &lt;c&gt;">`, tag(PNG, 'a &amp; b &lt;c&gt;')],
  ];
  it.each(kept)('keeps %s', (_name, input, output) => {
    expect(sanitizeImgTag(input)).toBe(output);
  });

  const refused: [string, string][] = [
    ['svg+xml', '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">'],
    ['http', '<img src="http://example.com/a.png">'],
    ['https', '<img src="https://example.com/a.png">'],
    ['protocol-relative', '<img src="//example.com/a.png">'],
    ['javascript:', '<img src="javascript:alert(1)">'],
    ['mixed-case javascript:', '<img src="JaVaScRiPt:alert(1)">'],
    ['data:text/html', '<img src="data:text/html;base64,PHNjcmlwdD4=">'],
    ['not base64', '<img src="data:image/png,rawbytes">'],
    ['a space in the base64', '<img src="data:image/png;base64,iVBO Rw0K">'],
    ['a line break in the base64', '<img src="data:image/png;base64,iVBO\nRw0K">'],
    ['percent-encoding', '<img src="data:image/png;base64,iVBO%3D">'],
    ['url-safe base64 characters', '<img src="data:image/png;base64,ab-_cd">'],
    ['a quote inside the source', `<img src='data:image/png;base64,QUJD" onerror="alert(1)'>`],
    ['uppercase DATA: (DOMPurify reads data: URLs in lower case only)', '<IMG SRC="DATA:IMAGE/PNG;BASE64,QUJD">'],
    ['an empty payload', '<img src="data:image/png;base64,">'],
    ['no src', '<img alt="x">'],
    ['src only inside another attribute', `<img alt="src=${PNG}">`],
    ['the first src is unsafe (browsers use the first)', `<img src="javascript:alert(1)" src="${PNG}">`],
    ['the classic onerror probe', '<img src=x onerror=alert(1)>'],
    ['another element', `<picture src="${PNG}">`],
    ['a longer tag name', `<imgx src="${PNG}">`],
    ['srcset only', `<img srcset="${PNG} 1x">`],
  ];
  it.each(refused)('refuses %s', (_name, input) => {
    expect(sanitizeImgTag(input)).toBe('');
    expect(parseImgTag(input)).toBeNull();
  });

  it('matches the pattern exactly, ignoring case', () => {
    expect(isSafeImageSrc('data:image/png;base64,AAAA')).toBe(true);
    expect(isSafeImageSrc('Data:Image/WebP;Base64,AAAA')).toBe(true);
    expect(isSafeImageSrc('data:image/png;base64,AAAA\n')).toBe(false);
    expect(isSafeImageSrc('xdata:image/png;base64,AAAA')).toBe(false);
    expect(isSafeImageSrc(undefined)).toBe(false);
  });

  it('imageTag writes nothing for an unsafe source and bounds the alt text', () => {
    expect(imageTag({ src: 'https://example.com/x.png', alt: '' })).toBeNull();
    expect(imageTag({ src: PNG, alt: `a\u0000b\nc${'x'.repeat(500)}` })).toBe(tag(PNG, `a b c${'x'.repeat(ALT_MAX - 5)}`));
  });

  it('no source or alt text, however hostile, yields more than the one exact tag (fuzz)', () => {
    const alphabet = ['"', "'", '<', '>', '=', ' ', '/', '&', ';', ':', '\n', 'a', 'A', '0', '+', 'data:image/png;base64,', 'javascript:', 'onerror='];
    let seed = 17;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const word = () => Array.from({ length: 1 + rnd(12) }, () => alphabet[rnd(alphabet.length)]).join('');
    const exact = /^<img src="data:image\/(png|jpeg|jpg|gif|webp);base64,[a-z0-9+/=]+" alt="[^"<>]*" class="alert-body-image">$/i;
    for (let i = 0; i < 300; i++) {
      const src = word();
      const alt = word();
      const out = imageTag({ src, alt });
      if (out !== null) expect(out).toMatch(exact);
      const swept = sanitizeImgTag(`<img src="${src}" alt="${alt}" ${word()}>`);
      for (const [t] of swept.matchAll(/<[^>]*>/g)) expect(t).toMatch(exact);
    }
  });
});

describe('placeholders', () => {
  const img = { src: PNG, alt: 'shot' };

  it('reads a placeholder line, blanks around allowed, nothing else', () => {
    expect(tokenNumber('[image 3]')).toBe(3);
    expect(tokenNumber('  [image 12] ')).toBe(12);
    for (const line of ['[image 0]', '[image]', '[Image 1]', 'see [image 1]', '[image 1] here', '[image 01]', '[image 1234567]']) expect(tokenNumber(line)).toBeNull();
  });

  it('numbers a new image after every image and every placeholder line already written', () => {
    expect(nextImageNumber('', {})).toBe(1);
    expect(nextImageNumber('[image 4]', {})).toBe(5);
    expect(nextImageNumber('a<br>[image 6]<br>b', {})).toBe(7);
    expect(nextImageNumber('see [image 9] here', {})).toBe(1);
    expect(nextImageNumber('x', { 2: img })).toBe(3);
  });
});

describe('Insert image flow', () => {
  /** A file claiming `size` bytes (a Blob's size is a getter: shadowed on the instance). */
  const file = (name: string, size: number, type = '') =>
    Object.defineProperties(new Blob([new Uint8Array(16)], { type }), { name: { value: name }, size: { value: size } }) as Blob & { name: string };

  it('checks name or type and size before uploading', () => {
    expect(checkImageFile({ name: 'a.PNG', size: 10 })).toBeNull();
    expect(checkImageFile({ name: 'a.jpeg', size: 10 })).toBeNull();
    expect(checkImageFile({ name: 'clipboard', size: 10, type: 'image/webp' })).toBeNull();
    expect(checkImageFile({ name: 'notes.txt', size: 10, type: 'text/plain' })).toBe(IMAGE_WRONG_TYPE);
    expect(checkImageFile({ name: 'a.svg', size: 10, type: 'image/svg+xml' })).toBe(IMAGE_WRONG_TYPE);
    expect(checkImageFile({ name: 'a.png', size: IMAGE_MAX_BYTES })).toBeNull();
    expect(checkImageFile({ name: 'a.png', size: IMAGE_MAX_BYTES + 1 })).toBe(IMAGE_TOO_LARGE);
    expect(IMAGE_TOO_LARGE).toBe('Image must be under 5 MB');
  });

  async function run(f: Blob & { name?: string }, prepare: (b: Blob) => Promise<string>) {
    const states: InsertState[] = [];
    const inserted: unknown[] = [];
    await runImageInsert(f, prepare, (s) => states.push(s), (i) => inserted.push(i));
    return { states, inserted };
  }

  it('refuses a file over 5 MB before uploading', async () => {
    const prepare = vi.fn(async () => PNG);
    const r = await run(file('big.png', IMAGE_MAX_BYTES + 1, 'image/png'), prepare);
    expect(prepare).not.toHaveBeenCalled();
    expect(r.inserted).toEqual([]);
    expect(r.states).toEqual([{ busy: true, error: null, done: null }, { busy: false, error: IMAGE_TOO_LARGE, done: null }]);
  });

  it("shows the server's refusal as it wrote it and inserts nothing", async () => {
    const prepare = vi.fn(async () => {
      throw new TransportError({ kind: 'server', status: 415, message: 'Image must be a PNG, JPEG or WebP file' });
    });
    const f = file('renamed.png', 40, 'image/png');
    const r = await run(f, prepare);
    expect(prepare).toHaveBeenCalledExactlyOnceWith(f);
    expect(r.inserted).toEqual([]);
    expect(r.states.at(-1)).toEqual({ busy: false, error: 'Image must be a PNG, JPEG or WebP file', done: null });
  });

  it('refuses an answer that is not a safe data URL', async () => {
    const r = await run(file('a.png', 40), async () => 'data:image/svg+xml;base64,PHN2Zz4=');
    expect(r.inserted).toEqual([]);
    expect(r.states.at(-1)?.error).toBe(IMAGE_UNUSABLE);
    expect(await prepareImage(file('a.png', 40), async () => 'https://example.com/a.png')).toEqual({ ok: false, message: IMAGE_UNUSABLE });
  });

  it('inserts the prepared image, its alt text from the file name', async () => {
    const r = await run(file('network diagram.webp', 40, 'image/webp'), async () => PNG);
    expect(r.inserted).toEqual([{ src: PNG, alt: 'network diagram' }]);
    expect(r.states).toEqual([{ busy: true, error: null, done: null }, { busy: false, error: null, done: INSERTED }]);
  });
});

describe('transferImage (a paste or a drop)', () => {
  const file = (type: string, name = 'x') => Object.assign(new Blob(['x'], { type }), { name });
  it('is the first image file of a transfer without text', () => {
    const shot = file('image/png', 'image.png');
    expect(transferImage({ files: [file('application/pdf'), shot, file('image/jpeg')], text: '' })).toBe(shot);
    expect(transferImage({ files: [file('IMAGE/PNG')], text: '  \n' })?.type).toBe('image/png');
  });
  it('is null when the transfer has text (the text is pasted) or no image file', () => {
    expect(transferImage({ files: [file('image/png')], text: 'A1\tB1' })).toBeNull();
    expect(transferImage({ files: [file('text/plain')], text: '' })).toBeNull();
    expect(transferImage({ files: [], text: '' })).toBeNull();
  });
});
