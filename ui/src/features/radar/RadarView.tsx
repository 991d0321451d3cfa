// Radar tab (Dispatcher Radar): the CW Dashboard board the Relay server reads, over the
// app-level RadarFeed. Header (overall colour in words, the page's own time, Updated <ago>,
// Refresh), the sign-in-needed panel (naming the way to sign in that exists where this renderer
// runs: the sign-in window on the desktop server PC, `relay radar … sign-in` elsewhere) and the
// stale panel (the last board stays below), an empty state
// before the first read, then the board: metrics, dispatcher cards with their queue tables,
// PAPA, XCenter counts. Deep queues are marked in words, not only colour. Rules live in ./radar.
import { useState, type ReactNode } from 'react';
import { LoadErrorPanel, RefreshHeader, type FeedBoardProps } from '../../components/RefreshHeader';
import { useNowSince } from '../../lib/useNow';
import { useTransport } from '../../transport/context';
import type { RadarColor, RadarQueue } from '../../transport/types';
import { CommandText } from '../settings/CommandText';
import { radarSignInPath, type ServerPlace } from '../settings/serverPlace';
import { useServerPlace } from '../settings/useServerPlace';
import { COLOR_LABELS, countText, hasBoard, isLargeDepth, neverRead, QUEUE_WARNING_DEPTH, radarUpdatedText } from './radar';
import type { RadarFeedState } from './radarFeed';
import { useRadarFeed } from './useRadarFeed';

/** How often the relative time re-renders. */
export const TICK_MS = 15_000;

/** A colour said in words beside its dot. */
export function Tone({ color, testId }: { color: RadarColor; testId?: string }) {
  return (
    <span className={`radar-tone radar-tone-${color}`} data-color={color} data-testid={testId}>
      <span className="radar-dot" aria-hidden="true" />
      {COLOR_LABELS[color]}
    </span>
  );
}

function DepthCell({ depth }: { depth: number }) {
  const large = isLargeDepth(depth);
  return (
    <td className={`num${large ? ' radar-depth-large' : ''}`} data-large={large ? 'true' : undefined}>
      {large && (
        <span className="radar-depth-mark" aria-hidden="true">
          ▲{' '}
        </span>
      )}
      {countText(depth)}
      {large && <span className="visually-hidden"> (deep queue, {QUEUE_WARNING_DEPTH} or more)</span>}
    </td>
  );
}

function QueueTable({ caption, nameHeader, rows, testId }: { caption: string; nameHeader: string; rows: RadarQueue[]; testId: string }) {
  return (
    <div className="table-scroll">
      <table className="table radar-queues" data-testid={testId}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{nameHeader}</th>
            <th scope="col" className="num">
              Depth
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((q, i) => (
            <tr key={`${q.name}-${i}`}>
              <th scope="row" className="radar-queue-name">
                {q.name}
              </th>
              <DepthCell depth={q.depth} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export type RadarBoardProps = FeedBoardProps<RadarFeedState> & {
  /** Desktop main window: the sign-in window's two steps (absent elsewhere). */
  signIn?: { onOpen: () => void; onFinish: () => void; busy: boolean; message: string | null };
  /** Where this renderer runs (default: a browser), for the way to sign in from here. */
  place?: ServerPlace;
};

/** The board itself (props in, markup out), so it renders in tests without a feed. */
export function RadarBoard({ state, now, onRefresh, onRetry, signIn, place = 'direct' }: RadarBoardProps) {
  const { data, loading, error } = state;
  const board = hasBoard(data);
  const stale = board && (!!data?.error || !!error || !!data?.signInRequired);

  return (
    <section className="view radar-view" data-testid="radar-view">
      <RefreshHeader
        prefix="radar"
        title="Radar"
        subtitle="Dispatcher Radar"
        state={state}
        updated={data ? radarUpdatedText(data.lastUpdated, now) : loading ? 'Loading…' : 'Never updated'}
        onRefresh={onRefresh}
      >
        {data && (
          <span className="radar-overall" data-testid="radar-overall">
            <span className="visually-hidden">Overall: </span>
            <Tone color={data.color} testId="radar-color" />
          </span>
        )}
        {data?.currentTime && (
          <span className="muted small" data-testid="radar-page-time">
            Page time {data.currentTime}
          </span>
        )}
      </RefreshHeader>

      {error && (
        <LoadErrorPanel
          error={error}
          stale={!!data}
          lead={data ? 'Could not update the Radar — showing the last board received. ' : 'Could not load the Radar. '}
          testId="radar-load-error"
          retryTestId="radar-retry"
          onRetry={onRetry}
        />
      )}

      {data?.signInRequired && (
        <div className="panel radar-signin" role="alert" data-testid="radar-signin">
          <p className="radar-signin-text">Radar sign-in needed: sign in to the CW Dashboard on the Relay server PC.</p>
          <p className="muted small" data-testid="radar-signin-path"><CommandText text={radarSignInPath(place)} /></p>
          {signIn && (
            <div className="admin-actions">
              <button type="button" className="button small" disabled={signIn.busy} data-testid="radar-signin-open" onClick={signIn.onOpen}>
                Open the Radar sign-in window
              </button>
              <button type="button" className="button button-primary small" disabled={signIn.busy} data-testid="radar-signin-finish" onClick={signIn.onFinish}>
                I have signed in — use this session
              </button>
            </div>
          )}
          {signIn?.message && (
            <p className="muted small" role="status" data-testid="radar-signin-message">
              {signIn.message}
            </p>
          )}
          {board && <p className="muted small">The last board read is shown below and may be out of date.</p>}
        </div>
      )}

      {data && data.error && !data.signInRequired && (
        <div className="panel status-error status-error-stale" role="alert" data-testid="radar-stale">
          <p className="warn-text">{board ? `Showing the last board: ${data.error}` : `The Radar could not be read: ${data.error}`}</p>
        </div>
      )}

      {!data && loading && (
        <p className="muted" role="status" data-testid="radar-loading">
          Loading the Radar…
        </p>
      )}

      {data && neverRead(data) && !data.signInRequired && !data.error && (
        <div className="panel empty" data-testid="radar-empty">
          <h2 className="radar-panel-title">No Radar board yet</h2>
          <p className="muted">The Relay server has not read the Radar page yet. It reads it every minute; Refresh asks for a read now.</p>
        </div>
      )}

      {data && board && (
        <div className={`radar-board${stale ? ' radar-board-stale' : ''}`} data-testid="radar-board" data-stale={stale ? 'true' : 'false'}>
          {data.metrics.length > 0 && (
            <RadarSection name="metrics" title="Metrics">
              <ul className="radar-metrics">
                {data.metrics.map((m, i) => (
                  <li key={`${m.label}-${i}`} className={`stat radar-metric radar-card-${m.tone}`} data-testid="radar-metric">
                    <div className="muted small">{m.label}</div>
                    <div className="stat-n">{m.value ?? '—'}</div>
                    <Tone color={m.tone} />
                  </li>
                ))}
              </ul>
            </RadarSection>
          )}

          {data.dispatchers.length > 0 && (
            <RadarSection name="dispatchers" title="Dispatchers">
              <ul className="radar-cards">
                {data.dispatchers.map((d, i) => (
                  <li key={`${d.name}-${i}`} className={`panel radar-card radar-card-${d.tone}`} data-testid="radar-dispatcher">
                    <div className="status-card-head">
                      <h3 className="status-card-title">{d.name}</h3>
                      <Tone color={d.tone} />
                    </div>
                    <dl className="radar-dates small">
                      <dt className="muted">Last schedule</dt>
                      <dd>{d.lastScheduleDate || '—'}</dd>
                      <dt className="muted">Last pub-sub</dt>
                      <dd>{d.lastPubSubDate || '—'}</dd>
                    </dl>
                    {d.queues.length > 0 ? (
                      <QueueTable caption={`Queues of ${d.name}`} nameHeader="Queue" rows={d.queues} testId="radar-queue-table" />
                    ) : (
                      <p className="muted small">No queues listed.</p>
                    )}
                  </li>
                ))}
              </ul>
            </RadarSection>
          )}

          {data.papa.length > 0 && (
            <RadarSection name="papa" title="PAPA">
              <div className="panel">
                <QueueTable caption="PAPA message types" nameHeader="Message type" rows={data.papa} testId="radar-papa-table" />
              </div>
            </RadarSection>
          )}

          {(data.xcenter.ok !== null || data.xcenter.pending !== null) && (
            <RadarSection name="xcenter" title="XCenter">
              <div className="radar-xcenter">
                <div className="stat" data-testid="radar-xcenter-ok">
                  <div className="muted small">OK</div>
                  <div className="stat-n">{countText(data.xcenter.ok)}</div>
                </div>
                <div className="stat" data-testid="radar-xcenter-pending">
                  <div className="muted small">Pending</div>
                  <div className="stat-n">{countText(data.xcenter.pending)}</div>
                </div>
              </div>
            </RadarSection>
          )}
        </div>
      )}
    </section>
  );
}

export default function RadarView() {
  const { feed, state } = useRadarFeed();
  // Re-render "ago" right after new data arrives, not only on the next tick.
  const now = useNowSince(state.data, TICK_MS);
  const transport = useTransport();
  const place = useServerPlace();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const open = transport.openRadarSignIn;
  const finish = transport.finishRadarSignIn;
  const run = (step: () => Promise<string>) => {
    setBusy(true);
    step()
      .then(setMessage, (e: unknown) => setMessage(e instanceof Error && e.message ? e.message : String(e)))
      .finally(() => setBusy(false));
  };
  const signIn =
    open && finish
      ? {
          busy,
          message,
          onOpen: () => run(() => open().then(() => 'Sign in to the CW Dashboard in the window that opened, then come back here.')),
          onFinish: () =>
            run(() =>
              finish().then((r) => {
                void feed.load();
                return r.signInRequired ? `The Radar still asks for a sign-in${r.error ? `: ${r.error}` : '.'}` : 'Signed in: the Radar is read with this session.';
              }),
            ),
        }
      : undefined;
  return <RadarBoard state={state} now={now} onRefresh={() => void feed.refresh()} onRetry={() => void feed.load()} signIn={signIn} place={place} />;
}

/** One titled board section (`radar-<name>`, labelled by its heading `radar-<name>-title`). */
function RadarSection({ name, title, children }: { name: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={`radar-${name}-title`} data-testid={`radar-${name}`}>
      <h2 id={`radar-${name}-title`} className="status-section-title">
        {title}
      </h2>
      {children}
    </section>
  );
}
