// The feed views' clock, rendered on the server (no effects run): the first render reads the
// current time, and useNowSince starts from it too.
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useNow, useNowSince } from './useNow';

describe('useNow / useNowSince', () => {
  afterEach(() => vi.useRealTimers());

  it('render the current time first', () => {
    vi.useFakeTimers();
    vi.setSystemTime(1_764_770_000_000);
    function Probe() {
      return (
        <i>
          {useNow(15_000)}/{useNowSince(null, 15_000)}
        </i>
      );
    }
    expect(renderToStaticMarkup(<Probe />)).toBe('<i>1764770000000/1764770000000</i>');
  });
});
