// Tests for the CSP guard that checks the built index.html.
import { describe, expect, it } from 'vitest';
import { findCspViolations } from './cspGuard';

const ok = `<!doctype html><html><head>
<link rel="icon" type="image/svg+xml" href="/favicon.svg" />
<script type="module" crossorigin src="/assets/index-BxA1c9Zq.js"></script>
<link rel="stylesheet" crossorigin href="/assets/index-D3f_k2Lm.css">
</head><body><div id="root"></div></body></html>`;

describe('findCspViolations', () => {
  it('accepts Vite-style output with hashed external assets', () => {
    expect(findCspViolations(ok)).toEqual([]);
  });

  it('flags inline scripts', () => {
    expect(findCspViolations('<script>alert(1)</script>')).toEqual(['inline <script> without src']);
    expect(findCspViolations('<script type="module">import "/x.js"</script>')).toHaveLength(1);
  });

  it('flags inline styles and handlers', () => {
    expect(findCspViolations('<style>body{}</style>')).toContain('inline <style> element');
    expect(findCspViolations('<div style="color:red"></div>')).toContain('inline style attribute');
    expect(findCspViolations('<body onload="go()"></body>')).toContain('inline event handler attribute');
  });

  it('flags unhashed or off-origin assets', () => {
    expect(findCspViolations('<script type="module" src="/src/main.tsx"></script>')).toEqual([
      'script not a hashed /assets/ file: /src/main.tsx',
    ]);
    expect(findCspViolations('<link rel="stylesheet" href="https://fonts.example/x.css">')).toContain(
      'off-origin link: https://fonts.example/x.css',
    );
  });
});
