// The sidebar's Dynatrace dashboards launcher (server-rendered markup) and the menu keys it
// shares with every ContextMenu: hidden with no dashboards, a direct button with one, a menu
// button (aria-haspopup, collapsed) with several; ↑/↓ wrap, Home/End jump, other keys do nothing.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { menuKeyTarget } from '../../components/ContextMenu';
import { DashboardsLauncherView } from './DashboardsLauncher';

const A = { id: 'dt_00000000-0000-4000-8000-000000000001', name: 'Prod overview', url: 'https://abc.live.dynatrace.com/a' };
const B = { id: 'dt_00000000-0000-4000-8000-000000000002', name: 'Payments', url: 'https://abc.live.dynatrace.com/b' };
const render = (dashboards: (typeof A)[]) => renderToStaticMarkup(<DashboardsLauncherView dashboards={dashboards} onOpen={() => {}} />);

describe('DashboardsLauncherView', () => {
  it('is hidden when there are no dashboards', () => {
    expect(render([])).toBe('');
  });

  it('one dashboard: a plain button naming it (it opens directly)', () => {
    const html = render([A]);
    expect(html).toMatch(/^<button type="button" class="button button-ghost dt-launcher" data-testid="dt-launcher"[^>]*>Dashboard: Prod overview<\/button>$/);
    expect(html).not.toContain('aria-haspopup');
  });

  it('several: a collapsed menu button with the count, the menu not rendered yet', () => {
    const html = render([A, B]);
    expect(html).toContain('aria-haspopup="menu"');
    expect(html).toContain('aria-expanded="false"');
    expect(html).not.toContain('aria-controls');
    expect(html).toContain('>Dashboards (2)</button>');
    expect(html).not.toContain('role="menu"');
  });
});

describe('menuKeyTarget', () => {
  it('arrows wrap, Home/End jump, from nothing focused too', () => {
    expect(menuKeyTarget('ArrowDown', 0, 3)).toBe(1);
    expect(menuKeyTarget('ArrowDown', 2, 3)).toBe(0);
    expect(menuKeyTarget('ArrowUp', 0, 3)).toBe(2);
    expect(menuKeyTarget('ArrowUp', 2, 3)).toBe(1);
    expect(menuKeyTarget('Home', 2, 3)).toBe(0);
    expect(menuKeyTarget('End', 0, 3)).toBe(2);
    expect(menuKeyTarget('ArrowDown', -1, 3)).toBe(0);
    expect(menuKeyTarget('ArrowUp', -1, 3)).toBe(2);
    expect(menuKeyTarget('Enter', 1, 3)).toBeNull();
    expect(menuKeyTarget('Escape', 1, 3)).toBeNull();
    expect(menuKeyTarget('ArrowDown', 0, 0)).toBeNull();
  });
});
