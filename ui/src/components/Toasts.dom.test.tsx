// @vitest-environment jsdom
// The toast stack as the operator sees it: five quick action results show as the newest three;
// the same toast again shows once with "×2" and stays its full 4 s from the repeat; the stack
// lets clicks through to the rows under it (no controls, pointer-events off in styles.css).
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import styles from '../styles.css?raw';
import { domRoot } from '../lib/domTest';
import { TOAST_MS, ToastProvider, useToast, type ToastFn } from './Toasts';

const dom = domRoot();
beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

async function mount(): Promise<ToastFn> {
  let push: ToastFn = () => {};
  function Grab() {
    push = useToast();
    return null;
  }
  await dom.render(<ToastProvider><Grab /></ToastProvider>);
  return (...args) => act(() => push(...args));
}
const shown = () => [...document.querySelectorAll('[data-testid="toast"]')].map((t) => t.textContent);

describe('toast stack', () => {
  it('shows at most three: the newest replace the oldest', async () => {
    const toast = await mount();
    for (let i = 1; i <= 5; i++) toast('success', `Copied row ${i}.`);
    expect(shown()).toEqual(['Copied row 3.', 'Copied row 4.', 'Copied row 5.']);
  });

  it('an identical toast is one toast, counted, and its 4 s start again', async () => {
    const toast = await mount();
    toast('success', 'Copied.');
    await act(async () => vi.advanceTimersByTime(TOAST_MS - 500));
    toast('success', 'Copied.');
    expect(shown()).toEqual(['Copied. ×2 (2 times)']);
    await act(async () => vi.advanceTimersByTime(1000));
    expect(shown()).toHaveLength(1); // still there 500 ms past the first one's time
    await act(async () => vi.advanceTimersByTime(TOAST_MS));
    expect(shown()).toEqual([]);
  });

  it('the stack lets clicks through to what is under it', () => {
    expect(styles).toMatch(/\.toasts, \.toast \{ pointer-events: none; \}/);
  });
});
