// This device's Dynatrace dashboards, kept current: every save in this window (Settings) and
// every `storage` event for the key (another window or tab) re-reads the list.
import { useEffect, useState } from 'react';
import { loadDashboards, subscribeDashboards, type DynatraceDashboard } from './dashboards';

export function useDashboards(): DynatraceDashboard[] {
  const [list, setList] = useState(() => loadDashboards());
  useEffect(() => {
    setList(loadDashboards()); // a save between the first render and this effect
    return subscribeDashboards(() => setList(loadDashboards()));
  }, []);
  return list;
}
