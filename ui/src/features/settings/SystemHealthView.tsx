// Settings → System health: the operator dashboard (GET /api/relay/health through the
// Transport), read-only in every mode. While the panel is open and the Settings tab is showing,
// it asks again every HEALTH_REFRESH_MS (one request at a time). Each subsystem shows its state
// as text and symbol (never colour alone) with, when degraded or not configured, the reason and
// what to do from this place (./serverPlace), restarts, the redacted last error, and its queue
// depth with a sparkline of the last 10 minutes; plus database size, uptime, realtime clients and
// backups (restore point age and verification, or the last failure). The status bar's notice
// opens it (./openSystemHealth).
import { useContext, useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../components/Toasts';
import { useTransport } from '../../transport/context';
import type { SystemHealth } from '../../transport/types';
import { ShellContext } from '../shell/ShellContext';
import { CommandText } from './CommandText';
import { publishHealth } from './healthUpdates';
import { onSystemHealthRequest } from './openSystemHealth';
import { conditionHint, type ServerPlace } from './serverPlace';
import {
  HEALTH_REFRESH_MS,
  backupLine,
  formatBytes,
  formatUptime,
  overallLine,
  sparklinePath,
  sparklineSummary,
  stateLabel,
  subsystemRows,
  type SubsystemRow,
} from './systemHealth';
import { useServerPlace } from './useServerPlace';

const SPARK_W = 120;
const SPARK_H = 24;

function Sparkline({ values, bucketSecs }: { values: (number | null)[]; bucketSecs: number }) {
  const summary = sparklineSummary(values, bucketSecs);
  return (
    <svg className="sparkline" width={SPARK_W} height={SPARK_H} viewBox={`0 0 ${SPARK_W} ${SPARK_H}`} role="img" aria-label={summary}>
      <title>{summary}</title>
      <line className="sparkline-base" x1="0" y1={SPARK_H - 0.5} x2={SPARK_W} y2={SPARK_H - 0.5} />
      <path className="sparkline-line" d={sparklinePath(values, SPARK_W, SPARK_H)} />
    </svg>
  );
}

/** A subsystem's state: the pill, then (degraded or not configured) the reason and what to do from here. */
function StateCell({ row, place }: { row: SubsystemRow; place: ServerPlace }) {
  const state = stateLabel(row.state);
  const condition = row.state === 'degraded' || row.state === 'unconfigured' ? row.condition : null;
  const hint = condition ? conditionHint(condition.code, place) : null;
  return (
    <td data-testid="health-state" data-state={row.state}>
      <span className={`pill health-${state.tone}`}><span aria-hidden="true">{state.symbol} </span>{state.text}</span>
      {condition && (
        <p className="health-reason" data-testid="health-reason" data-code={condition.code}>
          {condition.reason}
          {row.state === 'degraded' && condition.since && <span className="muted small"> (since {condition.since})</span>}
        </p>
      )}
      {hint && <p className="health-reason muted" data-testid="health-hint"><CommandText text={hint} /></p>}
    </td>
  );
}

/** The dashboard for one snapshot (pure rendering; the markup test renders it directly). */
export function SystemHealthTable({ health, updatedAt, place = 'direct' }: { health: SystemHealth; updatedAt?: string; place?: ServerPlace }) {
  const bucketSecs = health.queueHistoryBucketSecs || 20;
  const overall = overallLine(health);
  return (
    <>
      <dl className="kv" data-testid="health-summary">
        <dt>Overall</dt>
        <dd data-testid="health-overall" data-attention={overall.attention} className={overall.attention ? 'health-attention' : undefined}>{overall.text}</dd>
        <dt>Uptime</dt>
        <dd data-testid="health-uptime">{formatUptime(health.uptimeSecs)}</dd>
        <dt>Database size</dt>
        <dd data-testid="health-db-size">{formatBytes(health.database?.sizeBytes ?? NaN)}</dd>
        <dt>Realtime clients</dt>
        <dd>{health.realtime?.clients ?? '—'}</dd>
        {backupLine(health.backup) && (
          <><dt>Backups</dt><dd data-testid="health-backup" data-attention={backupLine(health.backup)?.attention}>{backupLine(health.backup)?.text}</dd></>
        )}
        <dt>Version</dt>
        <dd>{health.version}</dd>
        {updatedAt && (<><dt>Updated</dt><dd>{updatedAt}</dd></>)}
      </dl>
      <div className="table-scroll">
        <table className="table health-table" data-testid="health-table">
          <caption className="visually-hidden">Subsystems: state, restarts, last error and queue depth</caption>
          <thead>
            <tr>
              <th scope="col">Subsystem</th>
              <th scope="col">State</th>
              <th scope="col">Restarts</th>
              <th scope="col">Last error</th>
              <th scope="col">Queue depth</th>
              <th scope="col">Last 10 minutes</th>
            </tr>
          </thead>
          <tbody>
            {subsystemRows(health).map((row) => {
              return (
                <tr key={row.name} data-testid={`health-row-${row.name}`}>
                  <th scope="row"><code>{row.name}</code></th>
                  <StateCell row={row} place={place} />
                  <td data-testid="health-restarts">{row.restarts}</td>
                  <td className="health-error">
                    {row.lastError ? (
                      <>{row.lastError}{row.lastErrorAt && <span className="muted small"> ({row.lastErrorAt})</span>}</>
                    ) : (
                      <span className="muted">None</span>
                    )}
                  </td>
                  <td data-testid="health-queue">{row.queueDepth}</td>
                  <td><Sparkline values={row.queueHistory ?? []} bucketSecs={bucketSecs} /></td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

function LiveHealth({ active }: { active: boolean }) {
  const transport = useTransport();
  const place = useServerPlace();
  const [health, setHealth] = useState<SystemHealth | null>(null);
  const [updatedAt, setUpdatedAt] = useState<string | undefined>();
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!active) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      try {
        const h = await transport.health();
        if (stopped) return;
        publishHealth(h);
        setHealth(h);
        setUpdatedAt(new Date().toLocaleTimeString());
        setError(null);
      } catch (e) {
        if (!stopped) setError(`Could not load system health: ${errorMessage(e)}`);
      } finally {
        if (!stopped) timer = setTimeout(load, HEALTH_REFRESH_MS);
      }
    };
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [transport, active]);

  return (
    <div aria-busy={health === null && error === null}>
      {error && <p className="error-text" role="alert" data-testid="health-error">{error}</p>}
      {health ? <SystemHealthTable health={health} updatedAt={updatedAt} place={place} /> : !error && <p className="muted" role="status">Loading…</p>}
    </div>
  );
}

export function SystemHealthPanel() {
  const shell = useContext(ShellContext);
  const [open, setOpen] = useState(false);
  const section = useRef<HTMLElement>(null);
  const visible = shell === null || shell.tab === 'settings';
  useEffect(
    () =>
      onSystemHealthRequest(() => {
        setOpen(true);
        // After the Settings tab is shown (the request also switched tabs).
        setTimeout(() => section.current?.scrollIntoView?.({ block: 'start' }), 0);
      }),
    [],
  );
  return (
    <section ref={section} className="panel card" data-testid="system-health" aria-labelledby="system-health-title">
      <div className="panel-head">
        <h2 id="system-health-title">System health</h2>
        <button type="button" className="button button-ghost" data-testid="system-health-toggle"
          aria-expanded={open} aria-controls="system-health-body" onClick={() => setOpen((o) => !o)}>
          {open ? 'Hide' : 'Show'} system health
        </button>
      </div>
      <div id="system-health-body">
        {open ? (
          <LiveHealth active={visible} />
        ) : (
          <p className="muted">Subsystem states, restarts, errors and queue depth, database size and uptime. Read-only; refreshes every {HEALTH_REFRESH_MS / 1000} s while shown.</p>
        )}
      </div>
    </section>
  );
}
