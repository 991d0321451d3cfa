// @vitest-environment jsdom
// Focus on a tab change: to the tab's <h1> (focusable with tabindex=-1), or to main while the tab
// has none; left alone in the sidebar nav or inside the new tab.
import { afterEach, describe, expect, it } from 'vitest';
import { focusMain, focusMainWhenReady, mainTarget, shouldMoveFocus } from './mainFocus';

afterEach(() => document.body.replaceChildren());

function page() {
  document.body.innerHTML = `
    <nav class="sidebar"><button id="nav-compose">Compose</button></nav>
    <main id="main" tabindex="-1"><div id="pane"><h1>Compose</h1><button id="inside">Copy All</button></div></main>
    <input id="search">`;
  const $ = (id: string) => document.getElementById(id)!;
  return { nav: document.querySelector('nav')!, main: $('main'), pane: $('pane'), $ };
}

describe('focus on a tab change', () => {
  it('goes to the tab heading, made focusable', () => {
    const { main, pane } = page();
    const target = focusMain(pane, main);
    expect(target?.tagName).toBe('H1');
    expect(target?.getAttribute('tabindex')).toBe('-1');
    expect(document.activeElement).toBe(target);
  });

  it('goes to main while the tab has no heading yet', () => {
    const { main } = page();
    const empty = document.createElement('div');
    expect(mainTarget(empty, main)).toBe(main);
    focusMain(empty, main);
    expect(document.activeElement).toBe(main);
  });

  it('moves from the page body or the search box, not from the nav or from inside the tab', () => {
    const { nav, pane, $ } = page();
    expect(shouldMoveFocus(document.body, nav, pane)).toBe(true);
    expect(shouldMoveFocus(null, nav, pane)).toBe(true);
    expect(shouldMoveFocus($('search'), nav, pane)).toBe(true);
    expect(shouldMoveFocus($('nav-compose'), nav, pane)).toBe(false);
    expect(shouldMoveFocus($('inside'), nav, pane)).toBe(false);
  });

  it('a tab still loading: main first, then its heading once it appears (if focus stayed on main)', async () => {
    const { main, pane } = page();
    pane.replaceChildren();
    focusMainWhenReady(() => pane, main);
    expect(document.activeElement).toBe(main);
    const h1 = document.createElement('h1');
    h1.textContent = 'On-Call Board';
    pane.append(h1);
    await new Promise((r) => setTimeout(r, 0));
    expect(document.activeElement).toBe(h1);
  });

  it('a tab still loading does not pull focus back once the operator moved on', async () => {
    const { main, pane, $ } = page();
    pane.replaceChildren();
    focusMainWhenReady(() => pane, main);
    $('search').focus();
    pane.append(document.createElement('h1'));
    await new Promise((r) => setTimeout(r, 0));
    expect(document.activeElement).toBe($('search'));
  });
});
