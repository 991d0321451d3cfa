// The stored alert draft: restored whole over emptyDraft, rules re-checked (severity, UPDATE
// counter, image sources), an empty draft is not kept, and a full round trip through storage.
import { describe, expect, it } from 'vitest';
import { loadDraft, saveDraft, type DraftStorage } from '../../lib/windowDrafts';
import { emptyDraft, type AlertDraft } from './alerts';
import { ALERT_DRAFT, draftSendKey, isEmptyAlertDraft, isUnsentDraft, restoreAlertDraft } from './alertDraftStore';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const draft = (p: Partial<AlertDraft> = {}): AlertDraft => ({ ...emptyDraft, ...p });

function memory(): DraftStorage {
  const m = new Map<string, string>();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v), removeItem: (k) => void m.delete(k) };
}

describe('alert draft store', () => {
  it('round-trips a whole draft through the window storage', () => {
    const s = memory();
    const d = draft({ severity: 'ISSUE', subject: 'VPN down', body: 'Users cannot connect.\n[image 1]', images: { 1: { src: PNG, alt: 'map' } }, sender: 'NOC', recipient: 'All', update: 2, start: '2026-12-06T10:00', end: '2026-12-06T11:00', timeZone: 'Europe/London' });
    expect(saveDraft(ALERT_DRAFT, d, s)).toBe(true);
    expect(loadDraft(ALERT_DRAFT, restoreAlertDraft, s)).toEqual(d);
  });

  it('re-checks the fields with rules and fills missing ones from emptyDraft', () => {
    const restored = restoreAlertDraft({ severity: 'PANIC', subject: 'x', update: 9999, images: { 1: { src: 'javascript:alert(1)', alt: 'x' }, 2: { src: PNG, alt: 'ok' }, x: { src: PNG, alt: 'bad key' } } });
    expect(restored).toMatchObject({ severity: 'INFO', subject: 'x', body: '', images: { 2: { src: PNG, alt: 'ok' } } });
    expect(restored!.update).toBeLessThan(9999);
    expect(restoreAlertDraft({ update: -3 })!.update).toBe(0);
    expect(restoreAlertDraft({ subject: 42, body: ['x'] })).toEqual(emptyDraft);
    expect(restoreAlertDraft('subject')).toBeNull();
  });

  it('an untouched draft is empty whatever its time zone; any typed field is not', () => {
    expect(isEmptyAlertDraft(emptyDraft)).toBe(true);
    expect(isEmptyAlertDraft(draft({ timeZone: 'Asia/Tokyo' }))).toBe(true);
    expect(isEmptyAlertDraft(draft({ subject: 'x' }))).toBe(false);
    expect(isEmptyAlertDraft(draft({ severity: 'ISSUE' }))).toBe(false);
    expect(isEmptyAlertDraft(draft({ update: 1 }))).toBe(false);
  });

  it('a send key covers every field a send puts out, images included', () => {
    const d = draft({ subject: 'VPN down', body: 'x\n[image 1]', images: { 1: { src: PNG, alt: 'a' } } });
    expect(draftSendKey(d)).toBe(draftSendKey({ ...d }));
    for (const p of [{ subject: 'VPN up' }, { severity: 'ISSUE' as const }, { update: 2 }, { start: '2026-12-06T10:00' }, { sender: 'NOC' }, { images: { 1: { src: PNG, alt: 'b' } } }]) {
      expect(draftSendKey({ ...d, ...p })).not.toBe(draftSendKey(d));
    }
  });

  it('a draft is unsent until exactly its content was sent; an empty one never is', () => {
    const d = draft({ subject: 'VPN down' });
    expect(isUnsentDraft(d, null)).toBe(true);
    expect(isUnsentDraft(d, draftSendKey(d))).toBe(false);
    expect(isUnsentDraft({ ...d, subject: 'VPN down (edited)' }, draftSendKey(d))).toBe(true);
    expect(isUnsentDraft(emptyDraft, null)).toBe(false);
  });
});
