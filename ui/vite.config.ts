// Vite build + Vitest config for the Relay operator UI (served same-origin
// under a strict CSP, so no inlined assets and a post-build CSP check).
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import { cspGuard } from './config/cspGuard.ts';

export default defineConfig({
  base: '/',
  plugins: [react(), cspGuard()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // data: URIs would be blocked by default-src 'self'; keep every asset a file.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  test: {
    environment: 'node',
    include: ['src/**/*.test.{ts,tsx}', 'config/**/*.test.ts'],
    // palette.test.ts reads styles.css?raw (Vitest empties CSS it does not process).
    css: { include: [/styles\.css/] },
  },
});
