// Signed-in layout: sidebar, the active tab's view, and the status bar.
import { useState } from 'react';
import { PeopleView } from '../people/PeopleView';
import { Sidebar } from './Sidebar';
import { StatusBar } from './StatusBar';
import { DEFAULT_TAB, tabLabel, type TabId } from './tabs';

function Placeholder({ id }: { id: TabId }) {
  return (
    <section className="view">
      <h2 className="view-title">{tabLabel(id)}</h2>
      <p className="muted">Not built yet.</p>
    </section>
  );
}

export function Shell({ onSignOut }: { onSignOut: () => void }) {
  const [tab, setTab] = useState<TabId>(DEFAULT_TAB);
  return (
    <div className="shell">
      <Sidebar active={tab} onSelect={setTab} onSignOut={onSignOut} />
      <main className="content">{tab === 'people' ? <PeopleView /> : <Placeholder id={tab} />}</main>
      <StatusBar />
    </div>
  );
}
