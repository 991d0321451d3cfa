// The alert body's rich text (issue #19): the one sanitizer every body goes through (DOMPurify with
// an explicit allowlist: b strong i em u ul ol li br p div, a[href] with http/https/mailto only
// and rel="noopener noreferrer", span[data-hl] with one of the five highlight names, and img only
// as a checked data URL when loading stored HTML, never from a paste), the canonical form the
// draft and the server keep (lines joined by <br>, lists as <ul>/<ol>, no <div>/<p>), plain text
// ⇄ rich text, the `[image N]` placeholder lines (a text line of its own) ⇄ the stored <img> tags,
// and the highlight commands over a DOM Range. It needs a DOM (the browser's, or
// jsdom in tests) and refuses to run without one rather than pass HTML through unsanitized. It
// does not talk to the editor's selection or to execCommand: ./RichBodyEditor.tsx does that.
import DOMPurify, { type DOMPurify as Purifier } from 'dompurify';
import { HIGHLIGHT_COLORS } from '../../lib/palette';
import { cleanAlt, imageTag, imageToken, isSafeImageSrc, tokenNumber, type BodyImage, type BodyImages } from './bodyImages';

export const HIGHLIGHTS = [
  { id: 'deadline', label: 'Deadline', key: '1' },
  { id: 'warning', label: 'Warning', key: '2' },
  { id: 'success', label: 'Success', key: '3' },
  { id: 'number', label: 'Number', key: '4' },
  { id: 'service', label: 'Service', key: '5' },
] as const;
export type Highlight = (typeof HIGHLIGHTS)[number]['id'];
export const HL_ATTR = 'data-hl';
export const isHighlight = (v: unknown): v is Highlight => HIGHLIGHTS.some((h) => h.id === v);
export const highlightColor = (h: Highlight) => HIGHLIGHT_COLORS[h];

/** The link schemes a body may carry. */
const SAFE_HREF = /^(?:https?:\/\/|mailto:)/i;
export const LINK_REL = 'noopener noreferrer';

/** `href` when it is an absolute http(s) URL with a host or a mailto: address, else null. */
export function safeHref(href: string | null | undefined): string | null {
  const v = (href ?? '').trim();
  if (!SAFE_HREF.test(v)) return null;
  try {
    const u = new URL(v);
    if (u.protocol === 'mailto:') return u.pathname ? v : null;
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname ? u.href : null;
  } catch {
    return null;
  }
}

const BASE_TAGS = ['b', 'strong', 'i', 'em', 'u', 'ul', 'ol', 'li', 'br', 'p', 'div', 'a', 'span'];
const BLOCK = new Set(['DIV', 'P', 'UL', 'OL', 'LI']);
const LIST = new Set(['UL', 'OL']);
/** Tags outside the allowlist that end a line: unwrapped, a <br> after them keeps the break. */
const LINE_ENDING = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'section', 'article', 'header', 'footer', 'table', 'tr', 'dl', 'dt', 'dd', 'figure', 'address', 'hr', 'main', 'aside', 'nav']);

let purifier: Purifier | null = null;
let allowImages = false;

function purify(): Purifier {
  if (typeof window === 'undefined' || typeof document === 'undefined') throw new Error('The alert body sanitizer needs a DOM.');
  if (purifier) return purifier;
  const p = DOMPurify(window);
  if (!p.isSupported) throw new Error('The alert body sanitizer is not supported here.');
  p.addHook('uponSanitizeElement', (node, data) => {
    if (!(node instanceof Element)) return;
    // Google Docs wraps a whole paste in <b style="font-weight:normal"> (renamed by quiet()): not bold.
    if ((data.tagName === 'b' || data.tagName === 'strong') && /font-weight\s*:\s*(normal|[1-4]00)\b/i.test(node.getAttribute('data-relay-style') ?? '')) {
      node.replaceWith(...node.childNodes);
      return;
    }
    if (LINE_ENDING.has(data.tagName) && node.nextSibling) node.after(node.ownerDocument.createElement('br'));
    if ((data.tagName === 'td' || data.tagName === 'th') && node.previousSibling && !isBr(node.previousSibling)) node.before(node.ownerDocument.createTextNode(' '));
  });
  p.addHook('afterSanitizeAttributes', (node) => {
    if (!(node instanceof Element)) return;
    const tag = node.tagName;
    if (tag === 'A') {
      const href = safeHref(node.getAttribute('href'));
      if (!href) return node.replaceWith(...node.childNodes);
      node.setAttribute('href', href);
      node.setAttribute('rel', LINK_REL);
    } else if (tag === 'SPAN') {
      if (!isHighlight(node.getAttribute(HL_ATTR))) node.replaceWith(...node.childNodes);
    } else if (tag === 'IMG') {
      const src = node.getAttribute('src');
      if (!allowImages || !isSafeImageSrc(src)) return node.remove();
      const alt = node.getAttribute('alt') ?? '';
      for (const a of [...node.attributes]) node.removeAttribute(a.name);
      node.setAttribute('src', src);
      node.setAttribute('alt', alt);
    }
    if (tag !== 'SPAN') node.removeAttribute(HL_ATTR);
  });
  purifier = p;
  return p;
}

// Under Relay's CSP, Chromium reports (and blocks) every inline handler and style attribute and
// every <style> element it parses, even into an inert document such as DOMPurify's. Renaming them
// before the parse keeps the console quiet; it is not a security control: whatever it misses is
// still blocked by the CSP and removed by DOMPurify, which drops the renamed ones too.
const INLINE_ATTR = /(<[a-z][^<>]*?[\s/"'])(on[a-z]+|style)(?=\s*=)/gi;
const STYLE_TAG = /<(\/?)style(?=[\s/>])/gi;
const QUIET_STYLE = 'x-relay-style';
function quiet(html: string): string {
  let out = html.replace(STYLE_TAG, `<$1${QUIET_STYLE}`);
  for (let prev = ''; prev !== out; ) {
    prev = out;
    out = out.replace(INLINE_ATTR, '$1data-relay-$2');
  }
  return out;
}

/**
 * `html` reduced to the allowlist, as a fragment of this document. Elements outside it are
 * unwrapped with their text kept (script, style and the like lose their content too); every
 * attribute but a safe href and a known data-hl goes. With `images`, an <img> whose src is a
 * checked data URL stays (src and alt only): only stored bodies are read that way.
 */
export function sanitizeRich(html: string, opts: { images?: boolean } = {}): DocumentFragment {
  const p = purify();
  allowImages = opts.images === true;
  try {
    return p.sanitize(quiet(html), {
      ALLOWED_TAGS: allowImages ? [...BASE_TAGS, 'img'] : BASE_TAGS,
      ALLOWED_ATTR: allowImages ? ['href', HL_ATTR, 'src', 'alt'] : ['href', HL_ATTR],
      ALLOW_DATA_ATTR: false,
      ALLOW_ARIA_ATTR: false,
      ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
      ADD_URI_SAFE_ATTR: [HL_ATTR],
      ADD_FORBID_CONTENTS: [QUIET_STYLE],
      RETURN_DOM_FRAGMENT: true,
    });
  } finally {
    allowImages = false;
  }
}

const isBr = (n: Node | null) => n?.nodeName === 'BR';
/** A text node holding nothing to show. */
const isBlankText = (n: Node) => n.nodeType === Node.TEXT_NODE && (n.nodeValue ?? '') === '';
function prevShown(n: Node): Node | null {
  let p = n.previousSibling;
  while (p && isBlankText(p)) p = p.previousSibling;
  return p;
}
function nextShown(n: Node): Node | null {
  let p = n.nextSibling;
  while (p && isBlankText(p)) p = p.nextSibling;
  return p;
}

/**
 * The fragment in canonical form, in place: source-formatting newlines dropped, every <div> and
 * <p> unwrapped into <br>-separated lines (an empty block is an empty line; a <br> that only
 * closes a block goes), trailing <br>s dropped, empty inline elements removed, text merged.
 */
export function canonicalize(root: DocumentFragment | Element): void {
  const walker = root.ownerDocument!.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  while (walker.nextNode()) texts.push(walker.currentNode as Text);
  for (const t of texts) {
    const v = t.data;
    if (!v.includes('\n')) continue;
    if (/^\s*$/.test(v)) t.remove();
    else t.data = v.replace(/[ \t]*\r?\n\s*/g, ' ');
  }
  for (const el of [...root.querySelectorAll('div, p')]) {
    // A <br> that ends a block only holds its (last or only) line open.
    if (isBr(el.lastChild)) (el.lastChild as ChildNode).remove();
    const doc = el.ownerDocument;
    const before = prevShown(el);
    if (before && !isBr(before) && !LIST.has(before.nodeName)) el.before(doc.createElement('br'));
    const after = nextShown(el);
    if (after && !isBr(after) && !LIST.has(after.nodeName)) el.after(doc.createElement('br'));
    el.replaceWith(...el.childNodes);
  }
  for (const el of [...root.querySelectorAll('b, strong, i, em, u, a, span')].reverse()) {
    if (!el.firstChild) el.remove();
  }
  const trimEnd = (parent: Node) => {
    let last = parent.lastChild;
    while (last && (isBlankText(last) || (isBr(last) && prevShown(last) && !isBr(prevShown(last)!)) || (isBr(last) && parent === root))) {
      const prev = last.previousSibling;
      last.remove();
      last = prev;
    }
  };
  trimEnd(root);
  for (const li of root.querySelectorAll('li')) trimEnd(li);
  // A <br> right before a list only ends a line the list ends anyway.
  for (const list of root.querySelectorAll('ul, ol')) {
    const before = prevShown(list);
    if (isBr(before) && prevShown(before!) && !isBr(prevShown(before!))) (before as ChildNode).remove();
  }
  root.normalize();
}

/** The fragment's markup. */
export function serialize(root: DocumentFragment | Element): string {
  const host = document.createElement('div');
  host.append(root instanceof Element ? root.cloneNode(true) : root.cloneNode(true));
  return host.innerHTML;
}

/** Any HTML as the canonical, sanitized rich body (no images: those are stored bodies' business). */
export function cleanRich(html: string): string {
  const frag = sanitizeRich(html);
  canonicalize(frag);
  return serialize(frag);
}

/** Text escaped for element content. */
const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Plain text as a rich body: escaped, each line break a <br> (the old stored form, unchanged). */
export function textToRich(text: string): string {
  return text.replace(/\r\n?/g, '\n').split('\n').map(escapeText).join('<br>');
}

/**
 * The body's plain text: lines as written, list items as "• item" or "1. item" on their own
 * lines, links as their text. What the card copies as text and what history search reads.
 */
export function richToText(html: string): string {
  if (!html) return '';
  const frag = sanitizeRich(html);
  canonicalize(frag);
  return nodeText(frag).replace(/\u00a0/g, ' ').replace(/\n+$/, '');
}

function nodeText(root: Node): string {
  let out = '';
  const newline = () => {
    if (out && !out.endsWith('\n')) out += '\n';
  };
  const walk = (n: Node, depth: number) => {
    for (const c of n.childNodes) {
      if (c.nodeType === Node.TEXT_NODE) out += c.nodeValue ?? '';
      else if (c.nodeName === 'BR') out += '\n';
      else if (LIST.has(c.nodeName)) {
        newline();
        let i = 0;
        for (const li of c.childNodes) {
          if (li.nodeName !== 'LI') continue;
          i++;
          newline();
          out += `${'  '.repeat(depth)}${c.nodeName === 'OL' ? `${i}.` : '•'} `;
          walk(li, depth + 1);
        }
        newline();
      } else if (BLOCK.has(c.nodeName)) {
        newline();
        walk(c, depth);
        newline();
      } else walk(c, depth);
    }
  };
  walk(root, 0);
  return out;
}

export type PastePlan = { kind: 'html'; html: string } | { kind: 'text'; text: string; shortened: boolean } | { kind: 'none' };

/**
 * What a paste or a drop inserts, given `room` characters left under the limit: the HTML flavour
 * sanitized and canonical when there is one and it fits; otherwise plain text (the HTML's own text
 * when there was HTML), cut to the room left. Never the HTML as given.
 */
export function pastePlan(html: string, text: string, room: number): PastePlan {
  let plain = text;
  if (html) {
    const clean = cleanRich(html);
    if (richLength(clean) <= room) return clean ? { kind: 'html', html: clean } : { kind: 'none' };
    plain = richToText(clean);
  }
  plain = plain.replace(/\r\n?/g, '\n');
  const fit = plain.slice(0, Math.max(0, room));
  return fit ? { kind: 'text', text: fit, shortened: fit.length < plain.length } : { kind: 'none' };
}

/** The length the body counter shows and the 10,000-character limit applies to. */
export const richLength = (html: string) => richToText(html).length;

/**
 * Whether `node` stands alone on its line: on each side, up to the nearest block (or the root),
 * only a <br> or nothing. An inline parent (b, span…) is passed through.
 */
export function aloneOnLine(node: Node, root: Node): boolean {
  return aloneSide(node, root, false) && aloneSide(node, root, true);
}

function aloneSide(node: Node, root: Node, next: boolean): boolean {
  let n: Node = node;
  for (;;) {
    const sib = next ? nextShown(n) : prevShown(n);
    if (sib) return isBr(sib) || BLOCK.has(sib.nodeName);
    const parent = n.parentNode;
    if (!parent || parent === root || BLOCK.has(parent.nodeName)) return true;
    n = parent;
  }
}

/** The text nodes under `root`, in document order. */
export function textNodes(root: Node): Text[] {
  const walker = (root.ownerDocument ?? (root as Document)).createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const out: Text[] = [];
  while (walker.nextNode()) out.push(walker.currentNode as Text);
  return out;
}

/** The highlight span `node` is inside (below `root`), or null. */
export function highlightAt(node: Node | null, root: Node): HTMLElement | null {
  for (let n = node; n && n !== root; n = n.parentNode) {
    if (n instanceof HTMLElement && n.tagName === 'SPAN' && isHighlight(n.getAttribute(HL_ATTR))) return n;
  }
  return null;
}

/** Moves `t` out of its highlight span, splitting the span around it. */
function liftOut(t: Text, root: Node): void {
  const span = highlightAt(t, root);
  if (!span) return;
  const doc = span.ownerDocument;
  const part = (setup: (r: Range) => void) => {
    const r = doc.createRange();
    setup(r);
    const frag = r.extractContents();
    if (!frag.textContent) return null;
    const copy = span.cloneNode(false) as HTMLElement;
    copy.append(frag);
    return copy;
  };
  const before = part((r) => { r.setStart(span, 0); r.setEndBefore(t); });
  const after = part((r) => { r.setStartAfter(t); r.setEnd(span, span.childNodes.length); });
  if (before) span.before(before);
  if (after) span.after(after);
  span.replaceWith(...span.childNodes);
}

/** Joins neighbouring highlight spans of one kind and drops empty ones (text nodes stay apart, so
 * the caller's nodes stay in the document). */
function tidyHighlights(root: Node & ParentNode): void {
  for (const s of [...root.querySelectorAll(`span[${HL_ATTR}]`)]) {
    if (!s.textContent) {
      s.remove();
      continue;
    }
    const next = s.nextSibling;
    if (next instanceof HTMLElement && next.tagName === 'SPAN' && next.getAttribute(HL_ATTR) === s.getAttribute(HL_ATTR)) {
      next.prepend(...s.childNodes);
      s.remove();
    }
  }
}

/**
 * Highlight `kind` on the text `range` covers (null removes highlighting from it), inside `root`
 * (the editor). Existing highlights there are split, never nested. A collapsed range inside a
 * highlight changes (or with null removes) that whole highlight; elsewhere it does nothing.
 * Answers the range to select afterwards (null when nothing changed).
 */
export function applyHighlight(root: HTMLElement, range: Range, kind: Highlight | null): Range | null {
  if (!root.contains(range.commonAncestorContainer)) return null;
  const doc = root.ownerDocument;
  if (range.collapsed) {
    const span = highlightAt(range.startContainer, root);
    if (!span) return null;
    const r = doc.createRange();
    if (kind) {
      span.setAttribute(HL_ATTR, kind);
      r.selectNodeContents(span);
    } else {
      const first = span.firstChild;
      const last = span.lastChild;
      span.replaceWith(...span.childNodes);
      if (!first || !last) return null;
      r.setStartBefore(first);
      r.setEndAfter(last);
    }
    return r;
  }
  const parts: { t: Text; start: number; end: number }[] = [];
  for (const t of textNodes(root)) {
    if (!range.intersectsNode(t)) continue;
    const start = t === range.startContainer ? range.startOffset : 0;
    const end = t === range.endContainer ? range.endOffset : t.length;
    if (end > start) parts.push({ t, start, end });
  }
  if (!parts.length) return null;
  const pieces = parts.map(({ t, start, end }) => {
    if (end < t.length) t.splitText(end);
    return start > 0 ? t.splitText(start) : t;
  });
  for (const t of pieces) {
    liftOut(t, root);
    if (!kind) continue;
    const span = doc.createElement('span');
    span.setAttribute(HL_ATTR, kind);
    t.replaceWith(span);
    span.append(t);
  }
  tidyHighlights(root);
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  const r = doc.createRange();
  r.setStartBefore(highlightAt(first, root) ?? first);
  r.setEndAfter(highlightAt(last, root) ?? last);
  return r;
}

/**
 * Puts `text` on a line of its own at `range` (collapsed to its start) inside `root`: a <br> goes
 * before it unless the caret starts a line, and after it unless the caret ends one. Answers the
 * range just after the inserted line, for the caret. With no range (or one outside `root`) the
 * line goes at the end.
 */
export function insertLineAt(root: HTMLElement, range: Range | null, text: string): Range {
  const doc = root.ownerDocument;
  const r = doc.createRange();
  if (range && root.contains(range.startContainer)) {
    r.setStart(range.startContainer, range.startOffset);
  } else {
    r.selectNodeContents(root);
    r.collapse(false);
  }
  r.collapse(true);
  // Split a text node so the insertion point sits between nodes.
  let container = r.startContainer;
  let offset = r.startOffset;
  if (container.nodeType === Node.TEXT_NODE) {
    const t = container as Text;
    const parent = t.parentNode!;
    const index = [...parent.childNodes].indexOf(t);
    if (offset <= 0) offset = index;
    else if (offset >= t.length) offset = index + 1;
    else {
      t.splitText(offset);
      offset = index + 1;
    }
    container = parent;
  }
  const line = doc.createTextNode(text);
  container.insertBefore(line, container.childNodes[offset] ?? null);
  const end = isolateLine(line, root);
  const caret = doc.createRange();
  caret.setStartAfter(end);
  caret.collapse(true);
  return caret;
}

/** The `[image N]` lines of `root`: text nodes alone on their line that read as a placeholder. */
export function placeholders(root: DocumentFragment | Element): { node: Text; n: number }[] {
  const out: { node: Text; n: number }[] = [];
  for (const t of textNodes(root)) {
    const n = tokenNumber(t.data);
    if (n !== null && aloneOnLine(t, root)) out.push({ node: t, n });
  }
  return out;
}

function richFragment(body: string): DocumentFragment {
  const frag = sanitizeRich(body);
  canonicalize(frag);
  return frag;
}

/** Placeholder numbers written in `body`, whether or not an image stands behind them. */
export const placeholderNumbers = (body: string) => new Set(placeholders(richFragment(body)).map((p) => p.n));

/** Whether any placeholder line of `body` shows a known, safe image. */
export const bodyHasImages = (body: string, images: BodyImages) =>
  placeholders(richFragment(body)).some((p) => isSafeImageSrc(images[p.n]?.src));

/** A number no image and no placeholder line of `body` uses yet. */
export function nextImageNumber(body: string, images: BodyImages): number {
  let max = 0;
  for (const k of Object.keys(images)) max = Math.max(max, Number(k));
  for (const n of placeholderNumbers(body)) max = Math.max(max, n);
  return max + 1;
}

// Marks where an image goes while the body is serialized; taken out of the text first.
const MARK_OPEN = '\uE000';
const MARK_CLOSE = '\uE001';
const MARKS = /[\uE000\uE001]/g;

/**
 * The draft's rich body as the HTML the server stores and every export carries: sanitized and
 * canonical, with each placeholder line whose image is known (and a safe data URL) as exactly
 * bodyImages' imageTag. Any other placeholder stays text.
 */
export function richToStored(body: string, images: BodyImages = {}): string {
  const frag = richFragment(body);
  for (const t of textNodes(frag)) {
    const v = t.data.replace(MARKS, '');
    if (v !== t.data) t.data = v;
  }
  for (const { node, n } of placeholders(frag)) {
    if (images[n] && imageTag(images[n])) node.data = `${MARK_OPEN}${n}${MARK_CLOSE}`;
  }
  return serialize(frag).replace(/\uE000(\d+)\uE001/g, (_, n: string) => imageTag(images[Number(n)]) ?? '');
}

/**
 * Stored HTML (today's, or the plain-text bodies older versions wrote: escaped text and <br>)
 * as a draft's rich body and images: every image that passes the sanitizer becomes a
 * placeholder line of its own, numbered after the placeholders written literally in the text.
 */
export function storedToRich(html: string | undefined): { body: string; images: BodyImages } {
  const frag = sanitizeRich(html ?? '', { images: true });
  canonicalize(frag);
  const literal = new Set(placeholders(frag).map((p) => p.n));
  const images: Record<number, BodyImage> = {};
  let n = 0;
  for (const img of [...frag.querySelectorAll('img')]) {
    do n++; while (literal.has(n));
    images[n] = { src: img.getAttribute('src') ?? '', alt: cleanAlt(img.getAttribute('alt') ?? '') };
    const line = img.ownerDocument.createTextNode(imageToken(n));
    img.replaceWith(line);
    isolateLine(line, frag);
  }
  canonicalize(frag);
  return { body: serialize(frag), images };
}

/** Adds a <br> on each side of `node` where something else shares its line. */
function isolateLine(node: Node, root: Node): Node {
  const doc = node.ownerDocument!;
  if (!aloneSide(node, root, false)) node.parentNode!.insertBefore(doc.createElement('br'), node);
  if (!aloneSide(node, root, true)) {
    const br = doc.createElement('br');
    node.parentNode!.insertBefore(br, node.nextSibling);
    return br;
  }
  return node;
}

/**
 * Stored body HTML for a mail client, styled by presentational markup only (no style or class
 * attribute, see cardExport's cardInlineHtml): each highlight as bold text in its colour,
 * `<font color><b>…</b></font>`, since a background needs a style attribute. Input is sanitized
 * again (images kept), so only the allowlist goes out.
 */
export function mailBodyHtml(stored: string): string {
  const frag = sanitizeRich(stored, { images: true });
  for (const span of [...frag.querySelectorAll(`span[${HL_ATTR}]`)]) {
    const kind = span.getAttribute(HL_ATTR);
    if (!isHighlight(kind)) continue;
    const font = span.ownerDocument.createElement('font');
    font.setAttribute('color', highlightColor(kind).text);
    const b = span.ownerDocument.createElement('b');
    b.append(...span.childNodes);
    font.append(b);
    span.replaceWith(font);
  }
  for (const img of frag.querySelectorAll('img')) img.setAttribute('class', 'alert-body-image');
  return serialize(frag);
}

export type RichTag = 'b' | 'strong' | 'i' | 'em' | 'u' | 'ul' | 'ol' | 'li' | 'br' | 'a' | 'span';
export type RichNode =
  | { kind: 'text'; text: string }
  | { kind: 'image'; n: number; image: BodyImage }
  | { kind: 'el'; tag: RichTag; href?: string; hl?: Highlight; children: RichNode[] };

/**
 * The body as a plain tree of allowlisted nodes for React to draw (no HTML string is injected):
 * a placeholder line whose image is known becomes an image node; links carry a checked href and
 * highlights a known name.
 */
export function richTree(body: string, images: BodyImages = {}): RichNode[] {
  const frag = richFragment(body);
  const shown = new Map<Node, number>();
  for (const p of placeholders(frag)) if (isSafeImageSrc(images[p.n]?.src)) shown.set(p.node, p.n);
  const walk = (parent: Node): RichNode[] =>
    [...parent.childNodes].flatMap((c): RichNode[] => {
      if (c.nodeType === Node.TEXT_NODE) {
        const n = shown.get(c);
        return n === undefined ? [{ kind: 'text', text: c.nodeValue ?? '' }] : [{ kind: 'image', n, image: images[n] }];
      }
      if (!(c instanceof Element)) return [];
      const tag = c.tagName.toLowerCase() as RichTag;
      if (tag === 'a') return [{ kind: 'el', tag, href: safeHref(c.getAttribute('href')) ?? undefined, children: walk(c) }];
      if (tag === 'span') {
        const hl = c.getAttribute(HL_ATTR);
        return isHighlight(hl) ? [{ kind: 'el', tag, hl, children: walk(c) }] : walk(c);
      }
      return [{ kind: 'el', tag, children: walk(c) }];
    });
  return walk(frag);
}
