// Markup tests for the Update dialog and Settings → About: the state sentence as a live status,
// the five actions as labelled buttons enabled only for the next step, the download progress as
// a progressbar with aria-valuenow and the bytes, a failure as an alert in plain words, the
// Restart message, the dialog inside the shared Modal (role, aria-modal, label: the same focus
// trap as the other dialogs), and About with this version and the update state.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { UpdateSnapshot } from '../../transport/desktop';
import { AboutCard } from './AboutPanel';
import { UpdateDialog, UpdatePanel } from './UpdateDialog';
import { UpdateController, type UpdateViewState } from './updateController';
import { FAILURE_TEXT, RESTART_UNMANAGED, restartHandedOffText } from './updateModel';
import { MiB, fakeUpdaterShell } from './updateTestkit';

const snap = (patch: Partial<UpdateSnapshot> = {}): UpdateSnapshot => ({
  phase: 'available', currentVersion: '0.1.0', latestVersion: '0.2.0', installable: true, downloadedBytes: 0, totalBytes: 40 * MiB, failureCode: null, ...patch,
});
const view = (patch: Partial<UpdateViewState> = {}): UpdateViewState => ({ snapshot: snap(), unavailable: null, busy: null, message: null, checked: true, restart: null, ...patch });
const noop = () => undefined;
const on = { check: noop, download: noop, cancel: noop, prepare: noop, restart: noop };
const panel = (state: UpdateViewState) => renderToStaticMarkup(<UpdatePanel state={state} on={on} />);
const enabled = (html: string) => [...html.matchAll(/<button type="button" data-testid="update-(\w+)"(?! disabled)/g)].map((m) => m[1]);

describe('UpdatePanel', () => {
  it('shows the versions, the state as a live status and five labelled actions', () => {
    const html = panel(view());
    expect(html).toMatch(/role="status" aria-live="polite" data-testid="update-state">Relay v0.2.0 is available\./);
    expect(html).toContain('data-testid="update-current">v0.1.0<');
    expect(html).toContain('data-testid="update-latest">v0.2.0<');
    for (const label of ['Check for updates', 'Download', 'Cancel download', 'Prepare', 'Restart']) expect(html).toContain(`>${label}</button>`);
    expect(html).toContain('role="group" aria-label="Update actions"');
    expect(enabled(html)).toEqual(['check', 'download']);
    expect(html).not.toContain('role="progressbar"');
  });

  it('shows a progressbar with aria-valuenow and the bytes while downloading, with Cancel', () => {
    const html = panel(view({ snapshot: snap({ phase: 'downloading', downloadedBytes: 10 * MiB }) }));
    expect(html).toMatch(/role="progressbar" aria-label="Download progress" aria-valuemin="0" aria-valuemax="100" aria-valuenow="25" aria-valuetext="10.0 MiB of 40.0 MiB"/);
    expect(html).toContain('data-testid="update-bytes">10.0 MiB of 40.0 MiB<');
    expect(enabled(html)).toEqual(['check', 'cancel']);
  });

  it('offers only Prepare after the download and only Restart after preparing', () => {
    expect(enabled(panel(view({ snapshot: snap({ phase: 'downloaded', downloadedBytes: 40 * MiB }) })))).toEqual(['check', 'prepare']);
    expect(enabled(panel(view({ snapshot: snap({ phase: 'preparing' }) })))).toEqual([]);
    expect(enabled(panel(view({ snapshot: snap({ phase: 'prepared' }) })))).toEqual(['check', 'restart']);
  });

  it('shows a failure in plain words and a refusal as an alert', () => {
    const failed = panel(view({ snapshot: snap({ phase: 'error', failureCode: 'signature-invalid' }), message: { text: 'No download is in progress.', error: true } }));
    expect(failed).toContain(`class="error-text" role="status" aria-live="polite" data-testid="update-state">${FAILURE_TEXT['signature-invalid'].replace("'", '&#x27;')}<`);
    expect(failed).toMatch(/role="alert" data-testid="update-message">No download is in progress\.</);
    expect(enabled(failed)).toEqual(['check']);
  });

  it('names the running command on its button and disables every action meanwhile', () => {
    const html = panel(view({ busy: 'check' }));
    expect(html).toContain('>Checking…</button>');
    expect(enabled(html)).toEqual([]);
  });

  it("shows Restart's answer on an unmanaged installation and keeps Restart offered", () => {
    const text = `Relay v0.2.0 (commit 0123456789ab) is prepared and its checksum verified again. ${RESTART_UNMANAGED}`;
    const restart = { version: '0.2.0', commit: '0123456789abcdef'.repeat(2) + '01234567', executableSha256: '07'.repeat(32), handedOff: false };
    const html = panel(view({ snapshot: snap({ phase: 'prepared' }), message: { text, error: false }, restart }));
    expect(html).toContain(`role="status" data-testid="update-message">${text}<`);
    expect(enabled(html)).toContain('restart');
  });

  it('offers nothing more once the launcher took the update', () => {
    const text = `Relay v0.2.0 (commit 0123456789ab) is prepared and its checksum verified again. ${restartHandedOffText('0.2.0')}`;
    const restart = { version: '0.2.0', commit: '0123456789abcdef'.repeat(2) + '01234567', executableSha256: '07'.repeat(32), handedOff: true };
    const html = panel(view({ snapshot: snap({ phase: 'prepared' }), message: { text, error: false }, restart }));
    expect(html).toContain(`role="status" data-testid="update-message">${text}<`);
    expect(enabled(html)).toEqual([]);
  });

  it('says why without an updater and offers nothing', () => {
    const html = panel(view({ snapshot: null, unavailable: 'Updates are not available in this window or on this installation.' }));
    expect(html).toContain('data-testid="update-state">Updates are not available');
    expect(enabled(html)).toEqual([]);
  });
});

describe('UpdateDialog', () => {
  it('is a labelled modal dialog (the shared Modal: focus trap, Esc, focus back to the opener)', () => {
    const ctl = new UpdateController(fakeUpdaterShell().bridge);
    const html = renderToStaticMarkup(<UpdateDialog controller={ctl} state={view()} onClose={noop} />);
    expect(html).toMatch(/role="dialog" aria-modal="true" aria-label="Update Relay" tabindex="-1" data-testid="update-dialog"/);
    expect(html).toContain('aria-label="Close"');
  });
});

describe('AboutCard', () => {
  it('shows this version and the update state, and opens the dialog', () => {
    const html = renderToStaticMarkup(<AboutCard state={view({ snapshot: snap({ phase: 'idle', latestVersion: null }) })} onOpen={noop} />);
    expect(html).toContain('data-testid="about-version">Relay v0.1.0<');
    expect(html).toContain('data-testid="about-update-state">Relay v0.1.0 is the newest version.<');
    expect(html).toMatch(/data-testid="about-updates" aria-haspopup="dialog">Updates…</);
  });
});
