// Alert composer image control (issue #17): the "Insert image" button opening a hidden file input,
// "Preparing image…" while the server prepares the file, its refusal as role="alert"; the flow is
// ./bodyImages runImageInsert over the transport's prepareAlertImage. An image pasted or dropped
// into the body (a screenshot) comes in through the control's handle (insertFile) and takes the
// same flow: the same checks, the same server preparation, its refusal shown here as
// "Pasted image not inserted: …". The preview that shows the images is ./RichBodyPreview.
import { forwardRef, useImperativeHandle, useRef, useState, type RefObject } from 'react';
import { useTransport } from '../../transport/context';
import { IDLE_INSERT, IMAGE_ACCEPT, PREPARING, runImageInsert, type BodyImage, type InsertState } from './bodyImages';

/** The control, drawn from its state (markup-tested without a DOM). */
export function InsertImageView({ state, inputRef, onPick, onFile }: {
  state: InsertState;
  inputRef?: RefObject<HTMLInputElement | null>;
  onPick: () => void;
  onFile: (file: File) => void;
}) {
  return (
    <div className="body-image-bar">
      <div className="row-wrap">
        <button type="button" className="button button-ghost small" data-testid="alert-insert-image" disabled={state.busy} onClick={onPick}>
          Insert image
        </button>
        <span className="muted small">PNG, JPEG or WebP under 5 MB; it shows in the body as a line [image N].</span>
        <input ref={inputRef} type="file" hidden accept={IMAGE_ACCEPT} data-testid="alert-image-file" disabled={state.busy}
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) onFile(file);
          }} />
      </div>
      <span className="muted small" role="status" data-testid="alert-image-status">{state.busy ? PREPARING : state.done ?? ''}</span>
      {state.error && <p className="error-text" role="alert" data-testid="alert-image-error">{state.error}</p>}
    </div>
  );
}

export interface InsertImageHandle {
  /** Runs the Insert image flow for a file pasted or dropped into the body. */
  insertFile(file: File): void;
}

/** Prefix of a refusal of a pasted or dropped image. */
export const PASTED_REFUSED = 'Pasted image not inserted:';

/** "Insert image": prepares the picked (or pasted) file on the server and hands the image to `onInsert`. */
export const InsertImage = forwardRef<InsertImageHandle, { onInsert: (image: BodyImage) => void }>(function InsertImage({ onInsert }, ref) {
  const transport = useTransport();
  const [state, setState] = useState<InsertState>(IDLE_INSERT);
  const input = useRef<HTMLInputElement>(null);
  const running = useRef(false);
  async function onFile(file: File, pasted = false) {
    if (running.current) return;
    running.current = true;
    const show = pasted ? (s: InsertState) => setState(s.error ? { ...s, error: `${PASTED_REFUSED} ${s.error}` } : s) : setState;
    try {
      await runImageInsert(file, (f) => transport.prepareAlertImage(f), show, onInsert);
    } finally {
      running.current = false;
    }
  }
  useImperativeHandle(ref, () => ({ insertFile: (file) => void onFile(file, true) }));
  return <InsertImageView state={state} inputRef={input} onPick={() => input.current?.click()} onFile={(f) => void onFile(f)} />;
});
