// @vitest-environment jsdom
// The alert body's sanitizer and canonical form (richBody.ts) in jsdom: what an attacker's paste
// or a tampered stored body may carry (javascript: links, handlers, style, script, unknown
// highlights, classes, images outside the data-URL path) and what survives; nested disallowed
// tags unwrapped with their text; the <div>/<p> lines Chromium's editor writes folded to <br>;
// plain text ⇄ rich text; and the highlight commands and placeholder-line insertion over ranges.
import { describe, expect, it } from 'vitest';
import { applyHighlight, canonicalize, cleanRich, insertLineAt, pastePlan, richLength, richToText, safeHref, sanitizeRich, serialize, textToRich } from './richBody';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const clean = (html: string, images = false) => serialize(sanitizeRich(html, { images }));

describe('sanitizeRich', () => {
  it('keeps the allowlist as written', () => {
    const ok = '<b>b</b><strong>s</strong><i>i</i><em>e</em><u>u</u><br><ul><li>x</li></ul><ol><li>y</li></ol><p>p</p><div>d</div>';
    expect(clean(ok)).toBe(ok);
  });

  it('drops javascript:, data: and relative links but keeps their text', () => {
    expect(clean('<a href="javascript:alert(1)">click</a>')).toBe('click');
    expect(clean('<a href="JaVaScRiPt:alert(1)">x</a>')).toBe('x');
    expect(clean('<a href=" java\tscript:alert(1)">x</a>')).toBe('x');
    expect(clean('<a href="data:text/html,<script>alert(1)</script>">x</a>')).toBe('x');
    expect(clean('<a href="/admin">x</a>')).toBe('x');
    expect(clean('<a href="vbscript:x">x</a>')).toBe('x');
    // DOMPurify's scheme check passes these; safeHref (a host, or a mailto address) does not.
    expect(clean('<a href="https://">x</a>')).toBe('x');
    expect(clean('<a href="mailto:">x</a>')).toBe('x');
  });

  it('keeps http, https and mailto links with rel="noopener noreferrer" and no other attribute', () => {
    expect(clean('<a href="https://status.example.com/x?a=1" target="_blank" onclick="x()" class="c">s</a>')).toBe('<a href="https://status.example.com/x?a=1" rel="noopener noreferrer">s</a>');
    expect(clean('<a href="mailto:noc@example.com">m</a>')).toBe('<a href="mailto:noc@example.com" rel="noopener noreferrer">m</a>');
    expect(clean('<a href="http://h.example/">h</a>')).toBe('<a href="http://h.example/" rel="noopener noreferrer">h</a>');
  });

  it('drops event handlers, style and class attributes', () => {
    expect(clean('<b onclick="alert(1)" style="color:red" class="x" id="y" title="t">t</b>')).toBe('<b>t</b>');
    expect(clean('<div onmouseover="alert(1)">d</div>')).toBe('<div>d</div>');
  });

  it('drops <img> from a paste, whatever its source, handlers with it', () => {
    expect(clean('a<img src=x onerror="alert(1)">b')).toBe('ab');
    expect(clean(`a<img src="${PNG}">b`)).toBe('ab');
  });

  it('keeps a stored body image only as a checked data URL with src and alt', () => {
    expect(clean(`<img src="${PNG}" alt="chart" onerror="x()" class="evil" width="9">`, true)).toBe(`<img src="${PNG}" alt="chart">`);
    expect(clean('<img src=x onerror="alert(1)">', true)).toBe('');
    expect(clean('<img src="https://tracker.example/p.png">', true)).toBe('');
    expect(clean('<img src="data:image/svg+xml;base64,PHN2Zz4=">', true)).toBe('');
  });

  it('renames inline handlers, style attributes and <style> before parsing (no CSP reports), and still drops them', () => {
    expect(clean('<b style="x" onclick="y()" title="style=1">t</b><style>b{}</style><STYLE >i{}</STYLE><img/onerror=z()>')).toBe('<b>t</b>');
  });

  it('removes script, style and their content', () => {
    expect(clean('a<script>alert(1)</script>b<style>body{}</style>c')).toBe('abc');
    expect(clean('<svg><script>alert(1)</script></svg>x')).toBe('x');
    expect(clean('<iframe src="javascript:alert(1)"></iframe>x')).toBe('x');
  });

  it('unwraps nested disallowed tags and keeps their text', () => {
    expect(clean('<font color="red"><blink><b>keep</b> me</blink></font>')).toBe('<b>keep</b> me');
    expect(clean('<section><article><mark>hi</mark></article></section>')).toBe('hi');
    expect(clean('<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>')).toBe('a b<br>c');
    expect(clean('<h1>Title</h1>Text')).toBe('Title<br>Text');
  });

  it('keeps the five highlights on spans and drops any other span', () => {
    for (const h of ['deadline', 'warning', 'success', 'number', 'service']) {
      expect(clean(`<span data-hl="${h}">x</span>`)).toBe(`<span data-hl="${h}">x</span>`);
    }
    expect(clean('<span data-hl="evil">x</span>')).toBe('x');
    expect(clean('<span class="hl-deadline">x</span>')).toBe('x');
    expect(clean('<span data-hl="deadline" class="x" style="color:red" data-other="1">x</span>')).toBe('<span data-hl="deadline">x</span>');
    expect(clean('<b data-hl="deadline">x</b>')).toBe('<b>x</b>');
  });

  it('does not take Google Docs\' wrapping <b style="font-weight:normal"> for bold', () => {
    expect(clean('<b style="font-weight:normal;" id="docs-internal-guid-1"><span>plain</span></b>')).toBe('plain');
  });
});

describe('safeHref', () => {
  it('answers only absolute http(s) URLs with a host and mailto addresses', () => {
    expect(safeHref('https://example.com')).toBe('https://example.com/');
    expect(safeHref('mailto:a@b.c')).toBe('mailto:a@b.c');
    for (const bad of ['javascript:alert(1)', 'http://', 'example.com', '//example.com', 'ftp://x', 'mailto:', '']) expect(safeHref(bad), bad).toBeNull();
  });
});

describe('canonical form', () => {
  it('folds the <div> lines Chromium writes into <br> lines', () => {
    expect(cleanRich('a<div>b</div>')).toBe('a<br>b');
    expect(cleanRich('a<div><br></div><div>b</div>')).toBe('a<br><br>b');
    expect(cleanRich('<div>a</div><div>b</div>')).toBe('a<br>b');
    expect(cleanRich('<p>a</p>\n<p>b</p>')).toBe('a<br>b');
    expect(cleanRich('a<br><br>')).toBe('a');
    expect(cleanRich('<div><br></div>')).toBe('');
    expect(cleanRich('a<div>b</div><ul><li>x<div>y</div></li></ul>c')).toBe('a<br>b<ul><li>x<br>y</li></ul>c');
  });

  it('drops source-formatting newlines and empty inline elements', () => {
    expect(cleanRich('<ul>\n  <li>a</li>\n  <li>b</li>\n</ul>')).toBe('<ul><li>a</li><li>b</li></ul>');
    expect(cleanRich('one\ntwo<b></b>')).toBe('one two');
  });

  it('is idempotent', () => {
    for (const h of ['a<div>b</div>', '<p>x</p><ul><li>1</li></ul><div><br></div>z', '<b>a<div>b</div></b>']) expect(cleanRich(cleanRich(h))).toBe(cleanRich(h));
  });
});

describe('plain text ⇄ rich text', () => {
  it('escapes text and keeps its lines', () => {
    const text = 'a < b & c > d\n\n<script>alert(1)</script>\n  indented';
    const rich = textToRich(text);
    expect(rich).toBe('a &lt; b &amp; c &gt; d<br><br>&lt;script&gt;alert(1)&lt;/script&gt;<br>  indented');
    expect(cleanRich(rich)).toBe(rich);
    expect(richToText(rich)).toBe(text);
  });

  it('reads lists, links and highlights as text', () => {
    expect(richToText('Intro<ul><li>one</li><li>two</li></ul><ol><li>first</li></ol>End')).toBe('Intro\n• one\n• two\n1. first\nEnd');
    expect(richToText('<a href="https://x.example/">site</a> <span data-hl="deadline">today</span>')).toBe('site today');
    expect(richLength('ab<br>c')).toBe(4);
  });
});

describe('pastePlan (what a paste or drop inserts)', () => {
  const hostile = '<meta charset="utf-8"><p>Hi <b style="color:red" onclick="x()">there</b><img src=x onerror="alert(1)"><a href="javascript:alert(1)">bad</a></p><p><span class="evil">next</span></p><script>alert(1)</script>';

  it('inserts the HTML flavour sanitized and canonical, never as given', () => {
    expect(pastePlan(hostile, 'Hi there', 100)).toEqual({ kind: 'html', html: 'Hi <b>there</b>bad<br>next' });
  });

  it('inserts plain text as text when there is no HTML', () => {
    expect(pastePlan('', '<b>not bold</b>\r\nline 2', 100)).toEqual({ kind: 'text', text: '<b>not bold</b>\nline 2', shortened: false });
    expect(pastePlan('', '', 100)).toEqual({ kind: 'none' });
    expect(pastePlan('<script>alert(1)</script>', '', 100)).toEqual({ kind: 'none' });
  });

  it('cuts to the room left under the limit, HTML then falling back to its own text', () => {
    expect(pastePlan('', 'abcdef', 4)).toEqual({ kind: 'text', text: 'abcd', shortened: true });
    expect(pastePlan('<b>abc</b><ul><li>def</li></ul>', 'ignored', 6)).toEqual({ kind: 'text', text: 'abc\n• ', shortened: true });
    expect(pastePlan('', 'abc', 0)).toEqual({ kind: 'none' });
  });
});

function editor(html: string): HTMLElement {
  document.body.innerHTML = '';
  const root = document.createElement('div');
  root.append(sanitizeRich(html));
  document.body.append(root);
  return root;
}

/** A range over `text`'s n-th occurrence in root's text nodes (one text node). */
function rangeOver(root: HTMLElement, text: string): Range {
  const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  while (w.nextNode()) {
    const t = w.currentNode as Text;
    const i = t.data.indexOf(text);
    if (i >= 0) {
      const r = document.createRange();
      r.setStart(t, i);
      r.setEnd(t, i + text.length);
      return r;
    }
  }
  throw new Error(`no ${text}`);
}
const html = (root: HTMLElement) => cleanRich(root.innerHTML);

describe('applyHighlight', () => {
  it('wraps the selected text in a highlight span', () => {
    const root = editor('Deploy by Friday please');
    const r = applyHighlight(root, rangeOver(root, 'Friday'), 'deadline');
    expect(html(root)).toBe('Deploy by <span data-hl="deadline">Friday</span> please');
    expect(r?.toString()).toBe('Friday');
  });

  it('covers a selection across bold and lines with one span per text run, never nested', () => {
    const root = editor('a<b>bold</b>c<br>d');
    const r = document.createRange();
    const texts = [...root.childNodes];
    r.setStart(texts[0], 0);
    r.setEnd(texts[4], 1);
    applyHighlight(root, r, 'warning');
    expect(html(root)).toBe('<span data-hl="warning">a</span><b><span data-hl="warning">bold</span></b><span data-hl="warning">c</span><br><span data-hl="warning">d</span>');
    applyHighlight(root, rangeOver(root, 'bold'), 'success');
    expect(html(root)).toBe('<span data-hl="warning">a</span><b><span data-hl="success">bold</span></b><span data-hl="warning">c</span><br><span data-hl="warning">d</span>');
    expect(root.querySelector('span span')).toBeNull();
  });

  it('replaces a highlight in part, splitting the old span around it', () => {
    const root = editor('<span data-hl="number">12345</span>');
    applyHighlight(root, rangeOver(root, '234'), 'service');
    expect(html(root)).toBe('<span data-hl="number">1</span><span data-hl="service">234</span><span data-hl="number">5</span>');
    applyHighlight(root, rangeOver(root, '234'), null);
    expect(html(root)).toBe('<span data-hl="number">1</span>234<span data-hl="number">5</span>');
  });

  it('joins neighbouring spans of the same kind', () => {
    const root = editor('<span data-hl="deadline">ab</span>cd');
    applyHighlight(root, rangeOver(root, 'cd'), 'deadline');
    expect(html(root)).toBe('<span data-hl="deadline">abcd</span>');
  });

  it('with a caret inside a highlight changes or removes all of it; elsewhere does nothing', () => {
    const root = editor('x <span data-hl="deadline">Friday 5pm</span> y');
    const caret = rangeOver(root, 'day');
    caret.collapse(true);
    applyHighlight(root, caret, 'warning');
    expect(html(root)).toBe('x <span data-hl="warning">Friday 5pm</span> y');
    const again = rangeOver(root, 'day');
    again.collapse(true);
    applyHighlight(root, again, null);
    expect(html(root)).toBe('x Friday 5pm y');
    const plain = rangeOver(root, 'x');
    plain.collapse(true);
    expect(applyHighlight(root, plain, 'number')).toBeNull();
    expect(html(root)).toBe('x Friday 5pm y');
  });

  it('ignores a range outside the editor', () => {
    const root = editor('inside');
    const outside = document.createElement('p');
    outside.textContent = 'outside';
    document.body.append(outside);
    const r = document.createRange();
    r.selectNodeContents(outside);
    expect(applyHighlight(root, r, 'deadline')).toBeNull();
    expect(outside.outerHTML).toBe('<p>outside</p>');
  });
});

describe('insertLineAt', () => {
  const at = (root: HTMLElement, text: string, offset: number) => {
    const r = rangeOver(root, text);
    r.setStart(r.startContainer, r.startOffset + offset);
    r.collapse(true);
    return r;
  };

  it('puts the line on its own, adding breaks only where the caret is mid-line', () => {
    let root = editor('Intro');
    insertLineAt(root, at(root, 'Intro', 2), '[image 1]');
    expect(html(root)).toBe('In<br>[image 1]<br>tro');
    root = editor('Intro<br>End');
    insertLineAt(root, at(root, 'End', 0), '[image 1]');
    expect(html(root)).toBe('Intro<br>[image 1]<br>End');
    root = editor('Intro');
    insertLineAt(root, null, '[image 2]');
    expect(html(root)).toBe('Intro<br>[image 2]');
    root = editor('');
    insertLineAt(root, null, '[image 1]');
    expect(html(root)).toBe('[image 1]');
  });

  it('splits inside formatting too', () => {
    const root = editor('<b>bold text</b>');
    insertLineAt(root, at(root, 'text', 0), '[image 1]');
    expect(html(root)).toBe('<b>bold <br>[image 1]<br>text</b>');
  });
});

describe('canonicalize on an element', () => {
  it('works in place', () => {
    const root = editor('');
    root.innerHTML = '<div>a</div><div>b</div>';
    canonicalize(root);
    expect(root.innerHTML).toBe('a<br>b');
  });
});
