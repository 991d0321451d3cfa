// Fixed-row-height virtual list: renders only the visible window plus overscan.
import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { computeWindow } from '../lib/virtual';

export const ROW_HEIGHT = 72;

export function VirtualList<T>({
  items,
  rowHeight = ROW_HEIGHT,
  overscan = 6,
  render,
  testId,
  label,
}: {
  items: readonly T[];
  rowHeight?: number;
  overscan?: number;
  render: (item: T, index: number) => ReactNode;
  testId?: string;
  label: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setHeight(el.clientHeight || 600);
    const ro = new ResizeObserver(() => setHeight(el.clientHeight || 600));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const w = computeWindow({ scrollTop, viewportHeight: height, rowHeight, count: items.length, overscan });
  const rows: ReactNode[] = [];
  for (let i = w.start; i < w.end; i++) rows.push(render(items[i], i));
  return (
    <div
      ref={ref}
      className="vlist"
      role="list"
      aria-label={label}
      data-testid={testId}
      data-count={items.length}
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
    >
      <div style={{ height: w.totalHeight, position: 'relative' }}>
        <div style={{ transform: `translateY(${w.offset}px)` }}>{rows}</div>
      </div>
    </div>
  );
}
