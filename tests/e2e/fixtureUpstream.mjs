// A loopback stand-in for the status pages, for e2e runs: serves the recorded-format fixtures of
// tests/vectors/status_feeds (the same files and paths as `infra::status_feeds::testdata::ROUTES`)
// on 127.0.0.1, so the real relay binary polls "AWS", "GitHub", … through its debug-only endpoint
// overrides (`closedUpstreams(origin)` in harness.mjs). Unknown paths answer 404.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const VECTORS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'vectors', 'status_feeds');
const RSS = 'application/rss+xml; charset=utf-8';
const ATOM = 'application/atom+xml; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const HTML = 'text/html; charset=utf-8';

/** [method, path, content type, fixture file] */
export const FIXTURE_ROUTES = [
  ['GET', '/rss/all.rss', RSS, 'aws_all.rss'],
  ['GET', '/en-us/status/feed/', RSS, 'azure_status.rss'],
  ['GET', '/api/feed/mac', ATOM, 'm365_feed.atom'],
  ['GET', '/api/v2/summary.json', JSON_TYPE, 'statuspage_summary.json'],
  ['GET', '/incidents.json', JSON_TYPE, 'google_incidents.json'],
  ['GET', '/v1/incidents/active', JSON_TYPE, 'salesforce_incidents_active.json'],
  ['GET', '/api/v1/notices', JSON_TYPE, 'mist_notices.json'],
  ['GET', '/api/v1/notices/n0tice1emea', JSON_TYPE, 'mist_notice_emea.json'],
  ['GET', '/api/v1/notices/n0tice2glob', JSON_TYPE, 'mist_notice_global.json'],
  ['GET', '/api/v1/components', JSON_TYPE, 'mist_components.json'],
  ['GET', '/1.0/status/546d8cb6af8407b6730000cb', JSON_TYPE, 'dynatrace_status.json'],
  ['GET', '/community/s/proofpoint-current-incidents', HTML, 'proofpoint_page.html'],
  ['POST', '/community/s/sfsites/aura', JSON_TYPE, 'proofpoint_aura.json'],
  ['GET', '/services/crowdstrike', HTML, 'statusgator_issues.html'],
];

/** Starts the stand-in; resolves with {origin, requests, close()}. */
export async function startFixtureUpstream() {
  const bodies = new Map();
  for (const [method, route, type, file] of FIXTURE_ROUTES) {
    bodies.set(`${method} ${route}`, { type, body: await readFile(path.join(VECTORS, file)) });
  }
  const requests = [];
  const server = createServer((req, res) => {
    const route = new URL(req.url, 'http://x').pathname;
    requests.push(`${req.method} ${route}`);
    req.resume();
    req.on('end', () => {
      const hit = bodies.get(`${req.method} ${route}`);
      if (!hit) {
        res.writeHead(404, { 'Content-Length': 0, Connection: 'close' }).end();
        return;
      }
      res.writeHead(200, { 'Content-Type': hit.type, 'Content-Length': hit.body.length, Connection: 'close' }).end(hit.body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, requests, close: () => new Promise((resolve) => server.close(resolve)) };
}
