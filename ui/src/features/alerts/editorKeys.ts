// The alert body editor's keyboard shortcuts (RichBodyEditor.tsx): Ctrl/Cmd+B/I/U for bold,
// italic, underline; Ctrl/Cmd+1..5 for the five highlights (by the digit key's code, so layouts
// whose digits need Shift still work) and Ctrl/Cmd+0 to remove one; Ctrl/Cmd+K for a link. Pure:
// it maps a key event to an action and performs nothing. Alt or Shift combinations are not taken.
import { HIGHLIGHTS, type Highlight } from './richBody';

export type EditorAction =
  | { type: 'mark'; cmd: 'bold' | 'italic' | 'underline' }
  | { type: 'highlight'; kind: Highlight | null }
  | { type: 'link' };

export interface EditorKey {
  key: string;
  code?: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

const MARK_KEYS = { b: 'bold', i: 'italic', u: 'underline' } as const;

export function editorAction(e: EditorKey): EditorAction | null {
  if (!(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey) return null;
  const key = e.key.toLowerCase();
  if (key in MARK_KEYS) return { type: 'mark', cmd: MARK_KEYS[key as keyof typeof MARK_KEYS] };
  const digit = /^(?:Digit|Numpad)([0-5])$/.exec(e.code ?? '')?.[1] ?? (/^[0-5]$/.test(e.key) ? e.key : null);
  if (digit !== null) return { type: 'highlight', kind: digit === '0' ? null : HIGHLIGHTS[Number(digit) - 1].id };
  if (key === 'k') return { type: 'link' };
  return null;
}
