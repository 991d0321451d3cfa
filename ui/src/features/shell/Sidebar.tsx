// Left navigation: one button per tab (Tab reaches it, ↑/↓/Home/End move between tabs, Enter
// opens one), the connected-client count, the Dynatrace dashboards launcher (only when this
// device has dashboards; outside the nav list, so its arrow keys do not reach it) and sign-out. A tab may carry an indicator
// after its label (the Radar colour) that says the tab's whole name in words ("Radar: red"), so
// the visible label is hidden from assistive tech there; `data-label` keeps the plain label.
import type { PresenceSnapshot } from '../../transport/types';
import type { KeyboardEvent, ReactNode } from 'react';
import { DashboardsLauncher } from '../dynatrace/DashboardsLauncher';
import { navKeyTarget, TABS, type TabId } from './tabs';

export function Sidebar({
  active,
  onSelect,
  onSignOut,
  presence,
  indicators = {},
}: {
  active: TabId;
  onSelect: (id: TabId) => void;
  onSignOut: () => void;
  presence: PresenceSnapshot | null;
  /** Extra content inside a tab's nav button, after its label; it must name the tab itself. */
  indicators?: Partial<Record<TabId, ReactNode>>;
}) {
  const hosts = presence?.active.map((a) => a.hostname).join(', ') ?? '';
  const onKeyDown = (e: KeyboardEvent<HTMLUListElement>) => {
    const items = [...e.currentTarget.querySelectorAll<HTMLButtonElement>('.nav-item')];
    const to = navKeyTarget(e.key, items.indexOf(document.activeElement as HTMLButtonElement), items.length);
    if (to === null) return;
    e.preventDefault();
    items[to].focus();
  };
  return (
    <nav className="sidebar" aria-label="Sections">
      <div className="brand">Relay</div>
      <ul className="nav-list" onKeyDown={onKeyDown}>
        {TABS.map((t) => (
          <li key={t.id}>
            <button
              type="button"
              data-testid={`nav-${t.id}`}
              data-label={t.label}
              className={t.id === active ? 'nav-item nav-item-active' : 'nav-item'}
              aria-current={t.id === active ? 'page' : undefined}
              onClick={() => onSelect(t.id)}
            >
              <span className="nav-label" aria-hidden={indicators[t.id] ? true : undefined}>
                {t.label}
              </span>
              {indicators[t.id]}
            </button>
          </li>
        ))}
      </ul>
      <div className="sidebar-footer">
        <div className="client-count muted" data-testid="client-count" title={hosts}>
          {presence ? `${presence.activeCount} ${presence.activeCount === 1 ? 'client' : 'clients'}` : '— clients'}
        </div>
        <DashboardsLauncher />
        <button type="button" className="button button-ghost" data-testid="sign-out" onClick={onSignOut}>
          Sign out
        </button>
      </div>
    </nav>
  );
}
