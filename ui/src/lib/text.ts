// Text helpers that count what a reader sees: grapheme clusters (Intl.Segmenter), not UTF-16
// code units, so an emoji, a flag or a letter with a combining accent is never split in half.
// Also the English plural helper used by counts ("1 recipient", "2 recipients").

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The grapheme clusters of `s`, in order. */
export function graphemes(s: string): string[] {
  return Array.from(segmenter.segment(s ?? ''), (x) => x.segment);
}

/** The first `n` grapheme clusters of `s`. */
export function firstGraphemes(s: string, n: number): string {
  const out: string[] = [];
  for (const x of segmenter.segment(s ?? '')) {
    if (out.length >= n) break;
    out.push(x.segment);
  }
  return out.join('');
}

const WORDISH = /[\p{L}\p{N}]/u;

/**
 * Two-grapheme initials for an avatar or a group token: the first grapheme of the first two
 * words, or the first two graphemes of a single word. Words that start with a letter or a digit
 * are preferred, so "🚨 Zoë Ñúñez" gives "ZÑ"; a name of symbols only keeps its symbols.
 */
export function initials(name: string): string {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean);
  const lettered = words.filter((w) => WORDISH.test(firstGraphemes(w, 1)));
  const use = lettered.length > 0 ? lettered : words;
  const text = use.length >= 2 ? firstGraphemes(use[0], 1) + firstGraphemes(use[1], 1) : firstGraphemes(use[0] ?? '', 2);
  return text.toLocaleUpperCase();
}

/** `1 recipient`, `2 recipients`; `plural` defaults to `singular + 's'`. */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : pluralForm}`;
}
