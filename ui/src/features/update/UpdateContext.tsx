// Desktop only: one UpdateController for the signed-in shell, started when the shell mounts and
// stopped when it unmounts, shared by the header's "Update · vX.Y.Z" action and Settings →
// About. Outside the desktop shell (browsers) there is none and both render nothing.
import { createContext, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import { DesktopBridge } from '../../transport/desktop';
import { UpdateController, type UpdateViewState } from './updateController';

const UpdateContext = createContext<UpdateController | null>(null);

export function UpdateProvider({ w = globalThis, children }: { w?: unknown; children: ReactNode }) {
  const [controller] = useState(() => {
    const bridge = DesktopBridge.of(w);
    return bridge ? new UpdateController(bridge) : null;
  });
  useEffect(() => {
    if (!controller) return;
    void controller.start();
    return () => controller.stop();
  }, [controller]);
  return <UpdateContext.Provider value={controller}>{children}</UpdateContext.Provider>;
}

const NO_STATE = (): UpdateViewState | null => null;
const NO_SUBSCRIPTION = () => () => undefined;

/** The shell's update controller and its state (both null outside the desktop shell). */
export function useUpdate(): { controller: UpdateController | null; state: UpdateViewState | null } {
  const controller = useContext(UpdateContext);
  const getState = controller?.getState ?? NO_STATE;
  const state = useSyncExternalStore(controller?.subscribe ?? NO_SUBSCRIPTION, getState, getState);
  return { controller, state };
}
