// Pop-outs of a browser on the data API keep the operator signed in. That page holds its app
// token in memory only (the security model: nothing persisted), so a new window would ask for
// the passphrase again. Instead the window that opened the pop-out lends it the token over
// postMessage: only to a window it opened itself (kept in a WeakSet), only on this page's own
// origin, and only when asked by that window. The pop-out asks its opener once and waits at most
// a couple of seconds; with no answer it shows the sign-in screen as before.

const REQUEST = 'relay:session-request';
const ANSWER = 'relay:session';
/** How long a pop-out waits for its opener's answer. */
export const BORROW_TIMEOUT_MS = 2_000;

const opened = new WeakSet<object>();

/** `window.open` that remembers the window, so it may borrow this page's session. */
export function openPopout(url: string, name: string, features: string, open: typeof window.open = window.open.bind(window)): Window | null {
  const child = open(url, name, features);
  if (child) opened.add(child);
  return child;
}

/** Answers session requests from windows this page opened; returns the uninstaller. */
export function lendSessionToPopouts(token: () => string | null, win: Window = window): () => void {
  const onMessage = (e: MessageEvent) => {
    if (e.origin !== win.location.origin || !e.source || !opened.has(e.source)) return;
    if ((e.data as { type?: unknown } | null)?.type !== REQUEST) return;
    const current = token();
    if (current) (e.source as Window).postMessage({ type: ANSWER, token: current }, win.location.origin);
  };
  win.addEventListener('message', onMessage);
  return () => win.removeEventListener('message', onMessage);
}

/** In a pop-out: the opener's token, or null when there is no same-origin opener or no answer in time. */
export function borrowSessionFromOpener(win: Window = window, timeoutMs = BORROW_TIMEOUT_MS): Promise<string | null> {
  const opener = win.opener as Window | null;
  if (!opener) return Promise.resolve(null);
  return new Promise((resolve) => {
    const done = (token: string | null) => {
      clearTimeout(timer);
      win.removeEventListener('message', onMessage);
      resolve(token);
    };
    const onMessage = (e: MessageEvent) => {
      if (e.origin !== win.location.origin || e.source !== opener) return;
      const data = e.data as { type?: unknown; token?: unknown } | null;
      if (data?.type === ANSWER && typeof data.token === 'string' && data.token !== '') done(data.token);
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    win.addEventListener('message', onMessage);
    try {
      opener.postMessage({ type: REQUEST }, win.location.origin);
    } catch {
      done(null);
    }
  });
}
