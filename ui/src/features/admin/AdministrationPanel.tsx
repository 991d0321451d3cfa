// Settings → Administration (desktop server mode only): the server PC's administration screen.
// Renders the controller's state — the sign-in form (username, password), or the session
// (signed-in user and role, "Locks at HH:MM", Lock, Verify audit log, the accounts and devices,
// the authority controls, the Logos and Dynatrace for an Owner or Administrator, the Wiki for an
// Owner, Administrator or Publisher) — its notices (role="status")
// and errors (role="alert"), and the open dialog. `Administration` wires it to the desktop
// bridge: it shows only when connection_info says server mode (as Data administration does) and
// polls the admin status while mounted; the logos are read while the Logos section shows, the
// Dynatrace settings while the Dynatrace section shows, the Wiki library while the Wiki section shows.
import { useEffect, useState, useSyncExternalStore } from 'react';
import { useTransport } from '../../transport/context';
import { DesktopBridge } from '../../transport/desktop';
import { AccountsTable } from './AccountsTable';
import { AdminDialogView } from './AdminDialogs';
import { DynatraceController, showsDynatrace, type DynatraceState } from './dynatraceController';
import { DynatraceSection, type DynatracePanelController } from './DynatraceSection';
import { AdminController, type AdminState } from './adminController';
import { abilities, formatClock, roleLabel } from './adminModel';
import { LogosSection, type LogosPanelController } from './LogosSection';
import { LogosController, showsLogos, type LogosState } from './logosController';
import { WikiController, showsWiki, type WikiState } from './wikiController';
import { WikiSection, type WikiPanelController } from './WikiSection';

export type PanelController = Pick<
  AdminController,
  'fields' | 'signIn' | 'lock' | 'open' | 'request' | 'confirm' | 'cancelDialog' | 'submitNewPassword' | 'submitFreshPassword'
>;

function SignInForm({ busy, ctl }: { busy: boolean; ctl: PanelController }) {
  const [username, setUsername] = useState('');
  return (
    <form data-testid="admin-signin" onSubmit={(e) => { e.preventDefault(); void ctl.signIn(username); }}>
      <p className="muted small">Sign in with an administration account of this server to manage accounts, devices and authority.</p>
      <div className="row-wrap">
        <label className="field">
          <span className="field-label">Username</span>
          <input className="input" data-testid="admin-signin-username" autoComplete="off" autoCapitalize="off" spellCheck={false}
            value={username} onChange={(e) => setUsername(e.target.value)} />
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
export function AdministrationView({ state, ctl, logos, dynatrace, wiki }: { state: AdminState; ctl: PanelController; logos?: LogosPanel; dynatrace?: DynatracePanel; wiki?: WikiPanel }) {
  const { phase, session, snapshot, busy, message } = state;
  const can = abilities(session);
  return (
    <div className="panel card" data-testid="administration" aria-busy={busy || undefined}>
      <h2>Administration</h2>
      {phase === 'loading' && <p className="muted" role="status">Checking administration…</p>}
      {phase === 'unavailable' && (
        <p className="muted" data-testid="admin-unavailable">Administration is available on the server PC while its Relay server runs.</p>
      )}
      {phase === 'signedOut' && <SignInForm busy={busy} ctl={ctl} />}
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
      {phase === 'session' && snapshot && (
        <AccountsTable snapshot={snapshot} actions={{ busy, can, request: ctl.request, open: ctl.open }} />
      )}
      {logos && showsLogos(state) && <LogosSection state={logos.state} busy={busy} ctl={logos.ctl} />}
      {dynatrace && showsDynatrace(state) && <DynatraceSection state={dynatrace.state} busy={busy} ctl={dynatrace.ctl} />}
      {wiki && showsWiki(state) && <WikiSection state={wiki.state} busy={busy} ctl={wiki.ctl} />}
      {phase === 'session' && <AdminDialogView state={state} ctl={ctl} createKinds={can.createKinds} />}
    </div>
  );
}

/** The screen wired to the desktop bridge; renders nothing outside a server-mode desktop. */
export function Administration({ w = globalThis }: { w?: unknown }) {
  const [bridge] = useState(() => DesktopBridge.of(w));
  const [serverMode, setServerMode] = useState(false);
  const [ctl] = useState(() => (bridge ? new AdminController(bridge) : null));

  useEffect(() => {
    if (!bridge) return;
    let live = true;
    void bridge.info().then((info) => { if (live && info?.mode === 'server') setServerMode(true); }).catch(() => undefined);
    return () => { live = false; };
  }, [bridge]);

  useEffect(() => {
    if (!ctl || !serverMode) return;
    ctl.start();
    return () => ctl.stop();
  }, [ctl, serverMode]);

  if (!bridge || !ctl || !serverMode) return null;
  return <Wired bridge={bridge} ctl={ctl} />;
}

function Wired({ bridge, ctl }: { bridge: DesktopBridge; ctl: AdminController }) {
  const transport = useTransport();
  const state = useSyncExternalStore(ctl.subscribe, ctl.getState);
  const [logosCtl] = useState(() => new LogosController(bridge, ctl, (kind) => transport.brandingLogo(kind)));
  const logosState = useSyncExternalStore(logosCtl.subscribe, logosCtl.getState);
  const logosShown = showsLogos(state);
  useEffect(() => {
    if (!logosShown) return;
    void logosCtl.start();
    return () => logosCtl.stop();
  }, [logosCtl, logosShown]);
  const [dynatraceCtl] = useState(() => new DynatraceController(bridge, ctl));
  const dynatraceState = useSyncExternalStore(dynatraceCtl.subscribe, dynatraceCtl.getState);
  const dynatraceShown = showsDynatrace(state);
  useEffect(() => {
    if (!dynatraceShown) return;
    void dynatraceCtl.start();
    return () => dynatraceCtl.stop();
  }, [dynatraceCtl, dynatraceShown]);
  const [wikiCtl] = useState(() => new WikiController(bridge, ctl));
  const wikiState = useSyncExternalStore(wikiCtl.subscribe, wikiCtl.getState);
  const wikiShown = showsWiki(state);
  useEffect(() => {
    if (!wikiShown) return;
    void wikiCtl.start();
    return () => wikiCtl.stop();
  }, [wikiCtl, wikiShown]);
  return (
    <AdministrationView state={state} ctl={ctl} logos={{ state: logosState, ctl: logosCtl }}
      dynatrace={{ state: dynatraceState, ctl: dynatraceCtl }} wiki={{ state: wikiState, ctl: wikiCtl }} />
  );
}
