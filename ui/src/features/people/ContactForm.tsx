// Add/Edit contact: Full Name* and Email* required, Job Title, Phone (formatted on blur,
// sanitized on save). Server field errors are shown.
import { useState, type FormEvent } from 'react';
import { errorMessage, useToast } from '../../components/Toasts';
import { useCollection } from '../../data/store';
import { formatPhone, sanitizePhone } from '../../lib/phone';
import { useTransport } from '../../transport/context';
import type { Contact } from './contacts';

export function ContactForm({ initial, editing, onDone }: { initial?: Partial<Contact>; editing?: Contact; onDone: () => void }) {
  const transport = useTransport();
  const toast = useToast();
  const store = useCollection<Contact>('contacts').store;
  const src = editing ?? initial ?? {};
  const [name, setName] = useState(src.name ?? '');
  const [email, setEmail] = useState(src.email ?? '');
  const [title, setTitle] = useState(src.title ?? '');
  const [phone, setPhone] = useState(formatPhone(src.phone));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!name.trim()) return setError('Full name is required.');
    if (!email.trim()) return setError('Email is required.');
    setBusy(true);
    setError(null);
    const data = { name: name.trim(), email: email.trim(), title: title.trim(), phone: sanitizePhone(phone) };
    try {
      const rec = editing ? await transport.update<Contact>('contacts', editing.id, data) : await transport.create<Contact>('contacts', data);
      store.upsertLocal(rec);
      toast('success', editing ? 'Contact saved.' : `Added ${rec.name}.`);
      onDone();
    } catch (err) {
      setError(errorMessage(err, 'Could not save the contact.'));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="form" onSubmit={submit} noValidate aria-label={editing ? 'Edit contact' : 'Add contact'}>
      <label className="field-label" htmlFor="cf-name">Full name *</label>
      <input id="cf-name" data-testid="contact-name-input" className="input" value={name} onChange={(e) => setName(e.target.value)} />
      <label className="field-label" htmlFor="cf-email">Email *</label>
      <input id="cf-email" data-testid="contact-email-input" className="input" type="email" value={email} onChange={(e) => setEmail(e.target.value)} />
      <label className="field-label" htmlFor="cf-title">Job title</label>
      <input id="cf-title" className="input" value={title} onChange={(e) => setTitle(e.target.value)} />
      <label className="field-label" htmlFor="cf-phone">Phone</label>
      <input id="cf-phone" data-testid="contact-phone-input" className="input" value={phone} onChange={(e) => setPhone(e.target.value)} onBlur={() => setPhone(formatPhone(phone))} />
      {error && <p className="error-text" role="alert" data-testid="contact-form-error">{error}</p>}
      <div className="row-end">
        <button data-testid="contact-save" className="button button-primary" type="submit" disabled={busy}>
          {busy ? 'Saving…' : editing ? 'Save' : 'Add contact'}
        </button>
      </div>
    </form>
  );
}
