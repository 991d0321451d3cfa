// @vitest-environment jsdom
// The signed-in half of the renderer is its own chunk (issue #41: the desktop's memory while the
// sign-in screen waits): the sign-in screen does not load it, typing the passphrase starts the
// fetch, and a successful sign-in shows it. The shell (which only that chunk imports) is a stub
// whose factory runs when the chunk is evaluated, so the test sees when it would be fetched.
import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { App } from './App';
import { domRoot, typeInto } from './lib/domTest';
import { fakeTransport } from './lib/domTransport';

const chunk = vi.hoisted(() => ({ requested: 0, loads: 0 }));
// Counted when App asks for the chunk (the factory runs as the import starts, before any of the
// chunk is transformed), so an early request shows at once, however long the chunk takes.
vi.mock('./features/shell/SignedIn', async (importOriginal) => {
  chunk.requested += 1;
  return importOriginal();
});
vi.mock('./features/shell/Shell', () => {
  chunk.loads += 1;
  return { Shell: () => <p data-testid="signed-in-stub">shell</p> };
});

const dom = domRoot();

/** Module loading and React's reveal of content that replaced a Suspense fallback (~300 ms)
 * take real time: waits in 50 ms steps, up to `steps` of them, until `done`. */
async function settled(done: () => boolean, steps = 60) {
  for (let i = 0; i < steps && !done(); i++) await act(() => new Promise((r) => setTimeout(r, 50)));
}

describe('App: the signed-in screens load when a sign-in starts', () => {
  it('waits on the sign-in screen without them, fetches them on typing, shows them once signed in', async () => {
    const signIn = vi.fn(async () => {});
    const { transport } = fakeTransport({}, { signIn, signOut: () => {} });
    const host = await dom.render(<App transport={transport} />);
    await settled(() => false, 6); // ~300 ms in which nothing may load it
    const passphrase = host.querySelector<HTMLInputElement>('[data-testid="signin-passphrase"]');
    expect(passphrase).not.toBeNull();
    expect(chunk.requested).toBe(0);
    expect(chunk.loads).toBe(0);
    expect(host.querySelector('[data-testid="signed-in-stub"]')).toBeNull();

    await typeInto(passphrase!, 'correct horse');
    await settled(() => chunk.loads > 0);
    expect(chunk.requested).toBe(1);
    expect(chunk.loads).toBe(1);
    expect(host.querySelector('[data-testid="signed-in-stub"]')).toBeNull();

    const submit = host.querySelector<HTMLButtonElement>('[data-testid="signin-submit"]')!;
    await act(async () => submit.click());
    await settled(() => host.querySelector('[data-testid="signed-in-stub"]') !== null);
    expect(signIn).toHaveBeenCalledWith('correct horse');
    expect(host.querySelector('[data-testid="signed-in-stub"]')?.textContent).toBe('shell');
    expect(host.querySelector('[data-testid="signin-passphrase"]')).toBeNull();
    expect(chunk.requested).toBe(1);
    expect(chunk.loads).toBe(1);
  });
});
