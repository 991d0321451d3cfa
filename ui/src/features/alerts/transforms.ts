// The alert body's Step 2 transforms (relay-features.md, Alerts): Compact strips filler phrases
// with a fixed list of rules; Enhance highlights dates, times and durations (deadline), outage
// words (warning), resolved words (success), percentages and extension numbers (number), and
// bolds words such as "must", "required", "immediately". Both work on the text of a rich body
// (./richBody canonical form) and never touch markup, links or text already highlighted; they
// are pure and deterministic, so turning both off gives back the original body the view kept.
import { canonicalize, HL_ATTR, sanitizeRich, serialize, textNodes, type Highlight } from './richBody';

/** Compact's rules, applied in order: a phrase (case-insensitive, whole words) and what replaces it. */
export const COMPACT_RULES: readonly (readonly [RegExp, string])[] = [
  [/\bwe would like to (inform|let) you (know )?that\s*/gi, ''],
  [/\bwe would like to inform you\b\s*/gi, ''],
  [/\bplease be (advised|aware|informed) that\s*/gi, ''],
  [/\bplease note that\s*/gi, ''],
  [/\bplease note:?\s*/gi, ''],
  [/\bkindly note that\s*/gi, ''],
  [/\bthis is to (inform|notify) you that\s*/gi, ''],
  [/\bthis is a (friendly )?reminder that\s*/gi, ''],
  [/\bjust a (quick |friendly )?reminder that\s*/gi, ''],
  [/\bfor your (information|awareness|reference),?\s*/gi, ''],
  [/\bas you (may|might) (already )?(know|be aware),?\s*/gi, ''],
  [/\bit (should|is important to) be noted that\s*/gi, ''],
  [/\bI wanted to let you know that\s*/gi, ''],
  [/\bwe wanted to let you know that\s*/gi, ''],
  [/\bwe apologi[sz]e for any inconvenience (this|that) (may|might) (cause|have caused)\.?\s*/gi, ''],
  [/\bwe apologi[sz]e for (any|the) inconvenience\.?\s*/gi, ''],
  [/\bthank you for your (patience|understanding)( and cooperation)?\.?\s*/gi, ''],
  [/\bthanks for your (patience|understanding)\.?\s*/gi, ''],
  [/\bif you have any (questions|concerns),? (please )?(feel free to )?(contact|reach out to) [^.]*\.\s*/gi, ''],
  [/\bplease do not hesitate to contact [^.]*\.\s*/gi, ''],
  [/\bat this (point in )?time\b/gi, 'now'],
  [/\bat the present time\b/gi, 'now'],
  [/\bcurrently in the process of\b/gi, 'currently'],
  [/\bin the process of\b/gi, ''],
  [/\bin order to\b/gi, 'to'],
  [/\bdue to the fact that\b/gi, 'because'],
  [/\bowing to the fact that\b/gi, 'because'],
  [/\bin the event that\b/gi, 'if'],
  [/\bprior to\b/gi, 'before'],
  [/\bsubsequent to\b/gi, 'after'],
  [/\bin the near future\b/gi, 'soon'],
  [/\bas soon as possible\b/gi, 'ASAP'],
  [/\ba large number of\b/gi, 'many'],
  [/\bthe majority of\b/gi, 'most'],
  [/\bwith regard(s)? to\b/gi, 'about'],
  [/\bin regard(s)? to\b/gi, 'about'],
  [/\bwith respect to\b/gi, 'about'],
  [/\bfor the purpose of\b/gi, 'for'],
  [/\bin an effort to\b/gi, 'to'],
  [/\bis able to\b/gi, 'can'],
  [/\bare able to\b/gi, 'can'],
  [/\bhas the ability to\b/gi, 'can'],
  [/\bkindly\s+/gi, 'please '],
  [/\b(basically|actually|really|very|just),?\s+/gi, ''],
];

/** Enhance's rules: the first that matches at a place wins (longest patterns first). */
export const ENHANCE_RULES: readonly { re: RegExp; mark: Highlight | 'bold' }[] = [
  // Dates: 2026-03-08, 3/8/2026, 8 Mar 2026, March 8, Mon 8 Mar; then weekday names.
  { re: /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b|\b\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?(?:\s+\d{4})?\b|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?\b/gi, mark: 'deadline' },
  { re: /\b(?:Mon|Tues?|Wed(?:nes)?|Thu(?:rs)?|Fri|Sat(?:ur)?|Sun)(?:day)?\b/g, mark: 'deadline' },
  // Times: 14:30, 2:30 pm, 9am, noon, midnight, with an optional zone.
  { re: /\b\d{1,2}:\d{2}(?:\s*[ap]\.?m\.?)?(?:\s+[A-Z]{2,4}T)?\b|\b\d{1,2}\s*[ap]\.?m\.?(?:\s+[A-Z]{2,4}T)?(?![a-z])|\b(?:noon|midnight)\b/gi, mark: 'deadline' },
  // Durations: 30 minutes, 2 hrs, 1.5 hours, 3 days.
  { re: /\b\d+(?:\.\d+)?\s*(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)\b/gi, mark: 'deadline' },
  { re: /\b\d+(?:\.\d+)?\s?%/g, mark: 'number' },
  { re: /\bext\.?\s*\d{2,6}\b|\bextension\s+\d{2,6}\b/gi, mark: 'number' },
  { re: /\b(?:outages?|down|degraded|unavailable|disruptions?|interrupted|interruptions?|failures?|failed|failing|offline|incident)\b/gi, mark: 'warning' },
  { re: /\b(?:resolved|restored|fixed|operational|back online|back up|completed|recovered)\b/gi, mark: 'success' },
  { re: /\b(?:must|required|requires|immediately|mandatory|urgent|urgently|do not|critical)\b/gi, mark: 'bold' },
];

/** Runs `fn` over each text node of `body` that is not inside a highlight, a link or bold text (for Enhance). */
function eachText(body: string, skipFormatted: boolean, fn: (t: Text) => void): string {
  const frag = sanitizeRich(body);
  canonicalize(frag);
  for (const t of textNodes(frag)) {
    if (skipFormatted && t.parentElement?.closest(`span[${HL_ATTR}], a, b, strong`)) continue;
    if (!skipFormatted && t.parentElement?.closest('a')) continue;
    fn(t);
  }
  canonicalize(frag);
  return serialize(frag);
}

/** `body` with Compact's rules applied to its text (links untouched), spaces tidied. */
export function compact(body: string): string {
  return eachText(body, false, (t) => {
    let v = t.data;
    for (const [re, to] of COMPACT_RULES) v = v.replace(re, to);
    v = v.replace(/ {2,}/g, ' ').replace(/\s+([,.;:!?])/g, '$1');
    // Blanks left at either end of a line go.
    if (!t.nextSibling || t.nextSibling.nodeName === 'BR') v = v.trimEnd();
    if (!t.previousSibling || t.previousSibling.nodeName === 'BR') v = v.trimStart();
    // A sentence that now starts lower case gets its capital back.
    v = v.replace(/(^|[.!?]\s+)([a-z])/g, (_, a: string, c: string) => a + c.toUpperCase());
    if (v !== t.data) t.data = v;
  });
}

/** `body` with Enhance's highlights and bold words added to text not already formatted. */
export function enhance(body: string): string {
  return eachText(body, true, (t) => {
    const hits: { start: number; end: number; mark: Highlight | 'bold' }[] = [];
    for (const { re, mark } of ENHANCE_RULES) {
      for (const m of t.data.matchAll(re)) {
        const start = m.index ?? 0;
        const end = start + m[0].length;
        if (end > start && !hits.some((h) => start < h.end && end > h.start)) hits.push({ start, end, mark });
      }
    }
    if (!hits.length) return;
    hits.sort((a, b) => b.start - a.start);
    const doc = t.ownerDocument;
    for (const h of hits) {
      t.splitText(h.end);
      const piece = t.splitText(h.start);
      const el = h.mark === 'bold' ? doc.createElement('b') : doc.createElement('span');
      if (h.mark !== 'bold') el.setAttribute(HL_ATTR, h.mark);
      piece.replaceWith(el);
      el.append(piece);
    }
  });
}

export interface TransformFlags {
  compact: boolean;
  enhance: boolean;
}

/** The body shown for `original` with the transforms on: Compact first, then Enhance. */
export function transformBody(original: string, flags: TransformFlags): string {
  let out = original;
  if (flags.compact) out = compact(out);
  if (flags.enhance) out = enhance(out);
  return out;
}
