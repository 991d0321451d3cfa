// The glyph guard for ui/src (issue #38): a Debian station has no colour emoji font, so an emoji
// in the UI (the bell of "Sound on", the alarm clock of a due alarm) shows as an empty box. Every
// app source file (tests and test scaffolding aside; comments ignored) is scanned for emoji code
// points (the pictographs of U+1F000–U+1FAFF and the emoji-only clocks and media symbols of
// U+231A–U+23FA); the app draws such icons as inline SVG (components/Icons). Symbols the
// DejaVu fonts carry (✓ ✕ ✎ ⚠ ★ arrows) are fine. Also: the sound toggle's bell is an <svg>.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { AlarmClockIcon, BellIcon, BellOffIcon } from '../components/Icons';

const EMOJI = /[\u{1F000}-\u{1FAFF}\u{231A}\u{231B}\u{23E9}-\u{23F3}\u{23F8}-\u{23FA}]/gu;

/** The source without its comments (a `//` right after `:`, as in a URL, is kept). */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

const SOURCES = Object.entries(import.meta.glob<string>('/src/**/*.{ts,tsx}', { query: '?raw', import: 'default', eager: true }))
  .map(([path, text]) => ({ path: path.replace(/^\/src\//, ''), text }))
  .filter(({ path }) => !/\.test\.tsx?$|testkit|domTest|domTransport|nonSecureTest/i.test(path));

describe('no emoji glyphs in the UI', () => {
  it('finds the app sources', () => {
    expect(SOURCES.length).toBeGreaterThan(100);
  });

  it('no app source draws an emoji (use components/Icons)', () => {
    const found = SOURCES.flatMap(({ path, text }) => [...withoutComments(text).matchAll(EMOJI)].map((m) => `${path}: ${m[0]} (U+${m[0].codePointAt(0)!.toString(16).toUpperCase()})`));
    expect(found).toEqual([]);
  });

  it('the icons are decorative inline SVG in the text colour', () => {
    for (const Icon of [BellIcon, BellOffIcon, AlarmClockIcon]) {
      const html = renderToStaticMarkup(<Icon />);
      expect(html).toMatch(/^<svg [^>]*aria-hidden="true"[^>]*focusable="false"/);
      expect(html).toContain('stroke="currentColor"');
    }
  });
});
