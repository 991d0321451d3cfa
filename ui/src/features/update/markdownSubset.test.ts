// The release-note Markdown subset: blocks (headings, paragraphs, bullet and numbered lists,
// fenced code, blank-line separation), inlines (bold, italic, code, link text without its URL,
// nesting, escapes), unclosed markers and HTML as literal text, and the input and block bounds.
import { describe, expect, it } from 'vitest';
import { MAX_BLOCKS, MAX_INPUT_BYTES, cutToBytes, inlineText, parseInlines, parseMarkdown, type Inline } from './markdownSubset';

const t = (text: string): Inline => ({ kind: 'text', text });
const strong = (...children: Inline[]): Inline => ({ kind: 'strong', children });
const em = (...children: Inline[]): Inline => ({ kind: 'em', children });
const code = (text: string): Inline => ({ kind: 'code', text });

describe('parseMarkdown blocks', () => {
  it('reads headings # to ### with their level; #### and a missing space stay paragraphs', () => {
    const { blocks } = parseMarkdown('# One\n## Two ##\n### Three\n#### Four\n#NoSpace');
    expect(blocks).toEqual([
      { kind: 'heading', level: 1, content: [t('One')] },
      { kind: 'heading', level: 2, content: [t('Two')] },
      { kind: 'heading', level: 3, content: [t('Three')] },
      { kind: 'paragraph', content: [t('#### Four #NoSpace')] },
    ]);
  });

  it('joins consecutive lines into one paragraph and separates paragraphs by blank lines', () => {
    const { blocks } = parseMarkdown('first line\nsecond line\n\n\n  third  \r\nfourth');
    expect(blocks).toEqual([
      { kind: 'paragraph', content: [t('first line second line')] },
      { kind: 'paragraph', content: [t('third fourth')] },
    ]);
  });

  it('reads bullet lists with - and *, continuation lines joining their item', () => {
    const { blocks } = parseMarkdown('- one\n* two\n  still two\n- **three**\n\nafter');
    expect(blocks).toEqual([
      { kind: 'list', ordered: false, start: 1, items: [[t('one')], [t('two still two')], [strong(t('three'))]] },
      { kind: 'paragraph', content: [t('after')] },
    ]);
  });

  it('reads numbered lists with their first number', () => {
    const { blocks } = parseMarkdown('3. three\n4. four\n10. ten');
    expect(blocks).toEqual([{ kind: 'list', ordered: true, start: 3, items: [[t('three')], [t('four')], [t('ten')]] }]);
  });

  it('flattens nested items into their list and starts a new list for the other kind at the margin', () => {
    const { blocks } = parseMarkdown('- a\n  1. nested\n- b\n1. own list');
    expect(blocks).toEqual([
      { kind: 'list', ordered: false, start: 1, items: [[t('a')], [t('nested')], [t('b')]] },
      { kind: 'list', ordered: true, start: 1, items: [[t('own list')]] },
    ]);
  });

  it('ends a paragraph at a heading, a list or a fence without a blank line', () => {
    const { blocks } = parseMarkdown('text\n# Head\ntext\n- item\n```\ncode\n```');
    expect(blocks.map((b) => b.kind)).toEqual(['paragraph', 'heading', 'paragraph', 'list', 'code']);
  });

  it('keeps fenced code verbatim (markers, HTML and blank lines included), the info string dropped', () => {
    const { blocks } = parseMarkdown('```ts\nconst a = **b**;\n\n<b>x</b>\n```\nafter');
    expect(blocks).toEqual([
      { kind: 'code', text: 'const a = **b**;\n\n<b>x</b>' },
      { kind: 'paragraph', content: [t('after')] },
    ]);
  });

  it('runs an unclosed fence to the end of the text', () => {
    expect(parseMarkdown('```\nline 1\nline 2').blocks).toEqual([{ kind: 'code', text: 'line 1\nline 2' }]);
  });

  it('reads an empty text and a text of blank lines as no blocks', () => {
    expect(parseMarkdown('')).toEqual({ blocks: [], truncated: false });
    expect(parseMarkdown('\n  \n\t\n')).toEqual({ blocks: [], truncated: false });
  });

  it('keeps horizontal rules and other Markdown outside the subset as text', () => {
    const { blocks } = parseMarkdown('---\n\n> quoted\n\n| a | b |');
    expect(blocks).toEqual([
      { kind: 'paragraph', content: [t('---')] },
      { kind: 'paragraph', content: [t('> quoted')] },
      { kind: 'paragraph', content: [t('| a | b |')] },
    ]);
  });
});

describe('parseInlines', () => {
  it('reads bold, italic with * and _, and code', () => {
    expect(parseInlines('a **b** *c* _d_ `e`')).toEqual([t('a '), strong(t('b')), t(' '), em(t('c')), t(' '), em(t('d')), t(' '), code('e')]);
  });

  it('nests italic in bold and bold in italic, and code inside both', () => {
    expect(parseInlines('**bold *it* `c`**')).toEqual([strong(t('bold '), em(t('it')), t(' '), code('c'))]);
    expect(parseInlines('*it **bold** more*')).toEqual([em(t('it '), strong(t('bold')), t(' more'))]);
    expect(parseInlines('***both***')).toEqual([strong(em(t('both')))]);
  });

  it('keeps unclosed markers literal', () => {
    expect(parseInlines('**open')).toEqual([t('**open')]);
    expect(parseInlines('*open')).toEqual([t('*open')]);
    expect(parseInlines('_open')).toEqual([t('_open')]);
    expect(parseInlines('`open')).toEqual([t('`open')]);
    expect(parseInlines('[open')).toEqual([t('[open')]);
    expect(parseInlines('[text](open')).toEqual([t('[text](open')]);
    expect(parseInlines('**a *b**')).toEqual([strong(t('a *b'))]);
  });

  it('needs non-space next to a marker (arithmetic and snake_case stay text)', () => {
    expect(parseInlines('2 * 3 * 4')).toEqual([t('2 * 3 * 4')]);
    expect(parseInlines('snake_case_name and ** x **')).toEqual([t('snake_case_name and ** x **')]);
    expect(parseInlines('****')).toEqual([t('****')]);
  });

  it('keeps markers inside code literal and reads a double-backtick span', () => {
    expect(parseInlines('`**not bold**`')).toEqual([code('**not bold**')]);
    expect(parseInlines('`` a ` b ``')).toEqual([code('a ` b')]);
  });

  it('honours backslash escapes', () => {
    expect(parseInlines('\\*not\\* \\`x\\` \\[y](z)')).toEqual([t('*not* `x` [y](z)')]);
  });

  it('keeps only the text of a link and the alt of an image, never the URL', () => {
    expect(parseInlines('see [the **docs**](https://evil.example/x "t") now')).toEqual([t('see '), t('the '), strong(t('docs')), t(' now')].reduce<Inline[]>((a, n) => {
      const last = a[a.length - 1];
      if (n.kind === 'text' && last?.kind === 'text') a[a.length - 1] = t(last.text + n.text);
      else a.push(n);
      return a;
    }, []));
    expect(inlineText(parseInlines('[click](javascript:alert(1)) ![logo](https://x/y.png)'))).toBe('click logo');
    expect(inlineText(parseInlines('[a](javascript:void 0)'))).toBe('a');
    expect(JSON.stringify(parseInlines('[x](https://evil.example/)'))).not.toContain('evil');
  });

  it('does not nest links: the inner one wins and the rest is text', () => {
    expect(inlineText(parseInlines('[[inner](u1)](u2)'))).toBe('[inner](u2)');
  });

  it('keeps bare URLs and autolinks as plain text', () => {
    expect(parseInlines('https://example.com/a_b_c <https://x.example>')).toEqual([t('https://example.com/a_b_c <https://x.example>')]);
  });

  it('keeps HTML as literal characters', () => {
    const html = '<script>alert(1)</script> <img src=x onerror="alert(1)"> <a href="javascript:alert(1)">x</a>';
    expect(parseInlines(html)).toEqual([t(html)]);
    expect(parseMarkdown(`# <b>title</b>\n\n${html}`).blocks).toEqual([
      { kind: 'heading', level: 1, content: [t('<b>title</b>')] },
      { kind: 'paragraph', content: [t(html)] },
    ]);
  });

  it('stops nesting at the depth bound, keeping deeper markers literal', () => {
    const deep = '*'.repeat(1) + '_a *b _c *d _e *f _g *h _i *j k* j_ i* h_ g* f_ e* d_ c* b_ a*';
    const text = inlineText(parseInlines(deep));
    expect(text).toContain('k');
    let depth = 0;
    const walk = (nodes: Inline[], d: number) => nodes.forEach((n) => (n.kind === 'em' || n.kind === 'strong' ? walk(n.children, d + 1) : (depth = Math.max(depth, d))));
    walk(parseInlines(deep), 0);
    expect(depth).toBeLessThanOrEqual(8);
  });
});

describe('bounds', () => {
  it('cuts the input at 16 KiB of UTF-8 without splitting a character', () => {
    expect(cutToBytes('abc', 16)).toEqual({ text: 'abc', cut: false });
    expect(cutToBytes('ééé', 5)).toEqual({ text: 'éé', cut: true });
    expect(cutToBytes('a😀b', 4)).toEqual({ text: 'a', cut: true });
    const long = `${'x'.repeat(MAX_INPUT_BYTES)}TAIL`;
    const doc = parseMarkdown(long);
    expect(doc.truncated).toBe(true);
    expect(inlineText((doc.blocks[0] as { content: Inline[] }).content)).toBe('x'.repeat(MAX_INPUT_BYTES));
    expect(parseMarkdown('x'.repeat(MAX_INPUT_BYTES)).truncated).toBe(false);
  });

  it('keeps at most 400 blocks', () => {
    const doc = parseMarkdown(Array.from({ length: 1000 }, (_, i) => `p${i}`).join('\n\n'));
    expect(doc.blocks).toHaveLength(MAX_BLOCKS);
    expect(doc.truncated).toBe(true);
    expect(parseMarkdown(Array.from({ length: MAX_BLOCKS }, (_, i) => `p${i}`).join('\n\n')).truncated).toBe(false);
  });

  it('parses 16 KiB of unclosed markers quickly (no quadratic rescans)', () => {
    for (const unit of ['*a ', '**a ', '_a ', '`', '[a', '[a](', '**a *b ']) {
      const input = unit.repeat(Math.ceil(MAX_INPUT_BYTES / unit.length));
      const started = performance.now();
      const doc = parseMarkdown(input);
      expect(performance.now() - started).toBeLessThan(500);
      expect(doc.blocks).toHaveLength(1);
    }
  });
});
