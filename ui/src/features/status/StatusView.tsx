// Status tab placeholder: cloud/service status feeds arrive in a later release.
export default function StatusView() {
  return (
    <section className="view">
      <header className="view-header">
        <h1 className="view-title">Status</h1>
      </header>
      <div className="panel card" data-testid="status-placeholder">
        <h2>Service status</h2>
        <p className="muted">Service status feeds arrive in a later release.</p>
      </div>
    </section>
  );
}
