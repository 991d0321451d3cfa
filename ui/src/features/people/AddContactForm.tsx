// "Add contact" form: name (required) + email, with server field errors shown.
import { useState, type FormEvent } from 'react';
import { isTransportError } from '../../transport/types';

export function AddContactForm({ onAdd }: { onAdd: (c: { name: string; email: string }) => Promise<void> }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) {
      setError('Name is required.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onAdd({ name: trimmed, email: email.trim() });
      setName('');
      setEmail('');
    } catch (err) {
      setError(describeAddError(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="add-contact" onSubmit={submit} noValidate aria-label="Add contact">
      <input
        data-testid="contact-name-input"
        className="input"
        placeholder="Name"
        aria-label="Name"
        value={name}
        onChange={(e) => setName(e.target.value)}
      />
      <input
        data-testid="contact-email-input"
        className="input"
        type="email"
        placeholder="Email"
        aria-label="Email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
      />
      <button data-testid="contact-add" className="button button-primary" type="submit" disabled={busy}>
        {busy ? 'Adding…' : 'Add contact'}
      </button>
      {error && (
        <p className="error-text add-contact-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

function describeAddError(err: unknown): string {
  if (!isTransportError(err)) return 'Could not add the contact.';
  const fields = Object.entries(err.fieldErrors).map(([f, v]) => `${f}: ${v.message}`);
  return fields.length ? fields.join(' ') : err.message;
}
