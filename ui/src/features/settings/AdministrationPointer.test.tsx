// Markup test: a browser on the data API port has no Administration, so Settings shows where it
// is instead (Relay Web, the desktop app on the server PC, the `relay` command), with no link.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { AdministrationPointer } from './SettingsView';

describe('AdministrationPointer', () => {
  it('names Relay Web, the server PC and the command, as text', () => {
    const html = renderToStaticMarkup(<AdministrationPointer />);
    expect(html).toMatch(/<h2 id="administration-pointer-title">Administration<\/h2>/);
    expect(html).toMatch(/not available in this browser window\. Use Relay Web[^]*desktop app on the server PC[^]*<code>relay --help<\/code>/);
    expect(html).not.toMatch(/<a /);
  });
});
