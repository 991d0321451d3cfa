// The pop-out hand-off (./sessionHandoff) with fake windows: a window this page opened gets the
// token when it asks; a window it did not open, another origin or a malformed request gets
// nothing; a pop-out resolves with its opener's answer, ignores answers from elsewhere, and
// gives up after the timeout.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { borrowSessionFromOpener, lendSessionToPopouts, openPopout } from './sessionHandoff';

const ORIGIN = 'http://relay-server.lan:8090';

/** A window-like event target with postMessage recorded and a location origin. */
function fakeWindow(origin = ORIGIN) {
  const target = new EventTarget() as EventTarget & { location: { origin: string }; posted: unknown[]; postMessage: (m: unknown, o: string) => void; opener?: unknown };
  target.location = { origin };
  target.posted = [];
  target.postMessage = (m: unknown) => target.posted.push(m);
  return target;
}

function message(from: unknown, data: unknown, origin = ORIGIN): MessageEvent {
  const e = new MessageEvent('message', { data, origin });
  Object.defineProperty(e, 'source', { value: from });
  return e;
}

afterEach(() => vi.useRealTimers());

describe('lendSessionToPopouts', () => {
  it('answers only a window this page opened, on its own origin, asking properly', () => {
    const page = fakeWindow();
    const child = fakeWindow();
    const stranger = fakeWindow();
    openPopout('/?popout=board', 'relay-board', '', () => child as unknown as Window);
    const stop = lendSessionToPopouts(() => 'token-1', page as unknown as Window);
    page.dispatchEvent(message(stranger, { type: 'relay:session-request' }));
    page.dispatchEvent(message(child, { type: 'relay:session-request' }, 'http://evil.example'));
    page.dispatchEvent(message(child, { type: 'something-else' }));
    expect(stranger.posted).toEqual([]);
    expect(child.posted).toEqual([]);
    page.dispatchEvent(message(child, { type: 'relay:session-request' }));
    expect(child.posted).toEqual([{ type: 'relay:session', token: 'token-1' }]);
    stop();
    page.dispatchEvent(message(child, { type: 'relay:session-request' }));
    expect(child.posted).toHaveLength(1);
  });

  it('sends nothing while signed out', () => {
    const page = fakeWindow();
    const child = fakeWindow();
    openPopout('/', 'x', '', () => child as unknown as Window);
    lendSessionToPopouts(() => null, page as unknown as Window);
    page.dispatchEvent(message(child, { type: 'relay:session-request' }));
    expect(child.posted).toEqual([]);
  });
});

describe('borrowSessionFromOpener', () => {
  it('asks the opener and resolves with its answer, ignoring other senders', async () => {
    const popout = fakeWindow();
    const opener = fakeWindow();
    popout.opener = opener;
    const borrowed = borrowSessionFromOpener(popout as unknown as Window, 1_000);
    expect(opener.posted).toEqual([{ type: 'relay:session-request' }]);
    popout.dispatchEvent(message(fakeWindow(), { type: 'relay:session', token: 'forged' }));
    popout.dispatchEvent(message(opener, { type: 'relay:session', token: 'cross-origin' }, 'http://evil.example'));
    popout.dispatchEvent(message(opener, { type: 'relay:session', token: 'token-1' }));
    await expect(borrowed).resolves.toBe('token-1');
  });

  it('resolves null without an opener, and after the timeout without an answer', async () => {
    await expect(borrowSessionFromOpener(fakeWindow() as unknown as Window)).resolves.toBeNull();
    vi.useFakeTimers();
    const popout = fakeWindow();
    popout.opener = fakeWindow();
    const borrowed = borrowSessionFromOpener(popout as unknown as Window, 2_000);
    vi.advanceTimersByTime(2_000);
    await expect(borrowed).resolves.toBeNull();
  });
});
