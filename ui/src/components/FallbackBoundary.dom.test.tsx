// @vitest-environment jsdom
// FallbackBoundary shows its children, and its fallback in their place once one of them throws
// (what a lazily fetched chunk does when it cannot be fetched).
import { describe, expect, it, vi } from 'vitest';
import { domRoot } from '../lib/domTest';
import { FallbackBoundary } from './FallbackBoundary';

const dom = domRoot();

function Unreachable(): never {
  throw new Error('Failed to fetch dynamically imported module');
}

describe('FallbackBoundary', () => {
  it('shows its children while they render', async () => {
    const host = await dom.render(<FallbackBoundary fallback={<p data-testid="fallback">gone</p>}><p data-testid="child">here</p></FallbackBoundary>);
    expect(host.querySelector('[data-testid="child"]')?.textContent).toBe('here');
    expect(host.querySelector('[data-testid="fallback"]')).toBeNull();
  });

  it('shows the fallback in place of a child that threw', async () => {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    const host = await dom.render(<FallbackBoundary fallback={<p data-testid="fallback">gone</p>}><Unreachable /></FallbackBoundary>);
    quiet.mockRestore();
    expect(host.querySelector('[data-testid="fallback"]')?.textContent).toBe('gone');
  });
});
