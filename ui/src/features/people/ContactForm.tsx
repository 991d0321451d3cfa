// Add/Edit contact: Full Name* and Email* required, Job Title; Phone (formatted on blur,
// sanitized on save). Field-level messages use the server's limits (lib/limits) before save;
// an email already used by another contact is a visible warning naming that contact (saving
// keeps both). Server field errors are shown under their fields.
import { useState, type FormEvent } from 'react';
import { errorMessage, useToast } from '../../components/Toasts';
import { useCollection } from '../../data/store';
import { duplicateWarning } from '../../lib/duplicates';
import { validateRecord } from '../../lib/limits';
import { formatPhone, sanitizePhone } from '../../lib/phone';
import { useTransport } from '../../transport/context';
import { isTransportError } from '../../transport/types';
import type { Contact } from './contacts';

type Field = 'name' | 'email' | 'title' | 'phone';

export function ContactForm({ initial, editing, onDone }: { initial?: Partial<Contact>; editing?: Contact; onDone: () => void }) {
  const transport = useTransport();
  const toast = useToast();
  const col = useCollection<Contact>('contacts');
  const store = col.store;
  const src = editing ?? initial ?? {};
  const [name, setName] = useState(src.name ?? '');
  const [email, setEmail] = useState(src.email ?? '');
  const [title, setTitle] = useState(src.title ?? '');
  const [phone, setPhone] = useState(formatPhone(src.phone));
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<Partial<Record<Field, string>>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const data = { name, email, title, phone: sanitizePhone(phone) };
  const errors: Partial<Record<Field, string>> = { ...validateRecord('contacts', data, { required: submitted }), ...serverErrors };
  const dup = duplicateWarning('contacts', col.items, email, editing?.id);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setSubmitted(true);
    if (Object.keys(validateRecord('contacts', data)).length > 0) return;
    setBusy(true);
    setError(null);
    const body = { name: name.trim(), email: email.trim(), title: title.trim(), phone: sanitizePhone(phone) };
    try {
      const rec = editing ? await transport.update<Contact>('contacts', editing.id, body) : await transport.create<Contact>('contacts', body);
      store.upsertLocal(rec);
      toast('success', editing ? 'Contact saved.' : `Added ${rec.name}.`);
      if (dup) toast('warning', dup);
      onDone();
    } catch (err) {
      const fe = isTransportError(err) ? err.fieldErrors : {};
      const known = Object.fromEntries(Object.entries(fe).filter(([f]) => f in data).map(([f, v]) => [f, v.message]));
      setServerErrors(known);
      setError(Object.keys(known).length ? null : errorMessage(err, 'Could not save the contact.'));
    } finally {
      setBusy(false);
    }
  }
  const clear = (f: Field) => serverErrors[f] && setServerErrors(({ [f]: _, ...rest }) => rest);
  const msg = (f: Field) =>
    errors[f] ? <p className="error-text small" role="alert" id={`cf-${f}-error`} data-testid={`contact-${f}-error`}>{errors[f]}</p> : null;
  const described = (f: Field) => (errors[f] ? { 'aria-invalid': true, 'aria-describedby': `cf-${f}-error` } : {});

  return (
    <form className="form" onSubmit={submit} noValidate aria-label={editing ? 'Edit contact' : 'Add contact'}>
      <label className="field-label" htmlFor="cf-name">Full name *</label>
      <input id="cf-name" data-testid="contact-name-input" className="input" value={name} {...described('name')} onChange={(e) => { setName(e.target.value); clear('name'); }} />
      {msg('name')}
      <label className="field-label" htmlFor="cf-email">Email *</label>
      <input id="cf-email" data-testid="contact-email-input" className="input" type="email" value={email} {...described('email')} onChange={(e) => { setEmail(e.target.value); clear('email'); }} />
      {msg('email')}
      {dup && <p className="warn-text small" role="status" data-testid="contact-duplicate-warning">{dup}</p>}
      <label className="field-label" htmlFor="cf-title">Job title</label>
      <input id="cf-title" data-testid="contact-title-input" className="input" value={title} {...described('title')} onChange={(e) => { setTitle(e.target.value); clear('title'); }} />
      {msg('title')}
      <label className="field-label" htmlFor="cf-phone">Phone</label>
      <input id="cf-phone" data-testid="contact-phone-input" className="input" value={phone} {...described('phone')} onChange={(e) => { setPhone(e.target.value); clear('phone'); }} onBlur={() => setPhone(formatPhone(phone))} />
      {msg('phone')}
      {error && <p className="error-text" role="alert" data-testid="contact-form-error">{error}</p>}
      <div className="row-end">
        <button data-testid="contact-save" className="button button-primary" type="submit" disabled={busy}>
          {busy ? 'Saving…' : editing ? 'Save' : 'Add contact'}
        </button>
      </div>
    </form>
  );
}
