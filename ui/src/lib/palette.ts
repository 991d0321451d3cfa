// The one place the UI's colours are defined: theme tokens, accent colours (Settings →
// Appearance), alert severities and note colours, each with the text colour drawn on it.
// styles.css mirrors CSS_VARS in its :root block (palette.test.ts checks the two agree), and
// CONTRAST_PAIRS lists every text/background and focus-ring/background pair that must meet
// WCAG 2.2 AA (4.5:1 text, 3:1 large text and UI component boundaries). No DOM here.

/** WCAG minimum ratios. */
export const AA_TEXT = 4.5;
export const AA_NON_TEXT = 3;

export const THEME = {
  bg: '#060608',
  panel: '#0e0e13',
  panel2: '#15151c',
  border: '#24242e',
  text: '#e6e6ec',
  muted: '#8b8b99',
  ok: '#3ecf8e',
  warn: '#f5b942',
  bad: '#ff5c5c',
  /** The Radar's magenta (critical beyond red) as text and dots. */
  magenta: '#e879f9',
  /** Filled destructive buttons and the "due" pill (white text on it). */
  danger: '#b3261e',
  dangerStrong: '#8c1d18',
  /** Text on an accent, severity or danger fill. */
  onAccent: '#ffffff',
} as const;

/** Accent colours: white text on `color` and on `strong` (hover) is >= 4.5:1, and `color`
 * (also the focus ring) is >= 3:1 against every dark surface. */
export const ACCENTS = [
  { id: 'red', label: 'Signal Red', color: '#d83642', strong: '#b82e38' },
  { id: 'orange', label: 'Orange', color: '#bd5711', strong: '#a14a0e' },
  { id: 'blue', label: 'Blue', color: '#3472d8', strong: '#2c61b8' },
  { id: 'green', label: 'Green', color: '#178640', strong: '#147236' },
  { id: 'pink', label: 'Pink', color: '#cb3e84', strong: '#ad3570' },
  { id: 'purple', label: 'Purple', color: '#994de1', strong: '#8241bf' },
] as const;
export type Accent = (typeof ACCENTS)[number];
export const DEFAULT_ACCENT: Accent = ACCENTS[0];

/** Alert severities: the card head and the selected severity button are `color` with `text` on it. */
export const SEVERITY_COLORS = {
  ISSUE: { color: '#d32f2f', text: '#ffffff' },
  MAINTENANCE: { color: '#f9a825', text: '#1a1a1a' },
  INFO: { color: '#1565c0', text: '#ffffff' },
  RESOLVED: { color: '#2e7d32', text: '#ffffff' },
} as const;

/** Alert-body highlights (ui/src/features/alerts/richBody.ts): dark `text` on a light `bg`, the same
 * in the dark editor and on the white card; the Outlook copy draws `text` alone (no backgrounds
 * without style attributes). */
export const HIGHLIGHT_COLORS = {
  deadline: { bg: '#fde2e1', text: '#9b1c1c' },
  warning: { bg: '#fff1c2', text: '#7a4100' },
  success: { bg: '#dcf5e3', text: '#1b5e20' },
  number: { bg: '#e0ecff', text: '#0d47a1' },
  service: { bg: '#efe3fb', text: '#5b2a86' },
} as const;

/** Note colours: the card's left border and the colour swatch buttons (UI boundaries on a panel). */
export const NOTE_COLORS = {
  amber: '#f59e0b',
  blue: '#3b82f6',
  green: '#22c55e',
  red: '#ef4444',
  purple: '#a855f7',
  slate: '#64748b',
} as const;

/** The custom properties styles.css declares in :root, with these exact values. */
export const CSS_VARS: Record<string, string> = {
  '--bg': THEME.bg,
  '--panel': THEME.panel,
  '--panel-2': THEME.panel2,
  '--border': THEME.border,
  '--text': THEME.text,
  '--muted': THEME.muted,
  '--accent': DEFAULT_ACCENT.color,
  '--accent-strong': DEFAULT_ACCENT.strong,
  '--on-accent': THEME.onAccent,
  '--ok': THEME.ok,
  '--warn': THEME.warn,
  '--bad': THEME.bad,
  '--magenta': THEME.magenta,
  '--danger': THEME.danger,
  '--danger-strong': THEME.dangerStrong,
  ...Object.fromEntries(Object.entries(NOTE_COLORS).map(([k, v]) => [`--note-${k}`, v])),
  ...Object.fromEntries(Object.entries(HIGHLIGHT_COLORS).flatMap(([k, v]) => [[`--hl-${k}-bg`, v.bg], [`--hl-${k}-text`, v.text]])),
};

/** sRGB relative luminance of `#rrggbb` (WCAG 2.2 definition). */
export function relativeLuminance(hex: string): number {
  const m = /^#([0-9a-f]{6})$/i.exec(hex);
  if (!m) throw new Error(`not a #rrggbb colour: ${hex}`);
  const n = parseInt(m[1], 16);
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(n >> 16) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
}

/** WCAG contrast ratio between two colours, 1..21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

export interface ContrastPair {
  what: string;
  fg: string;
  bg: string;
  min: number;
}

const SURFACES = { bg: THEME.bg, panel: THEME.panel, 'panel-2': THEME.panel2 } as const;

/** Every pair the UI draws that WCAG 2.2 AA constrains. */
export const CONTRAST_PAIRS: ContrastPair[] = [
  ...Object.entries(SURFACES).flatMap(([s, bg]) => [
    { what: `text on ${s}`, fg: THEME.text, bg, min: AA_TEXT },
    { what: `muted text on ${s}`, fg: THEME.muted, bg, min: AA_TEXT },
    { what: `ok text on ${s}`, fg: THEME.ok, bg, min: AA_TEXT },
    { what: `warn text on ${s}`, fg: THEME.warn, bg, min: AA_TEXT },
    { what: `bad text on ${s}`, fg: THEME.bad, bg, min: AA_TEXT },
    { what: `magenta text on ${s}`, fg: THEME.magenta, bg, min: AA_TEXT },
  ]),
  { what: 'muted text on a hovered row (border)', fg: THEME.muted, bg: THEME.border, min: AA_TEXT },
  { what: 'white text on danger', fg: THEME.onAccent, bg: THEME.danger, min: AA_TEXT },
  { what: 'white text on danger (hover)', fg: THEME.onAccent, bg: THEME.dangerStrong, min: AA_TEXT },
  ...ACCENTS.flatMap((a) => [
    { what: `white text on accent ${a.id}`, fg: THEME.onAccent, bg: a.color, min: AA_TEXT },
    { what: `white text on accent ${a.id} (hover)`, fg: THEME.onAccent, bg: a.strong, min: AA_TEXT },
    ...Object.entries(SURFACES).map(([s, bg]) => ({ what: `accent ${a.id} focus ring / boundary on ${s}`, fg: a.color, bg, min: AA_NON_TEXT })),
  ]),
  ...Object.entries(SEVERITY_COLORS).flatMap(([id, s]) => [
    { what: `severity ${id} text`, fg: s.text, bg: s.color, min: AA_TEXT },
    { what: `severity ${id} button border on panel`, fg: s.color, bg: THEME.panel, min: AA_NON_TEXT },
  ]),
  ...Object.entries(NOTE_COLORS).map(([id, c]) => ({ what: `note ${id} swatch on panel`, fg: c, bg: THEME.panel, min: AA_NON_TEXT })),
  ...Object.entries(HIGHLIGHT_COLORS).flatMap(([id, h]) => [
    { what: `highlight ${id} text on its background`, fg: h.text, bg: h.bg, min: AA_TEXT },
    { what: `highlight ${id} text on the white card (Outlook copy)`, fg: h.text, bg: '#ffffff', min: AA_TEXT },
  ]),
];
