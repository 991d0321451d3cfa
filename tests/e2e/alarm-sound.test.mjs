// End-to-end (issue #19): the alarm MP3 tone in Chromium against the real relay binary. A due
// alarm loops the bundled MP3 (a hidden <audio data-testid="alarm-audio">); Settings → Alarm sound
// refuses a non-MP3 with a message, keeps a custom MP3 in this browser's IndexedDB (never on the
// server), tests it, and the next due alarm loops it from a blob: URL; reset returns to the
// bundled tone. No Content-Security-Policy violation is reported along the way (media-src blob:).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { api, apiToken, launch, REPO, signIn, startRelay, until } from './harness.mjs';

const iso = (ms) => new Date(ms).toISOString();
const BUNDLED = /\/assets\/alarm-[\w-]+\.mp3$/;
const MEDIA_SRC = "media-src 'self' blob:";

describe('Relay alarm MP3 tone', { timeout: 240_000 }, () => {
  let relay;
  let browser;
  let page;
  let token;

  before(async () => {
    relay = await startRelay();
    token = await apiToken(relay);
    browser = await launch();
    const ctx = await browser.newContext(relay.url);
    const servedPolicy = (await fetch(relay.url + '/')).headers.get('content-security-policy') ?? '';
    assert.ok(servedPolicy.includes(MEDIA_SRC), `the page's policy allows the blob: tone: ${servedPolicy}`);
    await ctx.addInitScript(() => {
      window.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    page = await signIn(ctx, relay);
  });

  after(async () => {
    await browser?.close();
    await relay?.stop();
  });

  const audio = (id = 'alarm-audio') => page.evaluate((testId) => {
    const a = document.querySelector(`audio[data-testid="${testId}"]`);
    return a && { currentSrc: a.currentSrc, paused: a.paused, loop: a.loop, currentTime: a.currentTime, error: a.error?.code ?? null };
  }, id);
  const storedTone = () => page.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open('relay-alarm-tone');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      if (!db.objectStoreNames.contains('tone')) return resolve(null);
      const get = db.transaction('tone').objectStore('tone').get('custom');
      get.onsuccess = () => resolve(get.result ? { name: get.result.name, size: get.result.size, blobSize: get.result.blob.size } : null);
      get.onerror = () => reject(get.error);
    };
  }));

  async function dueAlarm(title) {
    const made = await api(relay, token, 'POST', '/api/collections/alert_reminders/records', { title, dueAt: iso(Date.now() - 60_000), status: 'pending' });
    assert.equal(made.status, 200, made.text);
    const popup = page.getByTestId('due-popup');
    await popup.waitFor({ timeout: 35_000 });
    assert.equal(await popup.getByRole('heading').innerText(), title);
    return popup;
  }

  async function dismiss(popup) {
    await popup.getByTestId('due-dismiss').click();
    await popup.waitFor({ state: 'detached' });
    await until(async () => (await audio()) === null, 'the audio element released');
  }

  test('a due alarm loops the bundled MP3', async () => {
    assert.equal(await page.getByTestId('sound-toggle').getAttribute('data-armed'), 'true', 'the sign-in click armed the sound');
    const popup = await dueAlarm('Send the DC-3 update');
    const a = await until(async () => {
      const s = await audio();
      return s && !s.paused && s.currentTime > 0 ? s : null;
    }, 'the bundled tone playing');
    assert.match(a.currentSrc, BUNDLED);
    assert.equal(a.loop, true);
    assert.equal(a.error, null);
    await dismiss(popup);
  });

  test('Settings → Alarm sound: a non-MP3 is refused, a custom MP3 is kept on this device and tested', async () => {
    await page.getByTestId('nav-settings').click();
    const panel = page.getByTestId('settings-alarm-sound');
    await panel.waitFor();
    const active = panel.getByTestId('alarm-sound-active');
    await until(async () => (await active.innerText()) === 'Bundled', 'bundled tone shown');

    await panel.getByTestId('alarm-sound-file').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not audio at all') });
    await until(async () => /notes\.txt: That file is not an MP3/.test(await panel.getByTestId('alarm-sound-error').innerText().catch(() => '')), 'refusal message');
    assert.equal(await active.innerText(), 'Bundled');
    assert.equal(await storedTone(), null);

    const bytes = await readFile(path.join(REPO, 'ui', 'src', 'features', 'attention', 'alarm.mp3'));
    await panel.getByTestId('alarm-sound-file').setInputFiles({ name: 'custom.mp3', mimeType: 'audio/mpeg', buffer: bytes });
    await until(async () => (await active.innerText()).startsWith('custom.mp3 ('), 'custom tone shown', 15_000);
    assert.equal(await active.innerText(), `custom.mp3 (${(bytes.length / 1024).toFixed(1)} KB)`);
    assert.equal(await panel.getByTestId('alarm-sound-error').count(), 0);
    assert.deepEqual(await storedTone(), { name: 'custom.mp3', size: bytes.length, blobSize: bytes.length });

    // Test sound plays it once from a blob: URL and ends by itself (the tone is 1.5 s).
    const testButton = panel.getByTestId('alarm-sound-test');
    await testButton.click();
    assert.equal(await testButton.innerText(), 'Stop');
    const t = await until(async () => {
      const s = await audio('alarm-test-audio');
      // play() unpauses at once; currentSrc is set by the media element's resource selection,
      // which runs a moment later, so wait for both before reading the source.
      return s && !s.paused && s.currentSrc !== '' ? s : null;
    }, 'the test tone playing');
    assert.match(t.currentSrc, /^blob:/);
    assert.equal(t.loop, false);
    await until(async () => (await testButton.innerText()) === 'Test sound', 'the test tone ended by itself', 8_000);
    assert.equal(await audio('alarm-test-audio'), null);
  });

  test('the next due alarm loops the custom MP3 from a blob: URL; reset returns to the bundled tone', async () => {
    const popup = await dueAlarm('Send the DC-4 update');
    const a = await until(async () => {
      const s = await audio();
      return s && !s.paused && s.currentTime > 0 ? s : null;
    }, 'the custom tone playing');
    assert.match(a.currentSrc, /^blob:/);
    assert.equal(a.loop, true);
    await dismiss(popup);

    const panel = page.getByTestId('settings-alarm-sound');
    await panel.getByTestId('alarm-sound-reset').click();
    await until(async () => (await panel.getByTestId('alarm-sound-active').innerText()) === 'Bundled', 'reset to bundled');
    assert.equal(await storedTone(), null);

    const again = await dueAlarm('Send the DC-5 update');
    const b = await until(async () => {
      const s = await audio();
      return s && !s.paused && s.currentSrc !== '' ? s : null;
    }, 'the bundled tone playing again');
    assert.match(b.currentSrc, BUNDLED);
    await dismiss(again);
  });

  test('no Content-Security-Policy violation, and nothing about the tone reached the server', async () => {
    assert.deepEqual(await page.evaluate(() => window.__csp), []);
    assert.deepEqual(page.relayErrors.filter((e) => /Content Security Policy/i.test(e)), []);
    assert.deepEqual(page.relayErrors, []);
  });
});
