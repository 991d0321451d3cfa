// Shared e2e harness: starts the real relay binary on a temp data dir (serving ui/dist),
// launches Debian Chromium through playwright-core (never downloads browsers), signs in,
// and tears everything down. Every wait is bounded.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, '..', '..');
export const UI_DIST = path.join(REPO, 'ui', 'dist');
/** Where a run writes its screenshots: ignored (`/target`), so a test run changes no tracked file. */
export const SHOTS = path.join(REPO, 'target', 'screenshots');
/** The tracked copies the README shows; written only with RELAY_UPDATE_SCREENSHOTS=1. */
export const DOC_SHOTS = path.join(REPO, 'docs', 'screenshots');
export const UPDATE_SCREENSHOTS = process.env.RELAY_UPDATE_SCREENSHOTS === '1';
export const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';
export const VIEWPORT = { width: 1280, height: 800 };

/**
 * The LAN names a browser opens Relay by, as operators do: the data API by a server name, Relay
 * Web by `<hostname>.local` (a name its Host allowlist accepts). Chromium resolves both to
 * 127.0.0.1 (`--host-resolver-rules`), so every packet stays on loopback while the page origin is
 * a plain-HTTP name: not a secure context, unlike `localhost` and `127.0.0.1`.
 */
export const LAN_SERVER_NAME = 'relay-server.lan';
export const LAN_GATEWAY_NAME = `${hostname().toLowerCase()}.local`;
const HOST_RESOLVER_RULES = [LAN_SERVER_NAME, LAN_GATEWAY_NAME].map((n) => `MAP ${n} 127.0.0.1`).join(',');

export function relayBin() {
  if (process.env.RELAY_BIN) return path.resolve(process.env.RELAY_BIN);
  if (process.env.CARGO_TARGET_DIR) return path.resolve(process.env.CARGO_TARGET_DIR, 'debug', 'relay');
  return path.join(REPO, 'target', 'debug', 'relay');
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The status-feed endpoint names (`infra::http::endpoints::STATUS_FEEDS`). */
export const STATUS_ENDPOINTS = [
  'AWS', 'AZURE', 'M365', 'JIRA', 'GITHUB', 'CLOUDFLARE', 'GOOGLE', 'CLAUDE', 'OPENAI', 'SALESFORCE', 'MIST',
  'DYNATRACE', 'PROOFPOINT', 'CROWDSTRIKE',
];

/** Debug-only overrides pointing every status feed at `origin` (default: a closed loopback port,
 * so an e2e run never reaches the real status pages). */
export function closedUpstreams(origin = 'http://127.0.0.1:9') {
  return Object.fromEntries(STATUS_ENDPOINTS.map((n) => [`RELAY_TEST_UPSTREAM_STATUS_${n}`, origin]));
}

/**
 * Start `relay serve`; resolves with {url, passphrase, stop()} once it prints its URL.
 * `{ web: true }` also starts the Relay Web gateway (`--bind 0.0.0.0 --web --web-port 0`) and adds
 * `webUrl` (http://localhost:<port>: the gateway's cookie is host-only, so always use this host).
 */
export async function startRelay({ web = false, env = {} } = {}) {
  const bin = relayBin();
  if (!existsSync(bin)) throw new Error(`relay binary not found at ${bin} (set RELAY_BIN)`);
  if (!existsSync(path.join(UI_DIST, 'index.html'))) throw new Error(`ui/dist is not built (cd ui && npm run build)`);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'relay-e2e-'));
  const passphrase = randomBytes(18).toString('base64url');
  const args = web
    ? ['serve', '--data-dir', dataDir, '--port', '0', '--bind', '0.0.0.0', '--web', '--web-port', '0', '--ui-dir', UI_DIST]
    : ['serve', '--data-dir', dataDir, '--port', '0', '--bind', '127.0.0.1', '--ui-dir', UI_DIST];
  const child = spawn(bin, args, {
    env: { ...closedUpstreams(), ...process.env, ...env, RELAY_BOOTSTRAP_PASSPHRASE: passphrase },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = [];
  const keep = (p) => (l) => { log.push(p + l); if (log.length > 200) log.shift(); };
  createInterface({ input: child.stderr }).on('line', keep('[stderr] '));
  const out = createInterface({ input: child.stdout });
  out.on('line', keep('[stdout] '));
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  let webUrl = null;
  let webPort = null;
  const { url, port } = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('relay did not start in 20 s\n' + log.join('\n'))), 20_000);
    out.on('line', (l) => {
      const w = /Relay Web listening on http:\/\/[^:\s]+:(\d+)/.exec(l);
      if (w) {
        webPort = w[1];
        webUrl = `http://localhost:${w[1]}`;
      }
      // The data API may listen on 0.0.0.0: tests only ever talk to loopback.
      const m = /Relay listening on http:\/\/[^:\s]+:(\d+)/.exec(l);
      if (m) {
        clearTimeout(timer);
        if (web && !webUrl) reject(new Error('Relay Web did not start\n' + log.join('\n')));
        else resolve({ url: `http://127.0.0.1:${m[1]}`, port: m[1] });
      }
    });
    exited.then(({ code }) => { clearTimeout(timer); reject(new Error(`relay exited early (${code})\n` + log.join('\n'))); });
  });
  return {
    url,
    webUrl,
    /** The same servers opened by LAN name (see LAN_SERVER_NAME): not secure contexts. */
    lanUrl: `http://${LAN_SERVER_NAME}:${port}`,
    lanWebUrl: webPort ? `http://${LAN_GATEWAY_NAME}:${webPort}` : null,
    passphrase,
    log,
    /** The data directory, for server-local CLI steps (`relay branding --data-dir …`). */
    dataDir,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(t);
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Launches Chromium contexts, each a persistent context on its own fresh --user-data-dir
 * (a separate "client"). Returns {newContext(origin), close()}.
 */
export async function launch() {
  const open = [];
  return {
    async newContext(origin) {
      const profile = await mkdtemp(path.join(tmpdir(), 'relay-e2e-chrome-'));
      const ctx = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        timeout: 30_000,
        viewport: VIEWPORT,
        acceptDownloads: true,
        args: [
          '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
          '--disable-background-networking', '--disable-component-update', '--disable-sync',
          // LAN names resolve to loopback (no packet leaves the machine); no proxy is consulted.
          `--host-resolver-rules=${HOST_RESOLVER_RULES}`, '--no-proxy-server',
        ],
      });
      open.push({ ctx, profile });
      await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      ctx.setDefaultTimeout(15_000);
      ctx.setDefaultNavigationTimeout(20_000);
      return ctx;
    },
    async close() {
      for (const { ctx, profile } of open.splice(0)) {
        await Promise.race([ctx.close(), sleep(10_000)]).catch(() => {});
        await rm(profile, { recursive: true, force: true }).catch(() => {});
      }
    },
  };
}

/**
 * Collects `page`'s uncaught errors and console errors into the returned array (live). The data
 * API's 404 for the renderer's mode detection (GET /web/api/mode) is by design and left out.
 */
export function watchPageErrors(page) {
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (/Failed to load resource/.test(m.text()) && /\/web\/api\/mode$/.test(m.location()?.url ?? '')) return;
    errors.push(m.text());
  });
  return errors;
}

/** Opens the UI and signs in; resolves once the status bar says Connected. */
export async function signIn(ctx, relay, pathAndQuery = '/') {
  const page = await ctx.newPage();
  page.relayErrors = watchPageErrors(page);
  await page.goto(relay.url + pathAndQuery);
  await page.getByTestId('signin-passphrase').fill(relay.passphrase);
  await page.getByTestId('signin-submit').click();
  if (pathAndQuery === '/') await page.locator('[data-testid="status-connection"][data-state="connected"]').waitFor({ timeout: 15_000 });
  return page;
}

/** A new client (its own Chromium context) signed in on the data API (see `signIn`). */
export async function signInNewClient(browser, relay, pathAndQuery = '/') {
  const ctx = await browser.newContext(relay.url);
  return signIn(ctx, relay, pathAndQuery);
}

/**
 * A new client signed in through the Relay Web gateway; resolves once the status bar says
 * Connected. Page errors are collected in page.relayErrors.
 */
export async function signInOnGateway(browser, relay) {
  const ctx = await browser.newContext(relay.webUrl);
  const page = await ctx.newPage();
  page.relayErrors = [];
  page.on('pageerror', (e) => page.relayErrors.push(String(e)));
  await page.goto(relay.webUrl + '/');
  await page.getByTestId('signin-passphrase').fill(relay.passphrase);
  await page.getByTestId('signin-submit').click();
  await page.locator('[data-testid="status-connection"][data-state="connected"]').waitFor({ timeout: 15_000 });
  return page;
}

/**
 * Inside a describe: before its tests, a relay (startRelay options), a browser and a client signed
 * in (through the gateway when `web`); after them, all torn down. Returns the holder
 * {relay, browser, page}, filled once the before hook has run.
 */
export function signedInSuite({ web = false, env } = {}) {
  const c = { relay: null, browser: null, page: null };
  before(async () => {
    c.relay = await startRelay({ web, env });
    c.browser = await launch();
    c.page = web ? await signInOnGateway(c.browser, c.relay) : await signInNewClient(c.browser, c.relay);
  });
  after(async () => {
    await c.browser?.close();
    await c.relay?.stop();
  });
  return c;
}

/** Clicks the button `testId` and resolves to the POST to `pathname` it sends: its headers and the answer's status. */
export async function clickAndWatchPost(page, testId, pathname, responseTimeoutMs = 10_000) {
  const sent = page.waitForRequest((r) => new URL(r.url()).pathname === pathname && r.method() === 'POST', { timeout: 10_000 });
  const response = page.waitForResponse((r) => new URL(r.url()).pathname === pathname, { timeout: responseTimeoutMs });
  await page.getByTestId(testId).click();
  return { headers: (await sent).headers(), status: (await response).status() };
}

/** Token for direct API seeding (same identity as the UI). */
export async function apiToken(relay) {
  const r = await fetch(`${relay.url}/api/collections/users/auth-with-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identity: 'relay', password: relay.passphrase }),
  });
  if (!r.ok) throw new Error(`auth failed ${r.status}`);
  return (await r.json()).token;
}

export async function api(relay, token, method, p, body) {
  const r = await fetch(relay.url + p, {
    method,
    headers: { 'content-type': 'application/json', authorization: token },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not json */ }
  return { status: r.status, json, text };
}

export async function count(relay, token, collection, filter) {
  const q = new URLSearchParams({ perPage: '1', ...(filter ? { filter } : {}) });
  const r = await api(relay, token, 'GET', `/api/collections/${collection}/records?${q}`);
  return r.json.totalItems;
}

/** Writes `target/screenshots/<name>.png`; with RELAY_UPDATE_SCREENSHOTS=1 also `docs/screenshots/`. */
export async function screenshot(page, name) {
  const file = path.join(SHOTS, `${name}.png`);
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: file });
  if (UPDATE_SCREENSHOTS) await copyFile(file, path.join(DOC_SHOTS, `${name}.png`));
}

/** The second size the README shows: the layout must hold at 1024 wide. */
export const SMALL_VIEWPORT = { width: 1024, height: 700 };

/**
 * A README screenshot at both sizes: `<name>.png` at 1280x800 and `<name>-1024x700.png` at
 * 1024x700 (see `screenshot` for where they go). The page is back at 1280x800 afterwards.
 */
export async function screenshotBothSizes(page, name) {
  await screenshot(page, name);
  const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.setViewportSize(SMALL_VIEWPORT);
  try {
    await settle();
    await screenshot(page, `${name}-${SMALL_VIEWPORT.width}x${SMALL_VIEWPORT.height}`);
  } finally {
    await page.setViewportSize(VIEWPORT);
    await settle();
  }
}

/** Polls `fn` until it returns something truthy (every 150 ms, at most `ms`); returns it. */
export async function until(fn, what, ms = 10_000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
}
