// The shared feed context (rendered on the server, so no effects run): the provider builds one
// feed from the transport in context, the hook returns that feed and its current state, and the
// hook outside the provider names the provider it needs.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { TransportProvider } from '../transport/context';
import type { Transport } from '../transport/types';
import { createFeedContext } from './feedContext';
import { FeedStore } from './feedStore';

class Probe extends FeedStore<{ label: string }> {
  constructor(readonly transport: Transport) {
    super({ label: 'hello' });
  }
  start = vi.fn();
  stop = vi.fn();
}

describe('createFeedContext', () => {
  it('provides one feed built from the transport and hands out its state', () => {
    const transport = {} as Transport;
    const make = vi.fn((t: Transport) => new Probe(t));
    const { Provider, useFeed } = createFeedContext<Probe, { label: string }>('ProbeFeed', make);
    let seen: Probe | null = null;
    function Reader() {
      const { feed, state } = useFeed();
      seen = feed;
      return <span>{state.label}</span>;
    }
    const html = renderToStaticMarkup(
      <TransportProvider transport={transport}>
        <Provider>
          <Reader />
        </Provider>
      </TransportProvider>,
    );
    expect(html).toBe('<span>hello</span>');
    expect(make).toHaveBeenCalledTimes(1);
    expect(make.mock.calls[0][0]).toBe(transport);
    expect(seen!.transport).toBe(transport);
  });

  it('the hook outside its provider throws a named error', () => {
    const { useFeed } = createFeedContext<Probe, { label: string }>('ProbeFeed', (t) => new Probe(t));
    function Reader() {
      useFeed();
      return null;
    }
    expect(() => renderToStaticMarkup(<Reader />)).toThrow('useProbeFeed() outside <ProbeFeedProvider>');
  });
});
