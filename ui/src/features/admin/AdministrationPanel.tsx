// Settings → Administration: the protected (Owner / Administrator / Publisher) screen, on two
// surfaces. 'local' (the server PC's desktop app, server mode): the sign-in form (username,
// password), or the session (signed-in user and role, "Locks at HH:MM", Lock, Verify audit log,
// the accounts and devices, the authority controls, the Logos and Dynatrace for an Owner or
// Administrator, the Wiki for an Owner, Administrator or Publisher). 'web' (Relay Web in a LAN
// browser, through the gateway's protected session): the same "Protected sign-in" form and
// session header, the Wiki for all three roles, and for an Owner or Administrator a read-only view
// of the accounts and devices plus Verify audit log — no account, password, pairing or device
// control, no Logos, no Dynatrace. 'laptop' (a paired client-mode desktop, LaptopAdministration):
// the pairing section on top, the sign-in as the paired account (username read-only), then for an
// Owner or Administrator the full accounts table and its actions (signed laptop commands) except
// Set/Reset password and Pair device (server PC only; the laptop note says so) and the Dynatrace
// section, and the Wiki with upload for all three roles; no Logos. Notices are role="status", errors
// role="alert", and the open dialog shows. `Administration` picks the surface from the transport:
// Relay Web gets WebProtectedSession; the desktop follows connection_info (server mode: the
// bridge's own session; client mode: the laptop's). Each polls the admin status while mounted;
// each section's data is read while it shows.
import { useEffect, useState, type ReactNode } from 'react';
import { useController } from './useController';
import { useTransport } from '../../transport/context';
import { DesktopBridge } from '../../transport/desktop';
import type { ProtectedSession, ProtectedSurface } from '../../transport/protectedSession';
import { WebProtectedSession, type GatewayFetch } from '../../transport/webProtected';
import { AccountsTable } from './AccountsTable';
import { AdminDialogView } from './AdminDialogs';
import { DynatraceController, showsDynatrace, type DynatraceState } from './dynatraceController';
import { DynatraceSection, type DynatracePanelController } from './DynatraceSection';
import { LaptopAdministration } from './LaptopAdministration';
import { AdminController, type AdminState } from './adminController';
import { abilities, formatClock, roleLabel } from './adminModel';
import { LogosSection, type LogosPanelController } from './LogosSection';
import { LogosController, showsLogos, type LogosState } from './logosController';
import { RecoverySection, type RecoveryPanelController } from './RecoverySection';
import { RecoveryController, showsRecovery, type RecoveryState } from './recoveryController';
import { ReadOnlyAccounts } from './ReadOnlyAccounts';
import { WikiController, showsWiki, type WikiState } from './wikiController';
import { WikiSection, type WikiPanelController } from './WikiSection';

export type PanelController = Pick<
  AdminController,
  'fields' | 'signIn' | 'lock' | 'open' | 'request' | 'confirm' | 'cancelDialog' | 'submitNewPassword' | 'submitFreshPassword'
>;

/** Shown on Relay Web: what the browser cannot do. */
export const WEB_NOTE = 'Accounts, passwords, pairing and devices are managed on the Relay server PC.';

/** Shown on a paired laptop: what it cannot do. */
export const LAPTOP_NOTE = 'Passwords and device pairing are set on the Relay server PC.';

function SignInForm({ busy, ctl, web, fixedUsername }: { busy: boolean; ctl: PanelController; web: boolean; fixedUsername?: string }) {
  const [typed, setUsername] = useState('');
  const username = fixedUsername ?? typed;
  return (
    <form data-testid="admin-signin" aria-label={web ? 'Protected sign-in' : undefined} onSubmit={(e) => { e.preventDefault(); void ctl.signIn(username); }}>
      {web && <h3>Protected sign-in</h3>}
      <p className="muted small">
        {fixedUsername !== undefined
          ? 'Sign in with the password of the account this laptop is paired for to manage the Wiki (and, as an Owner or Administrator, accounts, devices and Dynatrace).'
          : web
            ? 'Sign in with your Owner, Administrator or Publisher account of this server to manage the Wiki.'
            : 'Sign in with an administration account of this server to manage accounts, devices and authority.'}
      </p>
      <div className="row-wrap">
        <label className="field">
          <span className="field-label">Username</span>
          <input className="input" data-testid="admin-signin-username" autoComplete="off" autoCapitalize="off" spellCheck={false}
            value={username} readOnly={fixedUsername !== undefined} onChange={(e) => setUsername(e.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">Password</span>
          <input className="input" data-testid="admin-signin-password" type="password" autoComplete="off" ref={ctl.fields.signIn.ref} />
        </label>
        <button type="submit" className="button button-primary" data-testid="admin-signin-submit" disabled={busy}>
          Sign in
        </button>
      </div>
    </form>
  );
}

/** The Logos section's state and handlers, when the screen has them. */
export interface LogosPanel {
  state: LogosState;
  ctl: LogosPanelController;
}

/** The Dynatrace section's state and handlers, when the screen has them. */
export interface DynatracePanel {
  state: DynatraceState;
  ctl: DynatracePanelController;
}

/** The Wiki section's state and handlers, when the screen has them. */
export interface WikiPanel {
  state: WikiState;
  ctl: WikiPanelController;
}

/** The screen for one state (pure rendering; the markup tests render it directly). */
export function AdministrationView({ state, ctl, logos, dynatrace, wiki, recovery, surface = 'local', pairing, pairedUsername }: {
  state: AdminState;
  ctl: PanelController;
  logos?: LogosPanel;
  recovery?: { state: RecoveryState; ctl: RecoveryPanelController };
  dynatrace?: DynatracePanel;
  wiki?: WikiPanel;
  /** 'web': Relay Web's restricted screen (Wiki, read-only accounts; no Logos or Dynatrace).
   * 'laptop': the accounts with their actions but no password or pairing, Dynatrace; no Logos. */
  surface?: ProtectedSurface;
  /** 'laptop': the pairing section, shown above the rest. */
  pairing?: ReactNode;
  /** 'laptop': the paired account (the sign-in form's read-only username). */
  pairedUsername?: string;
}) {
  const { phase, session, snapshot, busy, message } = state;
  const can = abilities(session, surface);
  const laptop = surface === 'laptop';
  // Relay Web: read-only accounts, no Logos or Dynatrace. A paired laptop: no Logos.
  const readOnly = surface === 'web';
  // Relay Web and a paired laptop: the remote sign-in wording.
  const web = readOnly || laptop;
  return (
    <div className="panel card" data-testid="administration" data-surface={surface} aria-busy={busy || undefined}>
      <h2>Administration</h2>
      {surface === 'web' && <p className="muted small" data-testid="admin-web-note">{WEB_NOTE}</p>}
      {laptop && <p className="muted small" data-testid="admin-laptop-note">{LAPTOP_NOTE}</p>}
      {pairing}
      {phase === 'loading' && <p className="muted" role="status">Checking administration…</p>}
      {phase === 'unavailable' && (
        <p className="muted" data-testid="admin-unavailable">
          {laptop
            ? 'Protected sign-in is not available on this laptop right now.'
            : web
            ? 'Protected sign-in is not available from this browser right now.'
            : 'Administration is available on the server PC while its Relay server runs.'}
        </p>
      )}
      {phase === 'signedOut' && <SignInForm busy={busy} ctl={ctl} web={web} fixedUsername={laptop ? (pairedUsername ?? '') : undefined} />}
      {phase === 'session' && session && (
        <div className="row-wrap" data-testid="admin-session">
          <span>
            Signed in as <strong>{session.username}</strong> ({roleLabel(session.role)})
          </span>
          <span className="muted" data-testid="admin-lock-at">Locks at {formatClock(session.lockAtMs)}</span>
          <button type="button" className="button button-ghost small" data-testid="admin-lock" disabled={busy} onClick={() => void ctl.lock()}>
            Lock
          </button>
          {can.verifyAudit && (
            <button type="button" className="button button-ghost small" data-testid="admin-audit-verify" disabled={busy}
              onClick={() => ctl.request({ kind: 'auditVerify' })}>
              Verify audit log
            </button>
          )}
        </div>
      )}
      {message && (
        <p className={message.error ? 'error-text' : 'muted'} role={message.error ? 'alert' : 'status'} data-testid="admin-message">
          {message.text}
        </p>
      )}
      {busy && <p className="muted small" role="status">Working…</p>}
      {phase === 'session' && snapshot && !readOnly && (!laptop || session?.role !== 'publisher') && (
        <AccountsTable snapshot={snapshot} actions={{ busy, can, request: ctl.request, open: ctl.open }} />
      )}
      {phase === 'session' && snapshot && readOnly && session?.role !== 'publisher' && <ReadOnlyAccounts snapshot={snapshot} />}
      {can.manageLogos && logos && showsLogos(state) && <LogosSection state={logos.state} busy={busy} ctl={logos.ctl} />}
      {can.manageDynatrace && dynatrace && showsDynatrace(state) && <DynatraceSection state={dynatrace.state} busy={busy} ctl={dynatrace.ctl} />}
      {wiki && showsWiki(state) && <WikiSection state={wiki.state} busy={busy} ctl={wiki.ctl} />}
      {can.manageRecovery && recovery && showsRecovery(state) && <RecoverySection state={recovery.state} busy={busy} ctl={recovery.ctl} />}
      {phase === 'session' && <AdminDialogView state={state} ctl={ctl} createKinds={readOnly ? [] : can.createKinds} serverPc={surface === 'local'} />}
    </div>
  );
}

/** The screen for this window: Relay Web's protected session in a Relay Web browser, else the
 * desktop bridge's (nothing outside a server-mode desktop). */
export function Administration({ w = globalThis }: { w?: unknown }) {
  const transport = useTransport();
  if (transport.mode === 'relay-web') return transport.webFetch ? <WebAdministration webFetch={transport.webFetch} /> : null;
  return <DesktopAdministration w={w} />;
}

/** Relay Web: the screen wired to WebProtectedSession over the transport's gateway requests. */
export function WebAdministration({ webFetch, session }: { webFetch: GatewayFetch; session?: ProtectedSession }) {
  const [bridge] = useState<ProtectedSession>(() => session ?? new WebProtectedSession(webFetch));
  const [ctl] = useState(() => new AdminController(bridge));
  const [wikiCtl] = useState(() => new WikiController(bridge, ctl));
  const state = useController(ctl);
  const wikiState = useController(wikiCtl, showsWiki(state));
  return <AdministrationView state={state} ctl={ctl} wiki={{ state: wikiState, ctl: wikiCtl }} surface="web" />;
}

/** The screen wired to the desktop bridge: the server PC's own session in server mode, the paired
 * laptop's in client mode; nothing elsewhere (setup, outside the desktop). */
function DesktopAdministration({ w }: { w: unknown }) {
  const [bridge] = useState(() => DesktopBridge.of(w));
  const [mode, setMode] = useState<'server' | 'client' | null>(null);
  const serverMode = mode === 'server';
  const [ctl] = useState(() => (bridge ? new AdminController(bridge) : null));

  useEffect(() => {
    if (!bridge) return;
    let live = true;
    void bridge.info().then((info) => {
      if (live && (info?.mode === 'server' || info?.mode === 'client')) setMode(info.mode);
    }).catch(() => undefined);
    return () => { live = false; };
  }, [bridge]);

  if (bridge && mode === 'client') return <LaptopAdministration bridge={bridge} />;
  if (!bridge || !ctl || !serverMode) return null;
  return <Wired bridge={bridge} ctl={ctl} />;
}

/** Server mode: the admin session runs while this is mounted, each section while its role shows it. */
function Wired({ bridge, ctl }: { bridge: DesktopBridge; ctl: AdminController }) {
  const transport = useTransport();
  const [logosCtl] = useState(() => new LogosController(bridge, ctl, (kind) => transport.brandingLogo(kind)));
  const [dynatraceCtl] = useState(() => new DynatraceController(bridge, ctl));
  const [wikiCtl] = useState(() => new WikiController(bridge, ctl));
  const [recoveryCtl] = useState(() => new RecoveryController(bridge, ctl));
  const state = useController(ctl);
  const logosState = useController(logosCtl, showsLogos(state));
  const recoveryState = useController(recoveryCtl, showsRecovery(state));
  const dynatraceState = useController(dynatraceCtl, showsDynatrace(state));
  const wikiState = useController(wikiCtl, showsWiki(state));
  return (
    <AdministrationView state={state} ctl={ctl} logos={{ state: logosState, ctl: logosCtl }}
      dynatrace={{ state: dynatraceState, ctl: dynatraceCtl }} wiki={{ state: wikiState, ctl: wikiCtl }}
      recovery={{ state: recoveryState, ctl: recoveryCtl }} />
  );
}
