// A fake Dynatrace for the e2e tests and the UI bench: a loopback server speaking Grail's
// query:execute / query:poll JSON (every query answers RUNNING, then its poll SUCCEEDED with the
// current `records`), reached by the relay binary through the debug-only
// RELAY_TEST_UPSTREAM_DYNATRACE override; problem records as the problems DQL projects them; and
// `cli`, which runs `relay <command> --data-dir D ...` with stdin (bounded).
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { relayBin } from './harness.mjs';

/** A problem as the problems DQL projects it. */
export function grailProblem(id, displayId, title, minutesAgo, severity = 'AVAILABILITY') {
  return {
    problemId: id,
    displayId,
    title,
    status: 'ACTIVE',
    severity,
    impactLevel: 'SERVICES',
    startTime: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
    endTime: null,
    rootCause: 'HOST-42',
    rootCauseEntityName: 'db-01',
    affectedEntityIds: ['SERVICE-1'],
    affectedEntityNames: ['checkout'],
    affectedEntityTypes: ['SERVICE'],
    alertingProfiles: ['NOC'],
  };
}

/**
 * The answer to one query: problem queries get `records` (a reconciliation page in problem-id
 * order after its `event.id > "…"` cursor, at most 10,000, as Grail would); any other query
 * (notification e-mails) gets nothing.
 */
function answerFor(query, records) {
  if (!query.startsWith('fetch dt.davis.problems')) return [];
  if (!query.includes('| sort problemId asc')) return records.slice(0, 10_000);
  const after = /\| filter event\.id > "((?:[^"\\]|\\.)*)"/.exec(query)?.[1];
  const sorted = [...records].sort((a, b) => (a.problemId < b.problemId ? -1 : a.problemId > b.problemId ? 1 : 0));
  return sorted.filter((r) => after === undefined || r.problemId > after).slice(0, 10_000);
}

/** The fake Grail: every query answers RUNNING, then its poll SUCCEEDED with that query's records. */
export async function fakeGrail() {
  const records = [];
  const pending = new Map();
  let next = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      if (req.method === 'POST' && url.pathname === '/platform/storage/query/v1/query:execute') {
        const token = `tok-${++next}`;
        pending.set(token, answerFor(String(JSON.parse(body || '{}').query ?? ''), records));
        res.statusCode = 202;
        res.end(JSON.stringify({ state: 'RUNNING', requestToken: token, ttlSeconds: 120 }));
      } else if (req.method === 'GET' && url.pathname === '/platform/storage/query/v1/query:poll') {
        const token = url.searchParams.get('request-token') ?? '';
        const result = pending.get(token) ?? [];
        pending.delete(token);
        res.end(JSON.stringify({ state: 'SUCCEEDED', progress: 100, result: { records: result, metadata: { grail: { notifications: [] } } } }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { records, origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/** `relay <args> --data-dir D` with `stdin`; resolves with its output, rejects on failure (bounded). */
export function cli(dataDir, args, stdin = '') {
  return new Promise((resolve, reject) => {
    const [command, ...rest] = args;
    const child = spawn(relayBin(), [command, '--data-dir', dataDir, ...rest], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`relay ${args.join(' ')} failed (${code}): ${out}`));
    });
    child.stdin.end(stdin);
  });
}
