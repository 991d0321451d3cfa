// The UI's field limits must equal the server's. Reads the Rust sources the limits come from
// (domain/src/collections.rs and domain/src/validation.rs) and compares field by field.
import { describe, expect, it } from 'vitest';
import collectionsRs from '../../../domain/src/collections.rs?raw';
import validationRs from '../../../domain/src/validation.rs?raw';
import { EMAIL_PATTERN, LIMITS, fieldError, fieldLabel, validateRecord, type FieldLimit } from './limits';

const SOURCES: Record<string, string> = { 'collections.rs': collectionsRs, 'validation.rs': validationRs };
const domain = (f: string) => SOURCES[f];

/** { collection: { field: { max, required, email } } } parsed from collections.rs. */
function serverLimits() {
  const src = domain('collections.rs');
  const validation = domain('validation.rs');
  const consts: Record<string, number> = {};
  for (const m of (src + validation).matchAll(/pub const ([A-Z_]+): usize = ([\d_]+);/g)) consts[m[1]] = Number(m[2].replace(/_/g, ''));
  const num = (t: string) => (/^[\d_]+$/.test(t) ? Number(t.replace(/_/g, '')) : consts[t]);
  const out: Record<string, Record<string, { max: number; required: boolean; email?: boolean }>> = {};
  for (const block of src.split(/pub static [A-Z_]+: CollectionSpec = CollectionSpec \{/).slice(1)) {
    const name = /name: "([a-z_]+)"/.exec(block)![1];
    const fields: (typeof out)[string] = {};
    for (const m of block.matchAll(/\b(required_text|text)\("([A-Za-z]+)", ([A-Z_\d]+)\)/g)) {
      fields[m[2]] = { max: num(m[3]), required: m[1] === 'required_text' };
    }
    for (const m of block.matchAll(/name: "([A-Za-z]+)", kind: FieldKind::Email, required: (true|false)/g)) {
      fields[m[1]] = { max: consts.MAX_EMAIL_LEN, required: m[2] === 'true', email: true };
    }
    out[name] = fields;
  }
  return out;
}

describe('UI limits equal the server limits', () => {
  const server = serverLimits();
  it('parsed the Rust sources', () => {
    expect(server.contacts.name).toEqual({ max: 500, required: true });
    expect(server.oncall.teamId.max).toBe(500);
  });
  for (const [collection, fields] of Object.entries(LIMITS) as [string, Record<string, FieldLimit>][]) {
    it(`${collection}`, () => {
      for (const [field, limit] of Object.entries(fields)) {
        const s = server[collection]?.[field];
        expect(s, `${collection}.${field} exists on the server`).toBeDefined();
        expect(limit.max, `${collection}.${field} max`).toBe(s.max);
        expect(Boolean(limit.required), `${collection}.${field} required`).toBe(s.required);
        expect(Boolean(limit.email), `${collection}.${field} email`).toBe(Boolean(s.email));
      }
    });
  }
  it('uses the server email pattern', () => {
    const rust = /static EMAIL[\s\S]*?r"(\^[^"]+\$)"/.exec(domain('validation.rs'))![1].replace(/\\x22/g, '"');
    expect(EMAIL_PATTERN.source).toBe(rust.replace(/"/g, '"'));
  });
});

describe('field-level messages', () => {
  it('names the field the operator sees and the real limit, never the internal name', () => {
    const long = 'x'.repeat(501);
    const errs = validateRecord('oncall', { team: long, teamId: long.toLowerCase() });
    expect(errs.team).toBe('Team name must be at most 500 characters (now 501).');
    expect(errs.teamId).toBe('Team name must be at most 500 characters (now 501).');
    expect(Object.values(errs).join(' ')).not.toMatch(/teamId|character\(s\)/);
  });
  it('checks required fields only when asked, and emails by the server pattern', () => {
    expect(validateRecord('contacts', { name: '', email: '' }, { required: false })).toEqual({});
    expect(validateRecord('contacts', { name: ' ', email: 'nope' })).toEqual({
      name: 'Full name is required.',
      email: 'Email must be an address like name@example.com.',
    });
    expect(validateRecord('contacts', { name: 'Ada', email: 'ada@example.com', phone: '+442079460958' })).toEqual({});
  });
  it('counts code points like the server, so an emoji counts once', () => {
    const limit = { label: 'Title', max: 2 };
    expect(fieldError(limit, '🚨🚨')).toBeNull();
    expect(fieldError(limit, '🚨🚨🚨')).toMatch(/at most 2/);
  });
  it('maps server field names to labels', () => {
    expect(fieldLabel('teamId', 'oncall')).toBe('Team name');
    expect(fieldLabel('businessArea')).toBe('Business Area');
    expect(fieldLabel('someNewField')).toBe('Some New Field');
  });
});
