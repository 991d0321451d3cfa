// People tab: the live contact list (sorted by name) and the add form.
import { AddContactForm } from './AddContactForm';
import { useContacts } from './useContacts';

export function PeopleView() {
  const { status, contacts, error, addContact } = useContacts();
  return (
    <section className="view">
      <header className="view-header">
        <h2 className="view-title">People</h2>
        <span className="muted">{status === 'ready' ? `${contacts.length} contacts` : ''}</span>
      </header>
      <AddContactForm onAdd={addContact} />
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {status === 'loading' && <p className="muted">Loading contacts…</p>}
      {status === 'ready' && contacts.length === 0 && <p className="muted">No contacts yet.</p>}
      {contacts.length > 0 && (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Phone</th>
              <th scope="col">Title</th>
            </tr>
          </thead>
          <tbody>
            {contacts.map((c) => (
              <tr key={c.id} data-testid="contact-row" data-id={c.id}>
                <td>{c.name}</td>
                <td>{c.email}</td>
                <td>{c.phone}</td>
                <td>{c.title}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
