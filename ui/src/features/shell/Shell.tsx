// Signed-in layout: sidebar, header (breadcrumb, global search, world clock), the tabs
// (each stays mounted after its first visit), the status bar, toasts, shortcuts, the
// global alarm popup, the attention signals (window title, favicon, connection-loss banner,
// alarm Sound on/off) and the app-level service-status and Radar feeds and new Dynatrace problem
// toasts (their toasts show on every tab; the Radar colour is on its nav item), and in desktop client mode the review
// dialog of the changes waiting to sync (opened from the status bar). On the desktop, the shell's
// update controller (UpdateProvider) feeds the header's "Update · vX.Y.Z" action and Settings → About,
// and the main window reports the shell's mount to the desktop shell once (useShellMounted).
// Keyboard: a "Skip to main content" link comes first, and a tab change (Ctrl+1..7, search, a
// record opened elsewhere) puts focus on the new tab's heading (./mainFocus).
import { lazy, Suspense, useCallback, useEffect, useMemo, useReducer, useRef, useState, type ReactNode } from 'react';
import { FallbackBoundary } from '../../components/FallbackBoundary';
import { Modal, closeTopModal } from '../../components/Modal';
import { useToast } from '../../components/Toasts';
import { useStores } from '../../data/store';
import { COMPOSE_DRAFT, composeReducer, emptyCompose, isEmptyCompose, restoreCompose } from '../../lib/recipients';
import { loadDraft, useWindowDraft } from '../../lib/windowDrafts';
import { DuePopup } from '../alerts/DuePopup';
import { AttentionProvider } from '../attention/AttentionContext';
import { ConnectionBanner, SoundToggle } from '../attention/AttentionUi';
import { ComposeView } from '../compose/ComposeView';
import { PendingChangesModal } from '../offline/PendingChanges';
import { ProblemToasts } from '../problems/ProblemToasts';
import { ContactForm } from '../people/ContactForm';
import { RadarNavIndicator } from '../radar/RadarNavIndicator';
import { RadarFeedProvider } from '../radar/useRadarFeed';
import { StatusFeedProvider } from '../status/useStatusFeed';
import { UpdateProvider } from '../update/UpdateContext';
import { UpdateHeaderAction } from '../update/UpdateHeaderAction';
import { GlobalSearch, type SearchHandle } from './GlobalSearch';
import { focusMain, focusMainWhenReady, shouldMoveFocus } from './mainFocus';
import { ShellContext, type ShellApi } from './ShellContext';
import { SHORTCUT_HELP, shortcutFor } from './shortcuts';
import { Sidebar } from './Sidebar';
import { StatusBar } from './StatusBar';
import { DEFAULT_TAB, TABS, tabLabel, type TabId } from './tabs';
import { usePresence } from './usePresence';
import { useShellMounted } from './useShellMounted';
import { WorldClock } from './WorldClock';

/** Lazy tabs: rendered on first visit, but their code is fetched soon after sign-in so a tab
 * first opened while the server is unreachable still renders (with its honest offline state). */
const LOADERS = {
  alerts: () => import('../alerts/AlertsView'),
  oncall: () => import('../oncall/OnCallView'),
  notes: () => import('../notes/NotesView'),
  status: () => import('../status/StatusView'),
  people: () => import('../people/PeopleView'),
  servers: () => import('../servers/ServersView'),
  settings: () => import('../settings/SettingsView'),
  radar: () => import('../radar/RadarView'),
  problems: () => import('../problems/ProblemsView'),
  knowledge: () => import('../knowledge/KnowledgeView'),
};
const PREFETCH_DELAY_MS = 1_000;
const AlertsView = lazy(LOADERS.alerts);
const OnCallView = lazy(LOADERS.oncall);
const NotesView = lazy(LOADERS.notes);
const StatusView = lazy(LOADERS.status);
const PeopleView = lazy(LOADERS.people);
const ServersView = lazy(LOADERS.servers);
const SettingsView = lazy(LOADERS.settings);
const RadarView = lazy(LOADERS.radar);
const ProblemsView = lazy(LOADERS.problems);
const KnowledgeView = lazy(LOADERS.knowledge);
const NAV_INDICATORS = { radar: <RadarNavIndicator /> };

/** A tab whose code could not be fetched (offline before it was ever loaded) says so. */
const TAB_UNAVAILABLE = (
  <p className="panel muted" role="status" data-testid="tab-unavailable">
    Offline — no cached data: this view has not been loaded on this device yet. Reload when the connection is back.
  </p>
);

const VIEWS: Record<TabId, () => ReactNode> = {
  compose: () => <ComposeView />,
  alerts: () => <AlertsView />,
  oncall: () => <OnCallView />,
  notes: () => <NotesView />,
  status: () => <StatusView />,
  people: () => <PeopleView />,
  servers: () => <ServersView />,
  settings: () => <SettingsView />,
  radar: () => <RadarView />,
  problems: () => <ProblemsView />,
  knowledge: () => <KnowledgeView />,
};

export function Shell({ onSignOut }: { onSignOut: () => void }) {
  const toast = useToast();
  const [tab, setTab] = useState<TabId>(DEFAULT_TAB);
  const [visited, setVisited] = useState<Set<TabId>>(() => new Set([DEFAULT_TAB]));
  // Compose recipients survive a reload of this window (lib/windowDrafts).
  const [compose, composeDispatch] = useReducer(composeReducer, null, () => loadDraft(COMPOSE_DRAFT, restoreCompose) ?? emptyCompose);
  useWindowDraft(COMPOSE_DRAFT, compose, isEmptyCompose);
  const [query, setQuery] = useState('');
  const [listQuery, setListQuery] = useState('');
  const [help, setHelp] = useState(false);
  const [createEmail, setCreateEmail] = useState<string | null>(null);
  const [focusRecord, setFocusRecord] = useState<ShellApi['focusRecord']>(null);
  const [reviewing, setReviewing] = useState(false);
  const offlineQueue = useStores().sync;
  const search = useRef<SearchHandle>(null);
  const main = useRef<HTMLElement>(null);
  const pane = (t: TabId) => main.current?.querySelector(`[data-testid="tab-${t}"]`) ?? null;
  const presence = usePresence((host) => toast('info', `${host} connected`));
  useShellMounted();

  const go = useCallback((t: TabId) => {
    setTab(t);
    setVisited((v) => (v.has(t) ? v : new Set(v).add(t)));
    setQuery(''); // switching tabs clears the query
  }, []);

  // A tab change moves focus to the new tab's heading, unless it is in the nav or already in the tab.
  const shownTab = useRef(tab);
  useEffect(() => {
    if (shownTab.current === tab) return;
    shownTab.current = tab;
    if (shouldMoveFocus(document.activeElement, document.querySelector('.sidebar'), pane(tab))) return focusMainWhenReady(() => pane(tab), main.current);
  }, [tab]);

  useEffect(() => {
    const t = setTimeout(() => Object.values(LOADERS).forEach((load) => void load().catch(() => {})), PREFETCH_DELAY_MS);
    return () => clearTimeout(t);
  }, []);

  useEffect(() => {
    const t = setTimeout(() => setListQuery(query), 300);
    return () => clearTimeout(t);
  }, [query]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const a = shortcutFor(e);
      if (!a) return;
      if (a.type === 'escape') {
        if (closeTopModal()) e.preventDefault();
        return;
      }
      e.preventDefault();
      if (a.type === 'tab') go(a.tab);
      else if (a.type === 'settings') go('settings');
      else if (a.type === 'search') search.current?.focus();
      else if (a.type === 'help') setHelp(true);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [go]);

  const api = useMemo<ShellApi>(
    () => ({
      tab,
      go,
      compose,
      composeDispatch,
      listQuery,
      focusRecord,
      openRecord: (t, id) => {
        go(t);
        setFocusRecord((f) => ({ tab: t, id, seq: (f?.seq ?? 0) + 1 }));
      },
    }),
    [tab, go, compose, listQuery, focusRecord],
  );

  return (
    <ShellContext.Provider value={api}>
      <UpdateProvider>
      <AttentionProvider>
        <StatusFeedProvider>
          <RadarFeedProvider>
            <div className="shell">
              <a className="skip-link" href="#main" data-testid="skip-link" onClick={(e) => { e.preventDefault(); focusMain(pane(tab), main.current); }}>Skip to main content</a>
              <Sidebar active={tab} onSelect={go} onSignOut={onSignOut} presence={presence} indicators={NAV_INDICATORS} />
              <header className="topbar" aria-label="Relay toolbar">
                <div className="breadcrumb">
                  <span className="muted">Relay</span> / <span data-testid="breadcrumb-tab">{tabLabel(tab)}</span>
                </div>
                <GlobalSearch ref={search} query={query} setQuery={setQuery} onCreateContact={(e) => setCreateEmail(e)} />
                <UpdateHeaderAction />
                <SoundToggle />
                <button type="button" className="button button-ghost" data-testid="shortcuts-open" onClick={() => setHelp(true)}>
                  Shortcuts
                </button>
                <WorldClock tab={tab} />
              </header>
              <main className="content" id="main" ref={main} tabIndex={-1} aria-label={tabLabel(tab)}>
                <ConnectionBanner />
                <Suspense fallback={<p className="muted">Loading…</p>}>
                  {TABS.filter((t) => visited.has(t.id)).map((t) => (
                    <div key={t.id} className="tab-pane" hidden={t.id !== tab} data-testid={`tab-${t.id}`}>
                      <FallbackBoundary fallback={TAB_UNAVAILABLE}>{VIEWS[t.id]()}</FallbackBoundary>
                    </div>
                  ))}
                </Suspense>
              </main>
              <StatusBar tab={tab} onReviewChanges={() => setReviewing(true)} />
            </div>
            {help && (
              <Modal title="Keyboard shortcuts" onClose={() => setHelp(false)} testId="shortcuts-help">
                <table className="table">
                  <tbody>
                    {SHORTCUT_HELP.map((s) => (
                      <tr key={s.keys}>
                        <td>
                          <kbd>{s.keys}</kbd>
                        </td>
                        <td>{s.what}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </Modal>
            )}
            {reviewing && offlineQueue && <PendingChangesModal queue={offlineQueue} onClose={() => setReviewing(false)} />}
            {createEmail !== null && (
              <Modal title="New contact" onClose={() => setCreateEmail(null)}>
                <ContactForm initial={{ email: createEmail }} onDone={() => setCreateEmail(null)} />
              </Modal>
            )}
            <DuePopup />
            <ProblemToasts />
          </RadarFeedProvider>
        </StatusFeedProvider>
      </AttentionProvider>
      </UpdateProvider>
    </ShellContext.Provider>
  );
}
