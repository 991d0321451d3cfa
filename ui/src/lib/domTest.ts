// Shared scaffolding of the tests that mount React into jsdom (files marked
// `// @vitest-environment jsdom`): importing it sets React's act-environment flag; `flush` lets
// pending promises and the renders they cause settle inside `act`; `domRoot` gives a test file a
// mount point whose root is unmounted and whose host element removed after every test. Test
// code only: nothing in the app imports it. `typeInto` and `pressKey` drive controlled inputs and keys.
import { act, type ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach } from 'vitest';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** Lets `rounds` microtask turns, and the renders they cause, settle inside `act`. */
export async function flush(rounds = 8): Promise<void> {
  for (let i = 0; i < rounds; i++) await act(async () => { await Promise.resolve(); });
}

export interface DomRoot {
  /** Mounts `node` into a fresh host element in `document.body` (after the previous one's unmount). */
  render(node: ReactNode): Promise<HTMLDivElement>;
  /** Renders `node` into the mounted root (an update, not a remount); mounts when none is. */
  rerender(node: ReactNode): Promise<HTMLDivElement>;
  /** Unmounts now (the host stays until the test ends). */
  unmount(): void;
  /** The current host element, if mounted. */
  readonly host: HTMLDivElement | null;
}

/** A mount point for one test file; call at module level (it registers an `afterEach`). */
export function domRoot(): DomRoot {
  let root: Root | null = null;
  let host: HTMLDivElement | null = null;
  const unmount = () => {
    const mounted = root;
    root = null;
    if (mounted) act(() => mounted.unmount());
  };
  afterEach(() => {
    unmount();
    host?.remove();
    host = null;
  });
  return {
    async render(node) {
      unmount();
      host?.remove();
      host = document.createElement('div');
      document.body.append(host);
      const created = createRoot(host);
      root = created;
      await act(async () => created.render(node));
      return host;
    },
    async rerender(node) {
      const mounted = root;
      if (!mounted || !host) return this.render(node);
      await act(async () => mounted.render(node));
      return host;
    },
    unmount,
    get host() {
      return host;
    },
  };
}

/** Types `text` into a React-controlled input or textarea (value setter, then an input event). */
export async function typeInto(el: HTMLInputElement | HTMLTextAreaElement, text: string): Promise<void> {
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  await act(async () => {
    el.focus();
    Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(el, text);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

/** Dispatches a keydown of `key` (with `init`'s modifiers) on `el`; answers whether its default was prevented. */
export async function pressKey(el: Element, key: string, init: KeyboardEventInit = {}): Promise<boolean> {
  let prevented = false;
  await act(async () => {
    const e = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init });
    el.dispatchEvent(e);
    prevented = e.defaultPrevented;
  });
  return prevented;
}
