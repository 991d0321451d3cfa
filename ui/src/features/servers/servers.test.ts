import { describe, expect, it } from 'vitest';
import type { Contact } from '../people/contacts';
import { contactIndex, resolvePerson } from './servers';

const c = (id: string, created: string, name: string, email: string): Contact => ({ id, created, updated: created, name, email });

describe('owner resolution with duplicate contacts', () => {
  it('resolves a shared email to the earliest-created contact, whatever the list order', () => {
    const older = c('aaaaaaaaaaaaaaa', '2026-01-01 00:00:00.000Z', 'Zed Original', 'ops@example.com');
    const newer = c('bbbbbbbbbbbbbbb', '2026-06-01 00:00:00.000Z', 'Amy Duplicate', 'OPS@example.com');
    expect(resolvePerson('ops@example.com', contactIndex([older, newer]))?.id).toBe(older.id);
    expect(resolvePerson('ops@example.com', contactIndex([newer, older]))?.id).toBe(older.id);
  });
  it('prefers an email match over another contact whose name equals the value', () => {
    const byEmail = c('bbbbbbbbbbbbbbb', '2026-06-01 00:00:00.000Z', 'Real Owner', 'noc');
    const byName = c('aaaaaaaaaaaaaaa', '2026-01-01 00:00:00.000Z', 'NOC', 'someone@example.com');
    expect(resolvePerson('noc', contactIndex([byName, byEmail]))?.id).toBe(byEmail.id);
  });
});
