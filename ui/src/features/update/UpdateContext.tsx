// Desktop only: one UpdateController for the signed-in shell, started when the shell mounts and
// stopped when it unmounts, shared by the header's "Update · vX.Y.Z" action and Settings →
// About. Outside the desktop shell (browsers) there is none and both render nothing. The bridge
// is also About's release-notes source when it has `updateReleaseNotes` (feature-detected).
import { createContext, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import { DesktopBridge } from '../../transport/desktop';
import { releaseNotesSource, type ReleaseNotesSource } from './ReleaseNotes';
import { UpdateController, type UpdateBridge, type UpdateViewState } from './updateController';

interface UpdateShell {
  controller: UpdateController | null;
  notes: ReleaseNotesSource | null;
}

const NO_SHELL: UpdateShell = { controller: null, notes: null };
const UpdateContext = createContext<UpdateShell>(NO_SHELL);

/**
 * `bridge` replaces the one read from `w` (tests pass a fake updater with or without
 * `updateReleaseNotes`); without either there is no updater.
 */
export function UpdateProvider({ w = globalThis, bridge, children }: { w?: unknown; bridge?: UpdateBridge; children: ReactNode }) {
  const [shell] = useState((): UpdateShell => {
    const b = bridge ?? DesktopBridge.of(w);
    return b ? { controller: new UpdateController(b), notes: releaseNotesSource(b) } : NO_SHELL;
  });
  const { controller } = shell;
  useEffect(() => {
    if (!controller) return;
    void controller.start();
    return () => controller.stop();
  }, [controller]);
  return <UpdateContext.Provider value={shell}>{children}</UpdateContext.Provider>;
}

const NO_STATE = (): UpdateViewState | null => null;
const NO_SUBSCRIPTION = () => () => undefined;

/**
 * The shell's update controller and its state (both null outside the desktop shell), and the
 * release-notes source (null also when the bridge has no `updateReleaseNotes`).
 */
export function useUpdate(): { controller: UpdateController | null; state: UpdateViewState | null; notes: ReleaseNotesSource | null } {
  const { controller, notes } = useContext(UpdateContext);
  const getState = controller?.getState ?? NO_STATE;
  const state = useSyncExternalStore(controller?.subscribe ?? NO_SUBSCRIPTION, getState, getState);
  return { controller, state, notes };
}
