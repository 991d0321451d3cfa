// Sidebar footer launcher for this device's Dynatrace dashboards (relay-features §2, §9): hidden
// with none; with one, a button that opens it; with several, a button that opens a popover menu
// of them (the shared ContextMenu: ↑/↓, Home/End, Enter opens, Esc closes and focus returns to
// the button). It follows the list as Settings changes it (same window) or another window does.
import { useRef, useState } from 'react';
import { ContextMenu, type MenuCloseReason } from '../../components/ContextMenu';
import { useToast } from '../../components/Toasts';
import { useTransport } from '../../transport/context';
import type { DynatraceDashboard } from './dashboards';
import { usePopoutStates } from './popoutStates';
import { useDashboards } from './useDashboards';

const MENU_ITEM_PX = 34;

export function DashboardsLauncherView({
  dashboards,
  onOpen,
}: {
  dashboards: readonly DynatraceDashboard[];
  onOpen: (d: DynatraceDashboard) => void;
}) {
  const button = useRef<HTMLButtonElement>(null);
  const [menu, setMenu] = useState<{ x: number; y: number } | null>(null);
  if (dashboards.length === 0) return null;
  if (dashboards.length === 1) {
    const d = dashboards[0];
    return (
      <button type="button" className="button button-ghost dt-launcher" data-testid="dt-launcher" title={`Open the Dynatrace dashboard ${d.name}`}
        onClick={() => onOpen(d)}>
        Dashboard: {d.name}
      </button>
    );
  }
  const open = () => {
    const r = button.current?.getBoundingClientRect();
    const height = dashboards.length * MENU_ITEM_PX + 16;
    // Above the button (the sidebar footer sits at the bottom of the window); ContextMenu keeps it on screen.
    setMenu({ x: r?.left ?? 0, y: r ? Math.max(8, r.top - height - 4) : 0 });
  };
  const close = (reason: MenuCloseReason) => {
    setMenu(null);
    if (reason === 'escape' || reason === 'pick') button.current?.focus();
  };
  return (
    <>
      <button ref={button} type="button" className="button button-ghost dt-launcher" data-testid="dt-launcher"
        aria-haspopup="menu" aria-expanded={menu !== null} aria-controls={menu ? 'dt-launcher-menu' : undefined}
        onClick={() => (menu ? close('escape') : open())}
        onKeyDown={(e) => {
          if (menu || (e.key !== 'ArrowDown' && e.key !== 'ArrowUp')) return;
          e.preventDefault();
          open();
        }}>
        Dashboards ({dashboards.length})
      </button>
      {menu && (
        <ContextMenu id="dt-launcher-menu" x={menu.x} y={menu.y} label="Dynatrace dashboards" anchor={button} testId="dt-launcher-menu" onClose={close}
          items={dashboards.map((d) => ({ label: d.name, onSelect: () => onOpen(d) }))} />
      )}
    </>
  );
}

export function DashboardsLauncher() {
  const transport = useTransport();
  const toast = useToast();
  const dashboards = useDashboards();
  // A dashboard window that lands on a sign-in page warns once (desktop main window only).
  usePopoutStates((keys) => {
    for (const key of keys) {
      const d = dashboards.find((x) => x.id === key);
      toast('warning', `Dynatrace dashboard signed out${d ? `: ${d.name}` : ''}`);
    }
  });
  return (
    <DashboardsLauncherView
      dashboards={dashboards}
      onOpen={(d) => {
        transport.openDynatraceDashboard(d.url, d.id).catch((e: unknown) =>
          toast('error', `Could not open ${d.name}: ${e instanceof Error && e.message ? e.message : String(e)}`),
        );
      }}
    />
  );
}
