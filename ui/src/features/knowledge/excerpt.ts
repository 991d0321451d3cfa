// Search excerpts as text parts: the server answers an excerpt with highlight ranges counted in
// characters (Unicode code points, Rust `chars()`), never HTML. This splits the excerpt into
// plain and marked parts that the view renders as text nodes and <mark> elements; ranges are
// clamped, sorted and merged, so a bad range can only lose a highlight, never text.

export interface ExcerptPart {
  text: string;
  mark: boolean;
}

export function excerptParts(excerpt: string, highlights: readonly (readonly number[])[] | null | undefined): ExcerptPart[] {
  const chars = Array.from(excerpt); // code points: a non-BMP character is one element
  const ranges: [number, number][] = [];
  for (const r of highlights ?? []) {
    if (!Array.isArray(r) || r.length !== 2) continue;
    const [a, b] = r;
    if (!Number.isInteger(a) || !Number.isInteger(b)) continue;
    const start = Math.max(0, Math.min(a, chars.length));
    const end = Math.max(0, Math.min(b, chars.length));
    if (end > start) ranges.push([start, end]);
  }
  ranges.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([...r]);
  }
  const parts: ExcerptPart[] = [];
  let at = 0;
  for (const [start, end] of merged) {
    if (start > at) parts.push({ text: chars.slice(at, start).join(''), mark: false });
    parts.push({ text: chars.slice(start, end).join(''), mark: true });
    at = end;
  }
  if (at < chars.length) parts.push({ text: chars.slice(at).join(''), mark: false });
  return parts;
}
