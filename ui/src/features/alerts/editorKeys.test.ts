// The body editor's shortcut table (editorKeys.ts): Ctrl or Cmd with B/I/U, 1..5, 0 and K; digits
// by key code; nothing with Alt or Shift, nothing without a modifier, nothing for other keys.
import { describe, expect, it } from 'vitest';
import { editorAction } from './editorKeys';

const k = (key: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean; code: string }> = {}) => ({
  key, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods,
});

describe('editorAction', () => {
  it('maps B/I/U to the marks, with Ctrl or Cmd, either case', () => {
    expect(editorAction(k('b', { ctrlKey: true }))).toEqual({ type: 'mark', cmd: 'bold' });
    expect(editorAction(k('I', { metaKey: true }))).toEqual({ type: 'mark', cmd: 'italic' });
    expect(editorAction(k('u', { ctrlKey: true }))).toEqual({ type: 'mark', cmd: 'underline' });
  });

  it('maps 1..5 to deadline, warning, success, number, service and 0 to none', () => {
    const kinds = ['1', '2', '3', '4', '5'].map((d) => editorAction(k(d, { ctrlKey: true, code: `Digit${d}` })));
    expect(kinds).toEqual(['deadline', 'warning', 'success', 'number', 'service'].map((kind) => ({ type: 'highlight', kind })));
    expect(editorAction(k('0', { metaKey: true, code: 'Digit0' }))).toEqual({ type: 'highlight', kind: null });
    // AZERTY: Ctrl+& is the Digit1 key.
    expect(editorAction(k('&', { ctrlKey: true, code: 'Digit1' }))).toEqual({ type: 'highlight', kind: 'deadline' });
    expect(editorAction(k('3', { ctrlKey: true, code: 'Numpad3' }))).toEqual({ type: 'highlight', kind: 'success' });
  });

  it('maps K to a link and leaves everything else', () => {
    expect(editorAction(k('k', { ctrlKey: true }))).toEqual({ type: 'link' });
    expect(editorAction(k('b'))).toBeNull();
    expect(editorAction(k('b', { ctrlKey: true, shiftKey: true }))).toBeNull();
    expect(editorAction(k('2', { ctrlKey: true, altKey: true, code: 'Digit2' }))).toBeNull();
    expect(editorAction(k('6', { ctrlKey: true, code: 'Digit6' }))).toBeNull();
    expect(editorAction(k('c', { ctrlKey: true }))).toBeNull();
  });
});
