// Build-time guard for the server's strict CSP: fails `vite build` when the
// emitted HTML has inline scripts/styles/handlers, off-origin URLs, or entry
// assets that are not hashed files under /assets/.
import type { Plugin } from 'vite';

const HASHED_ASSET = /^\/assets\/[\w.-]+-[\w-]{6,}\.(?:js|css)$/;

function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  return m ? (m[2] ?? m[3] ?? m[4]) : undefined;
}

/** Returns human-readable CSP problems found in an HTML document (empty = fine). */
export function findCspViolations(html: string): string[] {
  const problems: string[] = [];
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    const src = attr(m[0], 'src');
    if (src === undefined) problems.push('inline <script> without src');
    else if (m[2].trim() !== '') problems.push(`<script src="${src}"> has inline content`);
    else if (!HASHED_ASSET.test(src)) problems.push(`script not a hashed /assets/ file: ${src}`);
  }
  if (/<style\b/i.test(html)) problems.push('inline <style> element');
  if (/<[^>]+\sstyle\s*=/i.test(html)) problems.push('inline style attribute');
  if (/<[^>]+\son[a-z]+\s*=/i.test(html)) problems.push('inline event handler attribute');
  if (/javascript:/i.test(html)) problems.push('javascript: URL');
  for (const m of html.matchAll(/<link\b[^>]*>/gi)) {
    const href = attr(m[0], 'href') ?? '';
    const rel = (attr(m[0], 'rel') ?? '').toLowerCase();
    if (/^(?:[a-z]+:)?\/\//i.test(href)) problems.push(`off-origin link: ${href}`);
    if ((rel === 'stylesheet' || rel === 'modulepreload') && !HASHED_ASSET.test(href)) {
      problems.push(`${rel} not a hashed /assets/ file: ${href}`);
    }
  }
  for (const m of html.matchAll(/\s(?:src|href)\s*=\s*["']?((?:[a-z]+:)?\/\/[^"'\s>]+)/gi)) {
    if (!problems.some((p) => p.includes(m[1]))) problems.push(`off-origin URL: ${m[1]}`);
  }
  return problems;
}

export function cspGuard(): Plugin {
  return {
    name: 'relay-csp-guard',
    apply: 'build',
    enforce: 'post',
    writeBundle(_options, bundle) {
      for (const file of Object.values(bundle)) {
        if (file.type !== 'asset' || !file.fileName.endsWith('.html')) continue;
        const html = typeof file.source === 'string' ? file.source : new TextDecoder().decode(file.source);
        const problems = findCspViolations(html);
        if (problems.length) this.error(`${file.fileName} breaks the CSP:\n  ${problems.join('\n  ')}`);
      }
    },
  };
}
