// The plural guard for ui/src (issue #38: "1 documents"): a count written straight before a plural
// noun in UI text (`${n} entries`, `{count} documents`) reads wrong when the count is 1, so every
// app source file (tests and test scaffolding aside; comments ignored) is scanned for a template
// or JSX expression followed by a plural noun. Such a count goes through lib/text plural(); a
// constant (an ALL_CAPS limit) and the few counts that are never 1 (listed here, with why) are
// let through. Also plural() itself.
import { describe, expect, it } from 'vitest';
import { plural } from './text';

const NOUNS = 'documents|entries|changes|tables|headers|cells|rows|teams|contacts|recipients|servers|notes|results|errors|alarms|records|items|files|images|groups|members|days|hours|minutes|seconds|pages|matches|problems|subsystems|devices|accounts|clients|categories|attempts|copies|backups|lines|words|times';
// Not followed by `=`: `{closeMenu} items={…}` is a JSX prop, not text.
const COUNT_THEN_NOUN = new RegExp(String.raw`\$?\{([^{}\n]{1,80})\} (${NOUNS})\b(?!=)`, 'g');
/** A constant limit or a literal: the sentence is about a fixed number, never 1. */
const CONSTANT = /^\s*(?:[A-Z][A-Z0-9_]*(?:\.[A-Za-z]+)*(?:\.toLocaleString\([^)]*\))?|\d+)\s*$/;
/** `file: expression` of counts that are never 1, and why. */
const NEVER_ONE: Record<string, string> = {
  'features/oncall/contactPicker.ts: count': 'said only when several contacts share a name (2 or more)',
  'components/Toasts.tsx: t.count': 'shown only from the second identical toast on',
  'data/store.ts: items.length': 'a console line past the offline cache limit (thousands)',
  'data/store.ts: action': '"does not ${action} records": a verb, not a count',
  'features/compose/BridgeActions.tsx: m': 'bridge durations: 30, 60, 90 or 120 minutes',
  'features/compose/ics.ts: BRIDGE_DURATIONS.join(\', \')': 'the list of durations',
  'features/knowledge/knowledge.ts: pages': 'the branch after `pages === 1`',
  'features/servers/serverSyncPlan.ts: n': 'a name repeated in the file: 2 or more',
  'features/settings/systemHealth.ts: minutes': 'the health window, a whole number of minutes above 1 (System health, owned elsewhere)',
  'features/settings/systemHealth.ts: Math.floor(h / 24)': 'System health is owned elsewhere: listed in the #38 report',
};

/** The source without its comments (a `//` right after `:`, as in a URL, is kept). */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

const SOURCES = Object.entries(import.meta.glob<string>('/src/**/*.{ts,tsx}', { query: '?raw', import: 'default', eager: true }))
  .map(([path, text]) => ({ path: path.replace(/^\/src\//, ''), text }))
  .filter(({ path }) => !/\.test\.tsx?$|testkit|domTest|domTransport|nonSecureTest|updateTestkit|wikiTestkit|adminTestkit/.test(path));

describe('count-then-plural guard', () => {
  it('finds the app sources', () => {
    expect(SOURCES.length).toBeGreaterThan(100);
  });

  it('no count is written straight before a plural noun (use plural())', () => {
    const found: string[] = [];
    for (const { path, text } of SOURCES) {
      for (const m of withoutComments(text).matchAll(COUNT_THEN_NOUN)) {
        const expr = m[1].trim();
        if (CONSTANT.test(expr) || NEVER_ONE[`${path}: ${expr}`]) continue;
        found.push(`${path}: ${m[0]}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('plural() says 1 entry, 2 entries, 0 documents', () => {
    expect(plural(1, 'entry', 'entries')).toBe('1 entry');
    expect(plural(2, 'entry', 'entries')).toBe('2 entries');
    expect(plural(0, 'document')).toBe('0 documents');
  });
});
