// The small Markdown subset of release-note bodies (Settings → About), parsed into a typed block
// tree that ReleaseNotes.tsx renders as React elements and text nodes only. No HTML ever: a tag
// in the text (`<script>`, `<img onerror=…>`) stays literal characters, a link `[text](url)` keeps
// only its text (the URL is dropped: nothing here navigates), a bare URL stays plain text.
// Blocks: headings `#`..`###`, paragraphs (consecutive lines joined), bullet lists (`- `, `* `),
// numbered lists (`1. `), fenced code (```), separated by blank lines; nested list items are
// flattened into their list. Inlines: `**bold**`, `*italic*` / `_italic_`, `` `code` ``, and
// backslash escapes; an unclosed marker stays literal text. Bounded: the input is cut at
// MAX_INPUT_BYTES (UTF-8) and the tree at MAX_BLOCKS blocks; `truncated` says that something was
// cut. Pure functions, no DOM.

export const MAX_INPUT_BYTES = 16 * 1024;
export const MAX_BLOCKS = 400;
/** Inline markers nest at most this deep; deeper markers stay literal text. */
export const MAX_INLINE_DEPTH = 8;

export type Inline =
  | { kind: 'text'; text: string }
  | { kind: 'strong'; children: Inline[] }
  | { kind: 'em'; children: Inline[] }
  | { kind: 'code'; text: string };

export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3; content: Inline[] }
  | { kind: 'paragraph'; content: Inline[] }
  | { kind: 'list'; ordered: boolean; start: number; items: Inline[][] }
  | { kind: 'code'; text: string };

export interface MarkdownDoc {
  blocks: Block[];
  /** The input was longer than MAX_INPUT_BYTES or held more than MAX_BLOCKS blocks. */
  truncated: boolean;
}

/** The longest prefix of `text` within `maxBytes` UTF-8 bytes (never splitting a character). */
export function cutToBytes(text: string, maxBytes: number): { text: string; cut: boolean } {
  if (text.length * 3 <= maxBytes) return { text, cut: false };
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const cp = text.codePointAt(i) ?? 0;
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) return { text: text.slice(0, i), cut: true };
    bytes += size;
    i += cp > 0xffff ? 2 : 1;
  }
  return { text, cut: false };
}

const FENCE = /^\s{0,3}```/;
const HEADING = /^\s{0,3}(#{1,3})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const EMPTY_HEADING = /^\s{0,3}(#{1,3})[ \t]*$/;
const BULLET = /^\s*[-*][ \t]+(.*)$/;
const NUMBERED = /^\s*(\d{1,9})\.[ \t]+(.*)$/;

function isBlank(line: string): boolean {
  return line.trim() === '';
}

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || EMPTY_HEADING.test(line) || BULLET.test(line) || NUMBERED.test(line);
}

/** Parses Markdown text into the block tree (see the header for the subset and the bounds). */
export function parseMarkdown(input: string): MarkdownDoc {
  const { text, cut } = cutToBytes(input, MAX_INPUT_BYTES);
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let truncated = cut;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) {
      i++;
      continue;
    }
    if (blocks.length >= MAX_BLOCKS) {
      truncated = true;
      break;
    }
    if (FENCE.test(line)) {
      // Everything up to the closing fence (or the end of the text) is code, verbatim.
      const body: string[] = [];
      i++;
      while (i < lines.length && !FENCE.test(lines[i])) body.push(lines[i++]);
      i++;
      blocks.push({ kind: 'code', text: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line) ?? EMPTY_HEADING.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', level: heading[1].length as 1 | 2 | 3, content: parseInlines(heading[2] ?? '') });
      i++;
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    if (bullet || numbered) {
      const ordered = numbered !== null;
      const marker = ordered ? NUMBERED : BULLET;
      const items: string[] = [];
      // Items of the same kind, each with its continuation lines; a nested item of the other
      // kind joins the list as one more item (flattened).
      while (i < lines.length && !isBlank(lines[i]) && !FENCE.test(lines[i]) && !HEADING.test(lines[i]) && !EMPTY_HEADING.test(lines[i])) {
        const own = marker.exec(lines[i]);
        const other = (ordered ? BULLET : NUMBERED).exec(lines[i]);
        if (own) items.push(own[ordered ? 2 : 1]);
        else if (other && /^\s/.test(lines[i])) items.push(other[ordered ? 1 : 2]);
        else if (other) break;
        else items[items.length - 1] += ' ' + lines[i].trim();
        i++;
      }
      blocks.push({ kind: 'list', ordered, start: numbered ? Number(numbered[1]) : 1, items: items.map((item) => parseInlines(item.trim())) });
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && !isBlank(lines[i]) && !startsBlock(lines[i])) para.push(lines[i++].trim());
    blocks.push({ kind: 'paragraph', content: parseInlines(para.join(' ')) });
  }
  return { blocks, truncated };
}

const ESCAPABLE = '\\`*_[]()#!-.+{}<>|~';
const WORD = /[\p{L}\p{N}]/u;

function isSpace(ch: string | undefined): boolean {
  return ch === undefined || /\s/.test(ch);
}

/** Parses one line of inline Markdown (bold, italic, code, link text) into text nodes. */
export function parseInlines(text: string): Inline[] {
  return new InlineParser(text).parse(0, text.length, 0, true);
}

class InlineParser {
  /** Per marker, the position from which no closer exists (so repeated openers stay linear). */
  private readonly noCloserFrom = new Map<string, number>();

  constructor(private readonly s: string) {}

  parse(from: number, to: number, depth: number, links: boolean): Inline[] {
    const out: Inline[] = [];
    let text = '';
    const flush = () => {
      if (text !== '') out.push({ kind: 'text', text });
      text = '';
    };
    const s = this.s;
    let i = from;
    while (i < to) {
      const ch = s[i];
      if (ch === '\\' && i + 1 < to && ESCAPABLE.includes(s[i + 1])) {
        text += s[i + 1];
        i += 2;
        continue;
      }
      if (ch === '`') {
        const run = this.runLength(i, to, '`');
        const close = this.find('`'.repeat(run), i + run, to, (at) => this.runLength(at, to, '`') === run);
        if (close >= 0) {
          flush();
          out.push({ kind: 'code', text: s.slice(i + run, close).replace(/^ (.*) $/s, '$1') });
          i = close + run;
          continue;
        }
        text += s.slice(i, i + run);
        i += run;
        continue;
      }
      if (depth < MAX_INLINE_DEPTH && ch === '*' && s[i + 1] === '*' && !isSpace(s[i + 2])) {
        const close = this.find('**', i + 2, to, (at) => at > i + 2 && !isSpace(s[at - 1]) && (at + 2 >= to || s[at + 2] !== '*'));
        if (close >= 0) {
          flush();
          out.push({ kind: 'strong', children: this.parse(i + 2, close, depth + 1, links) });
          i = close + 2;
          continue;
        }
      }
      if (depth < MAX_INLINE_DEPTH && (ch === '*' || ch === '_') && s[i + 1] !== ch && !isSpace(s[i + 1]) && (ch === '*' || !WORD.test(s[i - 1] ?? ' '))) {
        const close = this.find(ch, i + 1, to, (at) =>
          at > i + 1 && !isSpace(s[at - 1]) && s[at - 1] !== '\\' && (ch === '_' ? at + 1 >= to || !WORD.test(s[at + 1]) : s[at - 1] !== '*' && (at + 1 >= to || s[at + 1] !== '*')),
        );
        if (close >= 0) {
          flush();
          out.push({ kind: 'em', children: this.parse(i + 1, close, depth + 1, links) });
          i = close + 1;
          continue;
        }
      }
      if (links && (ch === '[' || (ch === '!' && s[i + 1] === '['))) {
        const open = ch === '!' ? i + 1 : i;
        const end = this.linkEnd(open, to);
        if (end) {
          // Only the link's text is kept (an image keeps its alt text): the URL never renders.
          flush();
          out.push(...this.parse(open + 1, end.textEnd, depth + 1, false));
          i = end.next;
          continue;
        }
      }
      text += ch;
      i++;
    }
    flush();
    return mergeText(out);
  }

  private runLength(at: number, to: number, ch: string): number {
    let n = 0;
    while (at + n < to && this.s[at + n] === ch) n++;
    return n;
  }

  /** The first `marker` at or after `from` (before `to`) that `ok` accepts, or -1. */
  private find(marker: string, from: number, to: number, ok: (at: number) => boolean): number {
    const key = `${marker}@${to}`;
    const none = this.noCloserFrom.get(key);
    if (none !== undefined && from >= none) return -1;
    let at = this.s.indexOf(marker, from);
    while (at >= 0 && at + marker.length <= to) {
      if (ok(at)) return at;
      at = this.s.indexOf(marker, at + 1);
    }
    // Closers do not depend on their opener, except that they follow it: none after `from`.
    this.noCloserFrom.set(key, from);
    return -1;
  }

  /** For `[text](url)` starting at `open`: where the text ends and where the link ends. */
  private linkEnd(open: number, to: number): { textEnd: number; next: number } | null {
    const key = `link@${to}`;
    const none = this.noCloserFrom.get(key);
    if (none !== undefined && open >= none) return null;
    const textEnd = this.s.indexOf(']', open + 1);
    if (textEnd < 0 || textEnd >= to) {
      this.noCloserFrom.set(key, open);
      return null;
    }
    if (this.s[textEnd + 1] !== '(' || textEnd === open + 1) return null;
    // The destination ends at its balanced `)`; it is dropped whole.
    let depth = 0;
    for (let at = textEnd + 2; at < to; at++) {
      const c = this.s[at];
      if (c === '[' || c === ']' || c === '\n') return null;
      if (c === '(') depth++;
      else if (c === ')' && depth-- === 0) return { textEnd, next: at + 1 };
    }
    return null;
  }
}

function mergeText(nodes: Inline[]): Inline[] {
  const out: Inline[] = [];
  for (const n of nodes) {
    const last = out[out.length - 1];
    if (n.kind === 'text' && last?.kind === 'text') out[out.length - 1] = { kind: 'text', text: last.text + n.text };
    else out.push(n);
  }
  return out;
}

/** The plain text of inline nodes (for labels and tests). */
export function inlineText(nodes: Inline[]): string {
  return nodes.map((n) => (n.kind === 'text' || n.kind === 'code' ? n.text : inlineText(n.children))).join('');
}
