// Markup tests for the Logos section of Settings → Administration, rendered from controller
// states through the whole screen: an Owner and an Administrator see it, a Publisher does not;
// a set logo shows as an <img> from its object URL, an absent one as "No logo set"; the hidden
// file input takes PNG, JPEG and WebP; the note on sizes; buttons disabled while a request runs
// or a file is read; notices as role="status", errors as role="alert"; the removal's Confirm.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { adminSnapshot, type AdminRole } from '../../transport/desktop';
import { AdministrationView, type LogosPanel } from './AdministrationPanel';
import { AdminController, type AdminState } from './adminController';
import { LOCK_AT, fakeAdminShell, fakeObjectUrls, snapshotFixture } from './adminTestkit';
import { LogosController, type LogosState } from './logosController';

const shell = fakeAdminShell();
const ctl = new AdminController(shell.bridge);
const logosCtl = new LogosController(shell.bridge, ctl, shell.fetchLogo, fakeObjectUrls());
const snapshot = adminSnapshot(snapshotFixture());
const USERS: Record<AdminRole, string> = { owner: 'olivia', administrator: 'adam', publisher: 'pia' };

function session(role: AdminRole, patch: Partial<AdminState> = {}): AdminState {
  return { phase: 'session', session: { username: USERS[role], role, lockAtMs: LOCK_AT }, snapshot, busy: false, message: null, dialog: null, ...patch };
}

function logos(patch: Partial<LogosState> = {}): LogosPanel {
  return {
    state: {
      previews: { company: { status: 'set', url: 'blob:relay/7', error: null }, footer: { status: 'none', url: null, error: null } },
      reading: false,
      message: null,
      removing: null,
      ...patch,
    },
    ctl: logosCtl,
  };
}

const render = (state: AdminState, panel: LogosPanel = logos()) => renderToStaticMarkup(<AdministrationView state={state} ctl={ctl} logos={panel} />);
const section = (html: string) => html.slice(html.indexOf('data-testid="admin-logos"'));
const buttons = (html: string) => section(html).match(/<button[^>]*>/g) ?? [];

describe('Logos section', () => {
  it('shows an Owner the current company logo as an image and "No logo set" for the footer', () => {
    const html = render(session('owner'));
    expect(html).toContain('<h3>Logos</h3>');
    const company = html.slice(html.indexOf('data-testid="admin-logo-company"'), html.indexOf('data-testid="admin-logo-footer"'));
    expect(company).toMatch(/<img class="logo-preview-img" src="blob:relay\/7" alt="Current company logo" data-testid="admin-logo-preview"\/>/);
    const footer = html.slice(html.indexOf('data-testid="admin-logo-footer"'));
    expect(footer).toContain('No logo set');
    expect(footer).not.toContain('<img');
    expect(html).toContain('PNG, JPEG or WebP up to 2 MB; shown at most 400×400.');
  });

  it('offers a hidden file input for PNG, JPEG and WebP, and Choose image… / Remove for each logo', () => {
    const html = render(session('owner'));
    for (const kind of ['company', 'footer']) {
      const input = html.match(new RegExp(`<input[^>]*data-testid="admin-logo-file-${kind}"[^>]*>`))?.[0] ?? '';
      expect(input).toContain('type="file"');
      expect(input).toContain('accept="image/png,image/jpeg,image/webp"');
      expect(input).toContain('hidden=""');
    }
    expect(html.split('>Choose image…</button>').length - 1).toBe(2);
    expect(html.split('>Remove</button>').length - 1).toBe(2);
    // Nothing to remove without a logo.
    expect(html).toMatch(/<button[^>]*data-testid="admin-logo-remove" disabled=""[^>]*aria-label="Remove the footer logo"/);
    expect(html).not.toMatch(/<button[^>]*disabled=""[^>]*aria-label="Remove the company logo"/);
  });

  it('shows to an Administrator too, and not to a Publisher', () => {
    expect(render(session('administrator'))).toContain('data-testid="admin-logos"');
    const pub = render(session('publisher'));
    expect(pub).not.toContain('admin-logos');
    expect(pub).not.toContain('blob:relay/7');
    expect(pub).not.toContain('Choose image');
  });

  it('disables its buttons while a request runs or a file is read', () => {
    for (const html of [render(session('owner', { busy: true })), render(session('owner'), logos({ reading: true }))]) {
      const b = buttons(html);
      expect(b.length).toBe(4);
      expect(b.filter((x) => !x.includes('disabled=""'))).toEqual([]);
      expect(section(html)).toMatch(/^data-testid="admin-logos" aria-busy="true"/);
    }
    expect(buttons(render(session('owner'))).filter((x) => !x.includes('disabled=""'))).toHaveLength(3);
  });

  it('shows notices as status and errors as alerts', () => {
    expect(render(session('owner'), logos({ message: { text: 'Company logo saved (400×100).', error: false } })))
      .toContain('role="status" data-testid="admin-logos-message">Company logo saved (400×100).</p>');
    expect(render(session('owner'), logos({ message: { text: 'Image must be a PNG, JPEG or WebP file', error: true } })))
      .toContain('role="alert" data-testid="admin-logos-message">Image must be a PNG, JPEG or WebP file</p>');
  });

  it('says when the current logo could not be read, and while it loads', () => {
    const html = render(session('owner'), logos({
      previews: { company: { status: 'loading', url: null, error: null }, footer: { status: 'failed', url: null, error: 'The current logo could not be read: Cannot reach the Relay server.' } },
    }));
    expect(html).toContain('Loading…');
    expect(html).toContain('The current logo could not be read: Cannot reach the Relay server.');
    expect(html).not.toContain('<img');
  });

  it('asks in the app Confirm dialog before removing', () => {
    const html = render(session('owner'), logos({ removing: 'company' }));
    expect(html).toContain('data-testid="confirm-dialog"');
    expect(html).toContain('Remove the company logo?');
    expect(html).toContain('data-testid="confirm-ok" class="button button-danger">Remove</button>');
  });
});
