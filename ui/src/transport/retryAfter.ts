// Parsing of the HTTP Retry-After header (delta-seconds or HTTP-date) into
// whole seconds to wait. Shared by every Transport implementation.

/** Returns seconds to wait (>= 0, rounded up), or undefined when absent/unparseable. */
export function parseRetryAfter(header: string | null | undefined, nowMs: number): number | undefined {
  if (header == null) return undefined;
  const v = header.trim();
  if (v === '') return undefined;
  if (/^\d+$/.test(v)) return Number(v);
  // An HTTP-date always names a day/month; this keeps Date.parse's leniency out.
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}
