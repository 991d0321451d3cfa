// Field limits the server enforces, mirrored for field-level validation before save, and the
// operator-facing names of fields (never "teamId: …"). The numbers come from
// domain/src/collections.rs (NAME_LEN 500, FIELD_LEN 1000, NOTE_LEN 10_000, HTML_LEN 750_000, per-field literals)
// and domain/src/validation.rs (MAX_EMAIL_LEN 320, the email pattern); limits.test.ts reads
// those files and fails when they drift. Lengths count Unicode code points, as Rust's
// `chars().count()` does.

export const NAME_LEN = 500;
export const FIELD_LEN = 1000;
export const NOTE_LEN = 10_000;
/** The stored alert body HTML (inline images included). */
export const HTML_LEN = 750_000;
export const MAX_EMAIL_LEN = 320;

export interface FieldLimit {
  label: string;
  max: number;
  required?: boolean;
  email?: boolean;
}

/** Per collection, the fields the UI's forms write. */
export const LIMITS = {
  contacts: {
    name: { label: 'Full name', max: NAME_LEN, required: true },
    email: { label: 'Email', max: MAX_EMAIL_LEN, email: true },
    phone: { label: 'Phone', max: FIELD_LEN },
    title: { label: 'Job title', max: FIELD_LEN },
  },
  servers: {
    name: { label: 'Name', max: NAME_LEN, required: true },
    businessArea: { label: 'Business Area', max: FIELD_LEN },
    lob: { label: 'LOB', max: FIELD_LEN },
    comment: { label: 'Comment', max: NOTE_LEN },
    owner: { label: 'LOB Owner', max: FIELD_LEN },
    contact: { label: 'IT Contact', max: FIELD_LEN },
    os: { label: 'OS', max: FIELD_LEN },
  },
  oncall: {
    team: { label: 'Team name', max: NAME_LEN, required: true },
    // The team id is the lowercased team name: the same limit, shown as the team name.
    teamId: { label: 'Team name', max: NAME_LEN },
    role: { label: 'Role', max: FIELD_LEN },
    name: { label: 'Name', max: NAME_LEN },
    contact: { label: 'Phone', max: FIELD_LEN },
    timeWindow: { label: 'Time window', max: FIELD_LEN },
  },
  bridge_groups: {
    name: { label: 'Group name', max: NAME_LEN, required: true },
  },
  notes: {
    entityKey: { label: 'Record', max: NAME_LEN, required: true },
    note: { label: 'Note', max: NOTE_LEN },
  },
  standalone_notes: {
    title: { label: 'Title', max: 200 },
    content: { label: 'Content', max: NOTE_LEN },
  },
  alert_reminders: {
    title: { label: 'Title', max: 180, required: true },
    note: { label: 'Note', max: NOTE_LEN },
    alertBodyHtml: { label: 'Alert body', max: HTML_LEN },
  },
  alert_history: {
    bodyHtml: { label: 'Alert body', max: HTML_LEN },
  },
} as const satisfies Record<string, Record<string, FieldLimit>>;

export type LimitedCollection = keyof typeof LIMITS;

/** domain/src/validation.rs EMAIL, in JavaScript syntax. */
export const EMAIL_PATTERN =
  /^[^\s@<>(),;:"]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

const length = (s: string) => [...s].length;

/** The message for one field's value, or null when the server would accept it. */
export function fieldError(limit: FieldLimit, raw: string | undefined, opts: { required?: boolean } = {}): string | null {
  const v = (raw ?? '').trim();
  if (!v) return limit.required && opts.required !== false ? `${limit.label} is required.` : null;
  const n = length(v);
  if (n > limit.max) return `${limit.label} must be at most ${limit.max.toLocaleString('en-US')} characters (now ${n.toLocaleString('en-US')}).`;
  if (limit.email && !EMAIL_PATTERN.test(v)) return `${limit.label} must be an address like name@example.com.`;
  return null;
}

/**
 * Field-level errors for a record about to be saved, keyed by field. `required: false` checks
 * only what is filled in (live feedback while typing, before the first save attempt).
 */
export function validateRecord(collection: LimitedCollection, data: Record<string, string | undefined>, opts: { required?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, limit] of Object.entries(LIMITS[collection]) as [string, FieldLimit][]) {
    if (!(field in data) && !limit.required) continue;
    const e = fieldError(limit, data[field], opts);
    if (e) out[field] = e;
  }
  return out;
}

/** The operator-facing name of a server field error's field ("teamId" → "Team name"). */
export function fieldLabel(field: string, collection?: LimitedCollection): string {
  if (collection) {
    const l = (LIMITS[collection] as Record<string, FieldLimit>)[field];
    if (l) return l.label;
  }
  for (const fields of Object.values(LIMITS) as Record<string, FieldLimit>[]) if (fields[field]) return fields[field].label;
  return field.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase());
}
