// Shell-wide state shared by the views: the active tab, the Compose recipient state
// (People/search add to it), and the header search query that filters list tabs.
import { createContext, useContext, type Dispatch } from 'react';
import type { ComposeAction, ComposeState } from '../../lib/recipients';
import type { TabId } from './tabs';

export interface ShellApi {
  tab: TabId;
  go: (tab: TabId) => void;
  compose: ComposeState;
  composeDispatch: Dispatch<ComposeAction>;
  /** Header query, debounced 300 ms; filters People, Servers and Notes. */
  listQuery: string;
  /** Ask a view to open a record (e.g. a server picked in search). */
  focusRecord: { tab: TabId; id: string; seq: number } | null;
  openRecord: (tab: TabId, id: string) => void;
}

export const ShellContext = createContext<ShellApi | null>(null);

export function useShell(): ShellApi {
  const s = useContext(ShellContext);
  if (!s) throw new Error('useShell() outside the Shell');
  return s;
}
