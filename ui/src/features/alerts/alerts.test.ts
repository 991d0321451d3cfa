// @vitest-environment jsdom
// Alert helpers: severity colours, and the rich body ⇄ stored HTML conversion with inline images:
// plain-text bodies stored by older versions load unchanged, placeholders round-trip through
// bodyToHtml/htmlToBody, unknown placeholders stay text, foreign or hostile HTML comes back as the
// allowlist plus only sanitized images, and the size check names the limits.
import { describe, expect, it } from 'vitest';
import { bodyHtmlError, bodyText, bodyToHtml, htmlToBody, INPUT_MAX, severityColor } from './alerts';
import { textToRich } from './richBody';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const JPEG = 'data:image/jpeg;base64,/9j/4AAQSkZJRg==';
const img = (src: string, alt = '') => `<img src="${src}" alt="${alt}" class="alert-body-image">`;
/** Every tag in `html` is a <br>, the formatting allowlist, or a sanitized image. */
const onlySafeTags = (html: string) => [...html.matchAll(/<[^>]*>/g)].every(([t]) => /^<\/?(br|b|i|u|em|strong|ul|ol|li)>$/.test(t) || /^<img src="data:image\/(png|jpeg|jpg|gif|webp);base64,[A-Za-z0-9+/=]+" alt="[^"<>]*" class="alert-body-image">$/.test(t));

describe('alert helpers', () => {
  it('maps severities to their colors, INFO by default', () => {
    expect(severityColor('ISSUE')).toBe('#d32f2f');
    expect(severityColor('MAINTENANCE')).toBe('#f9a825');
    expect(severityColor('RESOLVED')).toBe('#2e7d32');
    expect(severityColor(undefined)).toBe('#1565c0');
  });
  it('loads a plain-text body older versions stored as escaped text with line breaks, unchanged', () => {
    const text = 'Line <script>x</script> & more\nsecond';
    const stored = textToRich(text);
    expect(stored).toBe('Line &lt;script&gt;x&lt;/script&gt; &amp; more<br>second');
    const loaded = htmlToBody(stored);
    expect(loaded).toEqual({ body: stored, images: {} });
    expect(bodyText(loaded.body)).toBe(text);
    expect(bodyToHtml(loaded.body)).toBe(stored);
  });

  it('keeps formatting through a save and a load, and sanitizes what it loads', () => {
    const body = '<b>Down</b> since <span data-hl="deadline">9:00</span><ul><li>VPN</li></ul><a href="https://status.example.com/" rel="noopener noreferrer">status</a>';
    expect(htmlToBody(bodyToHtml(body))).toEqual({ body, images: {} });
    expect(htmlToBody('<p>a</p><ul><li>b</li></ul><img src=x onerror=alert(1)><a href="javascript:alert(1)">c</a>')).toEqual({ body: 'a<ul><li>b</li></ul>c', images: {} });
  });
});

describe('body images', () => {
  const images = { 1: { src: PNG, alt: 'chart' }, 2: { src: JPEG, alt: 'photo "2"' } };

  it('writes a placeholder line as the sanitized image and reads it back', () => {
    const body = 'Intro<br>[image 1]<br><br>Middle<br>[image 2]<br>End';
    const html = bodyToHtml(body, images);
    expect(html).toBe(`Intro<br>${img(PNG, 'chart')}<br><br>Middle<br>${img(JPEG, 'photo &quot;2&quot;')}<br>End`);
    expect(htmlToBody(html)).toEqual({ body, images });
    expect(bodyToHtml('[image 1]', images)).toBe(img(PNG, 'chart'));
    expect(htmlToBody(img(PNG, 'chart'))).toEqual({ body: '[image 1]', images: { 1: images[1] } });
  });

  it('keeps unknown or inline placeholders as text, and a deleted placeholder drops its image', () => {
    expect(bodyToHtml('[image 9]<br>see [image 1] here', images)).toBe('[image 9]<br>see [image 1] here');
    expect(bodyToHtml('Intro<br>End', images)).toBe('Intro<br>End');
    expect(bodyToHtml('<b>[image 1]</b> and', images)).toBe('<b>[image 1]</b> and');
    expect(bodyToHtml('[image 1]', {})).toBe('[image 1]');
  });

  it('numbers loaded images after placeholders written literally in the text', () => {
    const loaded = htmlToBody(`[image 1]<br>${img(PNG)}`);
    expect(loaded).toEqual({ body: '[image 1]<br>[image 2]', images: { 2: { src: PNG, alt: '' } } });
    expect(bodyToHtml(loaded.body, loaded.images)).toBe(`[image 1]<br>${img(PNG)}`);
  });

  it('puts an image from foreign HTML on its own line', () => {
    expect(htmlToBody(`<p>a<img src="${PNG}">b</p><div>c</div>`)).toEqual({ body: 'a<br>[image 1]<br>b<br>c', images: { 1: { src: PNG, alt: '' } } });
    expect(htmlToBody(`${img(PNG)}${img(JPEG)}`).body).toBe('[image 1]<br>[image 2]');
  });

  it('reduces hostile HTML to text and sanitized images only', () => {
    const hostile = [
      '<img src="javascript:alert(1)">x',
      `<img src="https://evil.example/t.png" onerror="alert(1)"><IMG SRC="${PNG}" ONERROR="alert(1)" STYLE="x">`,
      '<svg onload=alert(1)><image href="data:image/svg+xml;base64,PHN2Zz4="/></svg>',
      `<img alt="><script>alert(1)</script>" src="${PNG}">`,
      '<a href="javascript:alert(1)">link</a><iframe src="https://evil.example"></iframe>',
      '&lt;img src=x onerror=alert(1)&gt;',
      '<<<<<<img src="data:image/png;base64,QUJD"',
    ].join('<br>');
    const loaded = htmlToBody(hostile);
    expect(Object.values(loaded.images).map((i) => i.src)).toEqual([PNG, PNG]);
    const again = bodyToHtml(loaded.body, loaded.images);
    expect(onlySafeTags(again)).toBe(true);
    // DOMPurify drops an alt that holds a closing tag; the image stays.
    expect(again).toContain(`x<br>${img(PNG, '')}`);
    expect(again).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(again).not.toMatch(/<(script|svg|a|iframe)\b|https:|javascript:/i);
  });

  // A quadratic scan would run into the test timeout here; the speed itself is not asserted.
  it('reads a long run of bare < as text', () => {
    expect(bodyText(htmlToBody('<'.repeat(200_000)).body)).toHaveLength(200_000);
  });

  it("checks the stored size against the server's limit, naming images when they are the cause", () => {
    expect(bodyHtmlError('x'.repeat(750_000), '', {})).toBeNull();
    expect(bodyHtmlError('x'.repeat(750_001), 'text', {})).toBe('Alert body must be at most 750,000 characters (now 750,001).');
    expect(bodyHtmlError('x'.repeat(750_001), '[image 1]', images)).toBe(
      'Alert body must be at most 750,000 characters (now 750,001). Images count toward it: use fewer or smaller images.',
    );
    expect(bodyHtmlError('', 'x'.repeat(INPUT_MAX), {})).toBeNull();
    expect(bodyHtmlError('', `<b>${'x'.repeat(INPUT_MAX)}</b>y`, {})).toBe('Alert body must be at most 10,000 characters (now 10,001).');
  });
});
