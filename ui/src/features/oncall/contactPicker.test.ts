// The On-Call Name suggestions: two contacts of the same name are both offered, each with the
// detail that tells them apart, and a name typed in full is ambiguous rather than either of them.
import { describe, expect, it } from 'vitest';
import type { Contact } from '../people/contacts';
import { nameSuggestions, typedNameMatch } from './contactPicker';

const contact = (id: string, name: string, phone: string, email = ''): Contact => ({ id, name, phone, email, created: '', updated: '' });
const CONTACTS = [
  contact('c1', 'Alex Kim', '3125550101', 'alex.kim@corp.test'),
  contact('c2', 'Alex Kim', '3125550202', 'alex.kim2@corp.test'),
  contact('c3', 'Blair Doe', '3125550303'),
];

describe('nameSuggestions', () => {
  it('offers every contact of a shared name, told apart by phone and email', () => {
    const s = nameSuggestions('alex', CONTACTS);
    expect(s.map((x) => x.id).sort()).toEqual(['c1', 'c2']);
    expect(new Set(s.map((x) => x.detail)).size).toBe(2);
    expect(s.find((x) => x.id === 'c2')?.detail).toContain('alex.kim2@corp.test');
  });
  it('offers nothing for a blank query and skips nameless contacts', () => {
    expect(nameSuggestions('  ', CONTACTS)).toEqual([]);
    expect(nameSuggestions('555', [contact('x', '', '5550000')])).toEqual([]);
  });
});

describe('typedNameMatch', () => {
  it('is one contact only when exactly one has that name', () => {
    expect(typedNameMatch(' blair doe ', CONTACTS)).toMatchObject({ kind: 'one', contact: { id: 'c3' } });
  });
  it('is ambiguous when several contacts share the name (never the last one of them)', () => {
    expect(typedNameMatch('Alex Kim', CONTACTS)).toEqual({ kind: 'many', count: 2 });
  });
  it('is none for an unknown or blank name', () => {
    expect(typedNameMatch('Nobody', CONTACTS)).toEqual({ kind: 'none' });
    expect(typedNameMatch('', CONTACTS)).toEqual({ kind: 'none' });
  });
});
