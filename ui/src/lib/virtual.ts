// Fixed-height virtual list windowing: which rows to render for a scroll position.

export interface WindowInput {
  scrollTop: number;
  viewportHeight: number;
  rowHeight: number;
  count: number;
  overscan?: number;
}

export interface WindowRange {
  /** First rendered index (inclusive). */
  start: number;
  /** Last rendered index (exclusive). */
  end: number;
  /** Pixel offset of row `start`. */
  offset: number;
  totalHeight: number;
}

export function computeWindow({ scrollTop, viewportHeight, rowHeight, count, overscan = 6 }: WindowInput): WindowRange {
  const totalHeight = count * rowHeight;
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0, offset: 0, totalHeight: 0 };
  const top = Math.max(0, Math.min(scrollTop, Math.max(0, totalHeight - viewportHeight)));
  const first = Math.floor(top / rowHeight);
  const visible = Math.ceil(Math.max(viewportHeight, 0) / rowHeight) + 1;
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, first + visible + overscan);
  return { start, end, offset: start * rowHeight, totalHeight };
}
