// Desktop only: the header's "Update · vX.Y.Z" action, shown while a newer release is known
// (installable or advisory); it opens the Update dialog.
import { useState } from 'react';
import { UpdateDialog } from './UpdateDialog';
import { useUpdate } from './UpdateContext';
import { headerLabel } from './updateModel';

export function UpdateHeaderAction() {
  const { controller, state } = useUpdate();
  const [open, setOpen] = useState(false);
  const label = headerLabel(state?.snapshot ?? null);
  if (!controller || !state) return null;
  return (
    <>
      {label && (
        <button type="button" className="button update-action" data-testid="update-open" aria-haspopup="dialog" onClick={() => setOpen(true)}>
          {label}
        </button>
      )}
      {open && <UpdateDialog controller={controller} state={state} onClose={() => setOpen(false)} />}
    </>
  );
}
