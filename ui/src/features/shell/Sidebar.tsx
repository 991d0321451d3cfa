// Left navigation: one button per tab, plus sign-out.
import { TABS, type TabId } from './tabs';

export function Sidebar({
  active,
  onSelect,
  onSignOut,
}: {
  active: TabId;
  onSelect: (id: TabId) => void;
  onSignOut: () => void;
}) {
  return (
    <nav className="sidebar" aria-label="Sections">
      <div className="brand">Relay</div>
      <ul className="nav-list">
        {TABS.map((t) => (
          <li key={t.id}>
            <button
              type="button"
              data-testid={`nav-${t.id}`}
              className={t.id === active ? 'nav-item nav-item-active' : 'nav-item'}
              aria-current={t.id === active ? 'page' : undefined}
              onClick={() => onSelect(t.id)}
            >
              {t.label}
            </button>
          </li>
        ))}
      </ul>
      <button type="button" className="button button-ghost sidebar-signout" onClick={onSignOut}>
        Sign out
      </button>
    </nav>
  );
}
