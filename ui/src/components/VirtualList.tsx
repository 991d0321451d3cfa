// Fixed-row-height virtual list: renders only the visible window plus overscan. With `onOpen`
// the rows are one tab stop (roving tabindex): ↑/↓, Home/End and PageUp/PageDown move focus
// (scrolling the row into view) and Enter opens the focused row. Rows spread `rowProps`.
import { useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { listKeyTarget, scrollToRow } from '../lib/directory';
import { computeWindow } from '../lib/virtual';

export const ROW_HEIGHT = 72;

/** What a keyboard-navigable row spreads onto its element. */
export interface RowProps {
  tabIndex: 0 | -1;
  'data-index': number;
}

export function VirtualList<T>({
  items,
  rowHeight = ROW_HEIGHT,
  overscan = 6,
  render,
  testId,
  label,
  onOpen,
}: {
  items: readonly T[];
  rowHeight?: number;
  overscan?: number;
  render: (item: T, index: number, rowProps: RowProps) => ReactNode;
  testId?: string;
  label: string;
  onOpen?: (item: T, index: number) => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const [active, setActive] = useState(0);
  const focusPending = useRef(false);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setHeight(el.clientHeight || 600);
    const ro = new ResizeObserver(() => setHeight(el.clientHeight || 600));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const w = computeWindow({ scrollTop, viewportHeight: height, rowHeight, count: items.length, overscan });
  const activeIndex = Math.max(0, Math.min(active, items.length - 1));
  useLayoutEffect(() => {
    if (!focusPending.current) return;
    focusPending.current = false;
    ref.current?.querySelector<HTMLElement>(`[data-index="${activeIndex}"]`)?.focus();
  });
  const rowIndex = (target: EventTarget) => {
    const el = target as HTMLElement;
    return el.dataset?.index !== undefined && el.parentElement?.parentElement?.parentElement === ref.current ? Number(el.dataset.index) : null;
  };
  function onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    const i = onOpen ? rowIndex(e.target) : null;
    if (i === null || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'Enter') {
      e.preventDefault();
      onOpen!(items[i], i);
      return;
    }
    const to = listKeyTarget(e.key, i, items.length, Math.max(1, Math.floor(height / rowHeight) - 1));
    if (to === null) return;
    e.preventDefault();
    const el = ref.current!;
    const top = scrollToRow(el.scrollTop, el.clientHeight || height, rowHeight, to);
    if (top !== el.scrollTop) {
      el.scrollTop = top;
      setScrollTop(top);
    }
    setActive(to);
    focusPending.current = true;
  }
  const inWindow = activeIndex >= w.start && activeIndex < w.end;
  const rows: ReactNode[] = [];
  for (let i = w.start; i < w.end; i++) {
    const tabbable = !onOpen || i === (inWindow ? activeIndex : w.start);
    rows.push(render(items[i], i, { tabIndex: tabbable ? 0 : -1, 'data-index': i }));
  }
  return (
    <div
      ref={ref}
      className="vlist"
      role="list"
      aria-label={label}
      data-testid={testId}
      data-count={items.length}
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
      onKeyDown={onKeyDown}
      onFocus={(e) => {
        const i = rowIndex(e.target);
        if (i !== null && i !== active) setActive(i);
      }}
    >
      <div style={{ height: w.totalHeight, position: 'relative' }}>
        <div style={{ transform: `translateY(${w.offset}px)` }}>{rows}</div>
      </div>
    </div>
  );
}
