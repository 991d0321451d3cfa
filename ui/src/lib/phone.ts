// Phone helpers (relay-features §7): sanitize for storage, format for display. A number entered
// with a leading + (or 00) is international (E.164): it is stored as `+<digits>` and displayed
// grouped with the + kept, so formatting on blur and sanitizing on save never lose it.

/** trim; leading 00 → +; start at the first +; keep digits only. */
export function sanitizePhone(raw: string): string {
  let s = (raw ?? '').trim();
  if (s.startsWith('00')) s = '+' + s.slice(2);
  const plus = s.indexOf('+');
  if (plus >= 0) return '+' + s.slice(plus + 1).replace(/\D/g, '');
  return s.replace(/\D/g, '');
}

function formatOne(part: string): string {
  const trimmed = part.trim();
  const hasPlus = trimmed.includes('+');
  const d = trimmed.replace(/\D/g, '');
  if (!d) return trimmed;
  if (!hasPlus && d.length >= 20 && d.length % 10 === 0) {
    const chunks: string[] = [];
    for (let i = 0; i < d.length; i += 10) chunks.push(formatOne(d.slice(i, i + 10)));
    return chunks.join(', ');
  }
  if (hasPlus && d.length >= 11 && d.length <= 13) {
    // No per-country numbering plan: the country code, then the last ten digits as 3-3-4.
    const cc = d.slice(0, d.length - 10);
    const r = d.slice(-10);
    return `+${cc} ${r.slice(0, 3)} ${r.slice(3, 6)} ${r.slice(6)}`;
  }
  if (!hasPlus && d.length === 11 && d.startsWith('1')) {
    return `(1) (${d.slice(1, 4)}) ${d.slice(4, 7)}-${d.slice(7)}`;
  }
  if (!hasPlus && d.length === 8 && d.startsWith('7')) return `(7) ${d.slice(1, 4)}-${d.slice(4)}`;
  if (!hasPlus && d.length === 10) return `(${d.slice(0, 3)}) ${d.slice(3, 6)}-${d.slice(6)}`;
  if (!hasPlus && d.length === 7) return `${d.slice(0, 3)}-${d.slice(3)}`;
  if (!hasPlus && d.length >= 2 && d.length <= 6) return trimmed;
  return (hasPlus ? '+' : '') + d;
}

/** Splits on , ; / | and joins formatted parts with ", ". */
export function formatPhone(raw: string | undefined | null): string {
  if (!raw) return '';
  const parts = raw.split(/[,;/|]/).map((p) => p.trim()).filter(Boolean);
  return parts.map(formatOne).join(', ');
}
