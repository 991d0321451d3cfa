// WCAG 2.2 AA contrast of every colour pair the UI draws, computed from palette.ts (the single
// definition), and styles.css's :root variables checked against the palette they mirror.
import { describe, expect, it } from 'vitest';
import css from '../styles.css?raw';
import { ACCENTS, AA_NON_TEXT, AA_TEXT, CONTRAST_PAIRS, CSS_VARS, SEVERITY_COLORS, THEME, contrastRatio, relativeLuminance } from './palette';
import { SEVERITIES } from '../features/alerts/alerts';
import { DEFAULT_ACCENT, accentColor } from './accent';

/** `--name: value;` declarations of the first :root block in styles.css. */
function rootVars(src: string): Record<string, string> {
  const block = /:root\s*\{([^}]*)\}/.exec(src)?.[1] ?? '';
  return Object.fromEntries([...block.matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)].map((m) => [m[1], m[2].trim().toLowerCase()]));
}

describe('contrast maths (WCAG 2.2 relative luminance)', () => {
  it('matches the reference values', () => {
    expect(relativeLuminance('#ffffff')).toBeCloseTo(1, 6);
    expect(relativeLuminance('#000000')).toBe(0);
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 6);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
    expect(contrastRatio('#ffffff', '#777777')).toBe(contrastRatio('#777777', '#ffffff'));
  });

  it('reports the old accents as failing (the issue #19 numbers)', () => {
    const old = { red: '#e63946', purple: '#a855f7', blue: '#3b82f6', pink: '#ec4899', orange: '#f97316', green: '#22c55e' };
    const got = Object.fromEntries(Object.entries(old).map(([k, c]) => [k, Number(contrastRatio('#ffffff', c).toFixed(2))]));
    expect(got).toEqual({ red: 4.17, purple: 3.96, blue: 3.68, pink: 3.53, orange: 2.8, green: 2.28 });
  });
});

describe('palette meets WCAG 2.2 AA', () => {
  it.each(CONTRAST_PAIRS.map((p) => [p.what, p] as const))('%s', (_, p) => {
    const ratio = contrastRatio(p.fg, p.bg);
    expect(ratio, `${p.fg} on ${p.bg} is ${ratio.toFixed(2)}:1, needs ${p.min}:1`).toBeGreaterThanOrEqual(p.min);
  });

  it('covers every accent, severity and the text used on them', () => {
    for (const a of ACCENTS) {
      expect(CONTRAST_PAIRS.some((p) => p.bg === a.color && p.fg === THEME.onAccent && p.min === AA_TEXT), a.id).toBe(true);
      expect(CONTRAST_PAIRS.some((p) => p.fg === a.color && p.bg === THEME.panel2 && p.min === AA_NON_TEXT), a.id).toBe(true);
    }
    for (const [id, s] of Object.entries(SEVERITY_COLORS)) expect(CONTRAST_PAIRS.some((p) => p.bg === s.color && p.fg === s.text), id).toBe(true);
  });

  it('the alert severities and the accent picker read their colours from the palette', () => {
    for (const s of SEVERITIES) expect({ color: s.color, text: s.text }).toEqual(SEVERITY_COLORS[s.id]);
    expect(DEFAULT_ACCENT).toBe(ACCENTS[0].color);
    expect(accentColor('green')).toBe(ACCENTS.find((a) => a.id === 'green')!.color);
  });
});

describe('styles.css mirrors the palette', () => {
  const vars = rootVars(css);

  it('declares every palette variable in :root with the same value', () => {
    const mirrored = Object.fromEntries(Object.keys(CSS_VARS).map((k) => [k, vars[k]]));
    expect(mirrored).toEqual(Object.fromEntries(Object.entries(CSS_VARS).map(([k, v]) => [k, v.toLowerCase()])));
  });

  it('declares no colour variable the palette does not define', () => {
    const colours = Object.entries(vars).filter(([, v]) => v.startsWith('#')).map(([k]) => k);
    expect(colours.filter((k) => !(k in CSS_VARS))).toEqual([]);
  });

  it('draws text on an accent or danger fill with --on-accent, never a literal colour', () => {
    for (const rule of css.matchAll(/([^{}]+)\{([^}]*background:\s*var\(--(?:accent|danger)[^}]*)\}/g)) {
      const color = /(?:^|;)\s*color:\s*([^;]+)/.exec(rule[2])?.[1]?.trim();
      if (color) expect(color, rule[1].trim()).toBe('var(--on-accent)');
    }
  });
});
