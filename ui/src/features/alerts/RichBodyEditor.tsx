// The alert body editor (issue #19): a contentEditable textbox with its toolbar. Bold, italic,
// underline (Ctrl/Cmd+B/I/U) and bulleted/numbered lists go through the browser's execCommand;
// links (Ctrl/Cmd+K) only with an http, https or mailto address; the five highlights
// (a menu, or Ctrl/Cmd+1..5; Ctrl/Cmd+0 removes) through richBody's applyHighlight. Every paste and drop is
// taken over: HTML is sanitized to the allowlist before it reaches the editor, plain text goes in
// as text, and nothing is inserted past the character limit. A paste or a drop that carries an
// image file and no text (a screenshot) is handed to `onImage` (the composer's "Insert image"
// flow, with its checks and the server's preparation) and inserts nothing itself. The DOM is the
// editor's own while the operator types; what leaves it (onChange) is always richBody's sanitized
// canonical form, and a value from outside (load, reset) replaces the content. It owns no draft
// state.
import { forwardRef, useEffect, useImperativeHandle, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { transferImage } from './bodyImages';
import { editorAction } from './editorKeys';
import { applyHighlight, cleanRich, highlightAt, HIGHLIGHTS, insertLineAt, isHighlight, pastePlan, richLength, safeHref, sanitizeRich, textToRich, type Highlight } from './richBody';

export interface RichBodyEditorHandle {
  /** Puts `text` on a line of its own at the caret (the end when there was none); answers the new body. */
  insertLine(text: string): string;
}

const MARKS = [
  // A one-letter face names itself through aria-label; the lists show a glyph and name themselves
  // in hidden text, so the visible text stays part of the accessible name (WCAG 2.5.3).
  { cmd: 'bold', label: 'Bold', text: 'B', key: 'B' },
  { cmd: 'italic', label: 'Italic', text: 'I', key: 'I' },
  { cmd: 'underline', label: 'Underline', text: 'U', key: 'U' },
  { cmd: 'insertUnorderedList', label: 'Bulleted list', text: '•', key: null },
  { cmd: 'insertOrderedList', label: 'Numbered list', text: '1.', key: null },
] as const;
type Mark = (typeof MARKS)[number]['cmd'];

interface Props {
  id: string;
  labelId: string;
  value: string;
  onChange: (body: string) => void;
  maxLength: number;
  testId?: string;
  /** An image pasted or dropped without text; without a handler such a paste inserts nothing. */
  onImage?: (file: File) => void;
}

/** The shortcut's modifier as this platform writes it. */
/** The node a range starts in: its text node, or the element right after an element boundary. */
const nodeAtStart = (r: Range): Node => (r.startContainer.nodeType === Node.TEXT_NODE ? r.startContainer : r.startContainer.childNodes[r.startOffset] ?? r.startContainer);

const MOD = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform) ? 'Cmd' : 'Ctrl';

export const RichBodyEditor = forwardRef<RichBodyEditorHandle, Props>(function RichBodyEditor({ id, labelId, value, onChange, maxLength, testId, onImage }, ref) {
  const root = useRef<HTMLDivElement>(null);
  // The last selection inside the editor: toolbar buttons and "Insert image" act on it.
  const saved = useRef<Range | null>(null);
  // The value the editor's content stands for; any other value came from outside.
  const shown = useRef<string | null>(null);
  const [pressed, setPressed] = useState<Partial<Record<Mark, boolean>>>({});
  const [hl, setHl] = useState<Highlight | null>(null);
  const [inLink, setInLink] = useState(false);
  const [link, setLink] = useState<{ url: string; error: string | null } | null>(null);
  const [notice, setNotice] = useState('');
  const change = useRef(onChange);
  change.current = onChange;

  useLayoutEffect(() => {
    const el = root.current;
    if (!el || value === shown.current) return;
    el.replaceChildren(sanitizeRich(value));
    shown.current = value;
    saved.current = null;
  }, [value]);

  /** The editor's content in canonical form, remembered as shown. */
  const read = () => {
    const v = cleanRich(root.current?.innerHTML ?? '');
    shown.current = v;
    return v;
  };
  const sync = () => change.current(read());

  const rangeInEditor = (): Range | null => {
    const sel = document.getSelection();
    const el = root.current;
    if (!el || !sel || sel.rangeCount === 0) return null;
    const r = sel.getRangeAt(0);
    return el.contains(r.commonAncestorContainer) ? r : null;
  };
  const select = (r: Range) => {
    const sel = document.getSelection();
    sel?.removeAllRanges();
    sel?.addRange(r);
  };
  /** Focus in the editor with its last selection back (the end when it never had one). */
  const restore = (): Range | null => {
    const el = root.current;
    if (!el) return null;
    if (document.activeElement !== el) {
      el.focus();
      const back = saved.current && el.contains(saved.current.commonAncestorContainer) ? saved.current.cloneRange() : null;
      if (back) select(back);
    }
    if (!rangeInEditor()) {
      const end = document.createRange();
      end.selectNodeContents(el);
      end.collapse(false);
      select(end);
    }
    return rangeInEditor();
  };

  const refresh = () => {
    const r = rangeInEditor();
    if (!r) return;
    saved.current = r.cloneRange();
    const state: Partial<Record<Mark, boolean>> = {};
    for (const m of MARKS) {
      try {
        state[m.cmd] = document.queryCommandState(m.cmd);
      } catch {
        state[m.cmd] = false;
      }
    }
    setPressed(state);
    const at = nodeAtStart(r);
    const span = highlightAt(at, root.current!);
    setHl((span?.getAttribute('data-hl') as Highlight | undefined) ?? null);
    setInLink(!!anchorAt(at));
  };

  const anchorAt = (node: Node | null): HTMLAnchorElement | null => {
    for (let n = node; n && n !== root.current; n = n.parentNode) if (n instanceof HTMLAnchorElement) return n;
    return null;
  };

  useEffect(() => {
    const onSel = () => {
      if (rangeInEditor()) refresh();
    };
    document.addEventListener('selectionchange', onSel);
    return () => document.removeEventListener('selectionchange', onSel);
  });

  const exec = (cmd: string, arg?: string) => {
    restore();
    document.execCommand('styleWithCSS', false, 'false');
    document.execCommand(cmd, false, arg);
    sync();
    refresh();
  };

  const highlight = (kind: Highlight | null) => {
    const r = restore();
    const el = root.current;
    if (!r || !el) return;
    const next = applyHighlight(el, r, kind);
    if (!next) {
      setNotice(kind ? 'Select the text to highlight first.' : '');
      return;
    }
    setNotice('');
    select(next);
    sync();
    refresh();
  };

  /** Room left for new text when the selection's text is replaced. */
  const room = (r: Range | null) => maxLength - richLength(shown.current ?? '') + (r ? r.toString().length : 0);

  /** HTML (sanitized by pastePlan) or plain text from a paste or a drop, at the selection. */
  const insertTransfer = (html: string, text: string) => {
    const r = restore();
    if (!r) return;
    const plan = pastePlan(html, text, room(r));
    const limit = `The body is limited to ${maxLength.toLocaleString('en-US')} characters`;
    if (plan.kind === 'none') {
      setNotice(html || text ? `${limit}: nothing more fits.` : '');
      return;
    }
    setNotice(plan.kind === 'text' && plan.shortened ? `${limit}: the pasted text was shortened.` : '');
    if (plan.kind === 'text' && document.execCommand('insertText', false, plan.text)) {
      sync();
      refresh();
      return;
    }
    const frag = sanitizeRich(plan.kind === 'html' ? plan.html : textToRich(plan.text));
    const last = frag.lastChild;
    r.deleteContents();
    r.insertNode(frag);
    if (last) {
      const caret = document.createRange();
      caret.setStartAfter(last);
      caret.collapse(true);
      select(caret);
    }
    sync();
    refresh();
  };

  /** A transfer that is an image without text goes to `onImage` (at the caret, kept as the saved selection). */
  const takeImage = (data: DataTransfer | null): boolean => {
    const file = data ? transferImage({ files: data.files ?? [], text: data.getData('text/plain') }) : null;
    if (!file) return false;
    const r = rangeInEditor();
    if (r) saved.current = r.cloneRange();
    if (onImage) onImage(file as File);
    else setNotice('Images cannot be pasted here.');
    return true;
  };

  useEffect(() => {
    const el = root.current;
    if (!el) return;
    const beforeInput = (e: InputEvent) => {
      if (!e.inputType.startsWith('insert') || e.inputType === 'insertFromPaste' || e.inputType === 'insertLink') return;
      const r = rangeInEditor();
      if (room(r) <= 0) {
        e.preventDefault();
        setNotice(`The body is limited to ${maxLength.toLocaleString('en-US')} characters.`);
      }
    };
    el.addEventListener('beforeinput', beforeInput);
    return () => el.removeEventListener('beforeinput', beforeInput);
  });

  useImperativeHandle(ref, () => ({
    insertLine(text: string) {
      const el = root.current;
      if (!el) return shown.current ?? value;
      const at = rangeInEditor() ?? (saved.current && el.contains(saved.current.commonAncestorContainer) ? saved.current : null);
      const caret = insertLineAt(el, at, text);
      saved.current = caret;
      if (document.activeElement === el) select(caret);
      return read();
    },
  }));

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const action = editorAction(e);
    if (!action) return;
    e.preventDefault(); // also keeps the Shell's Ctrl+1..7 and Ctrl+K from acting (shell/shortcuts.ts)
    if (action.type === 'mark') exec(action.cmd);
    else if (action.type === 'highlight') highlight(action.kind);
    else openLink();
  };

  const openLink = () => {
    const r = restore();
    const a = r ? anchorAt(nodeAtStart(r)) : null;
    setLink({ url: a?.getAttribute('href') ?? '', error: null });
  };
  const closeLink = () => {
    setLink(null);
    restore();
  };
  // Restores the saved selection; a caret inside a link selects the whole link, so the link
  // command that follows acts on all of it.
  const restoreWholeLink = () => {
    const r = restore();
    const a = r ? anchorAt(nodeAtStart(r)) : null;
    if (r && a && r.collapsed) {
      const all = document.createRange();
      all.selectNodeContents(a);
      select(all);
    }
  };
  const applyLink = () => {
    if (!link) return;
    const href = safeHref(link.url);
    if (!href) return setLink({ ...link, error: 'Use a full http://, https:// or mailto: address.' });
    setLink(null);
    restoreWholeLink();
    exec('createLink', href);
  };
  const removeLink = () => {
    setLink(null);
    restoreWholeLink();
    exec('unlink');
  };

  const length = richLength(value);
  const keep = (e: { preventDefault(): void }) => e.preventDefault(); // a toolbar click keeps the editor's selection
  return (
    <div className="rich-body">
      <div className="rich-toolbar" role="group" aria-label="Body formatting">
        {MARKS.map((m) => (
          <button key={m.cmd} type="button" className={`button button-ghost small rich-btn rich-${m.cmd}`} data-testid={`rich-${m.cmd}`}
            aria-pressed={!!pressed[m.cmd]} aria-label={m.key ? m.label : undefined} title={m.key ? `${m.label} (${MOD}+${m.key})` : m.label}
            aria-keyshortcuts={m.key ? `Control+${m.key} Meta+${m.key}` : undefined} onMouseDown={keep} onClick={() => exec(m.cmd)}>
            {m.text}{!m.key && <span className="visually-hidden"> {m.label}</span>}
          </button>
        ))}
        <button type="button" className="button button-ghost small rich-btn" data-testid="rich-link" aria-pressed={inLink} aria-expanded={!!link}
          title={`Link (${MOD}+K)`} aria-keyshortcuts="Control+K Meta+K" onMouseDown={keep} onClick={() => (link ? closeLink() : openLink())}>
          Link
        </button>
        <select className="input rich-hl-select" data-testid="rich-hl" aria-label="Highlight" data-hl={hl ?? undefined} value={hl ?? ''}
          title={`Highlight the selected text (${MOD}+1..5; ${MOD}+0 removes)`} aria-keyshortcuts="Control+1 Control+2 Control+3 Control+4 Control+5 Control+0"
          onChange={(e) => highlight(isHighlight(e.target.value) ? e.target.value : null)}>
          <option value="">No highlight ({MOD}+0)</option>
          {HIGHLIGHTS.map((h) => <option key={h.id} value={h.id}>{h.label} ({MOD}+{h.key})</option>)}
        </select>
      </div>
      {link && (
        <div className="rich-link-form" data-testid="rich-link-form">
          <label className="field-label" htmlFor={`${id}-link`}>Link address</label>
          <input id={`${id}-link`} className="input grow" type="url" autoFocus placeholder="https://…" data-testid="rich-link-url" value={link.url}
            aria-invalid={!!link.error} aria-describedby={link.error ? `${id}-link-error` : undefined}
            onChange={(e) => setLink({ url: e.target.value, error: null })}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                applyLink();
              } else if (e.key === 'Escape') {
                e.preventDefault();
                e.stopPropagation();
                closeLink();
              }
            }} />
          <button type="button" className="button button-primary small" data-testid="rich-link-apply" onClick={applyLink}>Apply</button>
          {inLink && <button type="button" className="button button-ghost small" data-testid="rich-link-remove" onClick={removeLink}>Remove link</button>}
          <button type="button" className="button button-ghost small" onClick={closeLink}>Cancel</button>
          {link.error && <p className="error-text" id={`${id}-link-error`} role="alert">{link.error}</p>}
        </div>
      )}
      <div ref={root} id={id} className="input rich-editor pre" contentEditable role="textbox" aria-multiline="true" aria-labelledby={labelId}
        aria-describedby={`${id}-count`} data-testid={testId} spellCheck
        onInput={sync} onKeyDown={onKeyDown}
        onPaste={(e) => {
          e.preventDefault();
          if (takeImage(e.clipboardData)) return;
          insertTransfer(e.clipboardData.getData('text/html'), e.clipboardData.getData('text/plain'));
        }}
        onDrop={(e) => {
          e.preventDefault();
          const at = document.caretRangeFromPoint?.(e.clientX, e.clientY);
          if (at && root.current?.contains(at.startContainer)) {
            root.current.focus();
            select(at);
          }
          if (takeImage(e.dataTransfer)) return;
          insertTransfer(e.dataTransfer.getData('text/html'), e.dataTransfer.getData('text/plain'));
        }} />
      <div className="row-wrap">
        <span id={`${id}-count`} className={`small ${length > maxLength ? 'warn-text' : 'muted'}`} data-testid={`${testId}-count`}>
          {length.toLocaleString('en-US')}/{maxLength.toLocaleString('en-US')} characters
        </span>
        <span className="muted small" role="status" data-testid={`${testId}-notice`}>{notice}</span>
      </div>
    </div>
  );
});
