// End-to-end: images in the alert composer's body (issue #17) in Debian Chromium against the real
// relay binary. A 1200x40 PNG built here (a minimal encoder: one IDAT, filter 0) goes through
// "Insert image" (the file chooser the button opens) to POST /api/relay/images/alert-body; the
// placeholder `[image 1]` lands at the caret, the preview card shows an <img> from a PNG data URL
// at most 516 px wide, the pinned template's bodyHtml in alert_history holds exactly the sanitized
// `<img src="…" alt="…" class="alert-body-image">`, and loading the template brings placeholder
// and image back; Copy alert puts the text with the placeholder and HTML with the image on the
// clipboard. A text file renamed .png shows the server's "Image must be a PNG, JPEG or WebP
// file" and a file over 5 MB is refused before any request; neither inserts anything. Through the
// Relay Web gateway the upload carries X-Relay-CSRF. An image that takes the stored body over the
// server's 750,000-character bodyHtml limit is inserted, said to be too large, and not saved (Pin
// sends nothing; Copy alert copies and says it was not saved). A screenshot on the system clipboard
// (image/png only) pasted with Ctrl+V takes the same path as Insert image and lands at the caret.
// Screenshot: alert-images.png (harness.mjs `screenshot`, into the ignored target/screenshots).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { api, apiToken, relayBin, screenshot, signedInSuite, signInNewClient, until } from './harness.mjs';

const PATH = '/api/relay/images/alert-body';
const WRONG_TYPE = 'Image must be a PNG, JPEG or WebP file';
/** The body editor's text, lines as "\n" (a contentEditable, so innerText rather than inputValue). */
const bodyText = (loc) => loc.evaluate((el) => el.innerText.replace(/\n+$/, ''));
const SANITIZED = /^<img src="data:image\/(png|jpeg|jpg|gif|webp);base64,[a-z0-9+/=]+" alt="[^"<>]*" class="alert-body-image">$/i;

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
/** An 8-bit RGB PNG, `width` x `height`, in vertical colour bands (or random pixels: `noise`). */
function png(width, height, noise = false) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // depth 8, RGB, deflate, filter 0, no interlace
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([(x * 7) & 0xff, x < width / 2 ? 40 : 200, 120], 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => {
    if (!noise) return row;
    const r = randomBytes(row.length);
    r[0] = 0;
    return r;
  }));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** Opens the file chooser through "Insert image" and picks `file` ({name, mimeType, buffer}). */
async function insertFile(page, file) {
  const chooser = page.waitForEvent('filechooser', { timeout: 10_000 });
  await page.getByTestId('alert-insert-image').click();
  await (await chooser).setFiles(file);
}

/** The preview image once decoded: {src, naturalWidth, naturalHeight}. */
async function previewImage(page) {
  const img = page.getByTestId('alert-preview-image');
  await img.waitFor();
  await until(() => img.evaluate((el) => el.complete && el.naturalWidth > 0), 'the preview image decoded');
  return img.evaluate((el) => ({ src: el.getAttribute('src'), naturalWidth: el.naturalWidth, naturalHeight: el.naturalHeight }));
}

describe('Alert body images (data API)', { timeout: 120_000 }, () => {
  const client = signedInSuite();
  let page;
  let token;
  before(async () => {
    page = client.page;
    token = await apiToken(client.relay);
    await page.getByTestId('nav-alerts').click();
    await page.getByTestId('alert-body').waitFor();
  });

  test('Insert image places [image 1] at the caret, previews it, pins it as sanitized HTML and loads it back', async () => {
    await page.getByTestId('sev-ISSUE').click();
    await page.getByTestId('alert-subject').fill('Rack B7 cabling');
    const body = page.getByTestId('alert-body');
    await body.fill('Intro line\nAfter line');
    // The caret at the start of the second line: the placeholder goes between the lines.
    await body.click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowRight');

    const wide = png(1200, 40);
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === PATH, { timeout: 15_000 });
    await insertFile(page, { name: 'wide-banner.png', mimeType: 'image/png', buffer: wide });
    assert.equal((await answered).status(), 200);
    await until(async () => (await bodyText(body)) === 'Intro line\n[image 1]\nAfter line', 'the placeholder at the caret');
    assert.equal(await page.getByTestId('alert-image-status').innerText(), 'Image inserted.');
    assert.equal(await page.getByTestId('alert-image-error').count(), 0);
    assert.equal(await page.getByTestId('alert-insert-image').isEnabled(), true);

    const shown = await previewImage(page);
    assert.match(shown.src, /^data:image\/png;base64,/);
    assert.ok(shown.naturalWidth <= 516 && shown.naturalWidth > 0, `prepared width ${shown.naturalWidth}`);
    assert.equal(shown.naturalWidth, 516, 'a 1200 px image is narrowed to 516 px');
    assert.ok(Math.abs(shown.naturalHeight - 17) <= 1, `aspect kept: height ${shown.naturalHeight}`);
    const previewText = await page.getByTestId('alert-preview-body').innerText();
    assert.match(previewText, /Intro line[\s\S]*After line/);
    assert.doesNotMatch(previewText, /\[image 1\]/, 'the placeholder shows as the image, not as text');
    // The preview card keeps the image inside itself.
    const card = await page.getByTestId('alert-preview').boundingBox();
    const box = await page.getByTestId('alert-preview-image').boundingBox();
    assert.ok(box.x >= card.x && box.x + box.width <= card.x + card.width + 0.5, 'the image fits the card');
    await screenshot(page, 'alert-images');

    await page.getByTestId('alert-pin').click();
    await page.getByTestId('pin-label').fill('Rack template');
    await page.getByTestId('pin-save').click();
    await page.getByTestId('template-chip').getByText('Rack template').waitFor();
    const filter = encodeURIComponent("label = 'Rack template'");
    const rec = await until(async () => (await api(client.relay, token, 'GET', `/api/collections/alert_history/records?filter=${filter}`)).json.items[0], 'the pinned record');
    const tag = `<img src="${shown.src}" alt="wide-banner" class="alert-body-image">`;
    assert.match(tag, SANITIZED);
    assert.equal(rec.bodyHtml, `Intro line<br>${tag}<br>After line`);
    assert.equal(rec.severity, 'ISSUE');
    assert.equal(rec.pinned, true);

    // Back from history: a fresh draft, then the template.
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    assert.equal(await bodyText(body), '');
    assert.equal(await page.getByTestId('alert-preview-image').count(), 0);
    await page.getByTestId('template-chip').getByText('Rack template').click();
    await until(async () => (await bodyText(body)) === 'Intro line\n[image 1]\nAfter line', 'placeholder back from history');
    assert.equal((await previewImage(page)).src, shown.src);
    // And through the history list.
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    await page.getByTestId('alert-history-open').click();
    await page.getByTestId('alert-history').getByRole('button', { name: /Rack template/ }).click();
    await until(async () => (await bodyText(body)) === 'Intro line\n[image 1]\nAfter line', 'placeholder back from the history list');
    assert.equal((await previewImage(page)).src, shown.src);
    // Copy alert: plain text with the placeholder, and an HTML flavour with the image.
    await page.getByTestId('alert-copy').click();
    await page.getByTestId('toasts').getByText('Alert copied and saved to history.').waitFor();
    const clip = await page.evaluate(async () => {
      const [item] = await navigator.clipboard.read();
      return { types: item.types, text: await (await item.getType('text/plain')).text(), html: await (await item.getType('text/html')).text() };
    });
    assert.equal(clip.text, '[ISSUE] Rack B7 cabling\n\nIntro line\n[image 1]\nAfter line');
    assert.ok(clip.html.includes(`Intro line<br>${tag}<br>After line`), 'the copied HTML holds the sanitized image');
    assert.deepEqual(page.relayErrors, [], 'no page errors or console errors (CSP violations would show here)');
  });

  test('a screenshot pasted with Ctrl+V (an image on the clipboard) is prepared and inserted like Insert image', async () => {
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    const body = page.getByTestId('alert-body');
    await body.fill('Before the screenshot');
    await page.evaluate(async (b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      await navigator.clipboard.write([new ClipboardItem({ 'image/png': new Blob([bytes], { type: 'image/png' }) })]);
    }, png(300, 60).toString('base64'));
    await body.click();
    await page.keyboard.press('Control+End');
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === PATH, { timeout: 15_000 });
    await page.keyboard.press('Control+V');
    assert.equal((await answered).status(), 200);
    await until(async () => (await bodyText(body)) === 'Before the screenshot\n[image 1]', 'the pasted image at the caret');
    assert.equal(await page.getByTestId('alert-image-status').innerText(), 'Image inserted.');
    const shown = await previewImage(page);
    assert.match(shown.src, /^data:image\/png;base64,/);
    assert.equal(shown.naturalWidth, 300);
  });

  test('a text file renamed .png and a file over 5 MB are refused and insert nothing', async () => {
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    const body = page.getByTestId('alert-body');
    await body.fill('Only text');
    const before = page.relayErrors.length;
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === PATH, { timeout: 15_000 });
    await insertFile(page, { name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('These are meeting notes, not an image.\n') });
    assert.equal((await answered).status(), 415);
    const error = page.getByTestId('alert-image-error');
    await error.waitFor();
    assert.equal(await error.innerText(), WRONG_TYPE);
    assert.equal(await error.getAttribute('role'), 'alert');
    assert.equal(await bodyText(body), 'Only text');
    assert.equal(await page.getByTestId('alert-preview-image').count(), 0);
    // The browser logs the refused request; nothing else.
    for (const e of page.relayErrors.slice(before)) assert.match(e, /Failed to load resource.*415/);

    let sent = 0;
    const count = (r) => { if (new URL(r.url()).pathname === PATH) sent++; };
    page.on('request', count);
    await insertFile(page, { name: 'huge.png', mimeType: 'image/png', buffer: Buffer.alloc(5 * 1024 * 1024 + 1) });
    await until(async () => (await error.innerText()) === 'Image must be under 5 MB', 'the size refusal');
    page.off('request', count);
    assert.equal(sent, 0, 'refused before uploading');
    assert.equal(await bodyText(body), 'Only text');
    assert.equal(await page.getByTestId('alert-preview-image').count(), 0);
  });

  test("an image that takes the stored body over the server's 750,000 characters is said so and not saved", async () => {
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    await page.getByTestId('alert-subject').fill('Noisy');
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === PATH, { timeout: 15_000 });
    await insertFile(page, { name: 'noise.png', mimeType: 'image/png', buffer: png(516, 520, true) });
    assert.equal((await answered).status(), 200);
    await previewImage(page);
    const size = page.getByTestId('alert-body-size');
    await size.waitFor();
    assert.match(await size.innerText(), /^Alert body must be at most 750,000 characters \(now [\d,]+\)\. Images count toward it: use fewer or smaller images\.$/);
    const rows = async () => (await api(client.relay, token, 'GET', '/api/collections/alert_history/records?perPage=1')).json.totalItems;
    const before = await rows();
    let sent = 0;
    const count = (r) => { if (new URL(r.url()).pathname === '/api/collections/alert_history/records' && r.method() === 'POST') sent++; };
    page.on('request', count);
    await page.getByTestId('alert-pin').click();
    await page.getByTestId('pin-label').fill('Too big');
    await page.getByTestId('pin-save').click();
    await page.getByTestId('toasts').getByText(/Alert body must be at most 750,000 characters/).waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('pin-dialog').waitFor({ state: 'detached' });
    // Copy alert still copies; saving to history is refused the same way.
    await page.getByTestId('alert-copy').click();
    await page.getByTestId('toasts').getByText(/^Alert copied, not saved to history: Alert body must be at most 750,000 characters/).waitFor();
    page.off('request', count);
    assert.equal(sent, 0, 'refused before sending');
    assert.equal(await rows(), before);
    assert.match(await page.evaluate(() => navigator.clipboard.readText()), /^\[INFO\] Noisy\n\n\[image 1\]$/);
  });
  test('the company and footer logos set on the server PC show on the card', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'relay-logo-'));
    try {
      const file = path.join(dir, 'logo.png');
      await writeFile(file, png(1200, 300));
      for (const kind of ['company', 'footer']) {
        execFileSync(relayBin(), ['branding', '--data-dir', client.relay.dataDir, 'set-logo', kind, file], { stdio: 'pipe' });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    // Another client opening Alerts now reads them (this window learns of changes made in its own
    // Settings; see ui/src/lib/logoChanges.ts).
    const other = await signInNewClient(client.browser, client.relay);
    await other.getByTestId('nav-alerts').click();
    for (const id of ['alert-card-company-logo', 'alert-card-footer-logo']) {
      const logo = other.getByTestId(id);
      await logo.waitFor();
      await until(() => logo.evaluate((el) => el.complete && el.naturalWidth > 0), `${id} decoded`);
      const { width, src } = await logo.evaluate((el) => ({ width: el.naturalWidth, src: el.getAttribute('src') }));
      assert.equal(width, 400, 'stored inside 400x400');
      assert.match(src, /^blob:/, 'read with the app token into an object URL');
    }
    assert.deepEqual(other.relayErrors, [], 'no console errors');
    await other.context().close();
  });
});

describe('Alert body images (Relay Web gateway)', { timeout: 90_000 }, () => {
  const client = signedInSuite({ web: true });

  test('the upload carries the CSRF token and the image is inserted', async () => {
    const page = client.page;
    await page.getByTestId('nav-alerts').click();
    await page.getByTestId('alert-body').fill('Through the gateway');
    const sent = page.waitForRequest((r) => new URL(r.url()).pathname === PATH && r.method() === 'POST', { timeout: 10_000 });
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === PATH, { timeout: 15_000 });
    await insertFile(page, { name: 'small.png', mimeType: 'image/png', buffer: png(64, 16) });
    assert.ok((await sent).headers()['x-relay-csrf'], 'X-Relay-CSRF on the upload');
    assert.equal((await answered).status(), 200);
    await until(async () => (await bodyText(page.getByTestId('alert-body'))) === 'Through the gateway\n[image 1]', 'the placeholder at the end');
    const shown = await previewImage(page);
    assert.match(shown.src, /^data:image\/png;base64,/);
    assert.equal(shown.naturalWidth, 64, 'a narrow image keeps its width');
    assert.deepEqual(page.relayErrors, []);
  });
});
