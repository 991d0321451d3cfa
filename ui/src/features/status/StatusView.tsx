// Status tab ("Command Center"): the service-status board over the app-level StatusFeed.
// Header (Updated <ago>, Refresh), provider filter chips (All + 14), posture cards, provider
// cards (impacted first; Juniper Mist with its region filter) and the incident feed (Active /
// Recent / Resolved, expandable, plain text only). Links are https only: <a target=_blank> in a
// browser, the desktop shell's `open_external` inside the desktop. The rules live in ./status.
import { createContext, useContext, useEffect, useId, useMemo, useState, type MouseEvent, type ReactNode } from 'react';
import { LoadErrorPanel, RefreshHeader, type FeedBoardProps } from '../../components/RefreshHeader';
import { useNowSince } from '../../lib/useNow';
import { errorMessage, useToast } from '../../components/Toasts';
import { useTransport } from '../../transport/context';
import { DesktopBridge } from '../../transport/desktop';
import type { ProviderState, StatusItem } from '../../transport/types';
import {
  MIST_FILTERS,
  MIST_ROW,
  ROWS,
  SECTIONS,
  STATE_LABELS,
  buildRows,
  feedSections,
  formatAgo,
  httpsUrl,
  posture,
  sortRows,
  summaryText,
  updatedText,
  type FeedEntry,
  type MistRegion,
  type StatusRow,
} from './status';
import type { StatusFeedState } from './statusFeed';
import { useStatusFeed } from './useStatusFeed';

/** How often the relative times re-render. */
export const TICK_MS = 15_000;

/** Opens a link outside the app (desktop), or null to let the browser follow the <a>. */
type Opener = ((url: string) => void) | null;
const OpenerContext = createContext<Opener>(null);

const SEVERITY_LABELS: Record<StatusItem['severity'], string> = {
  error: 'Outage',
  warning: 'Degraded',
  info: 'Info',
  resolved: 'Resolved',
};

function ExternalLink({ href, children, className }: { href: string; children: ReactNode; className?: string }) {
  const open = useContext(OpenerContext);
  const onClick = open
    ? (e: MouseEvent<HTMLAnchorElement>) => {
        e.preventDefault();
        open(href);
      }
    : undefined;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" className={className} onClick={onClick}>
      {children}
      <span className="visually-hidden">{open ? ' (opens in your browser)' : ' (opens in a new tab)'}</span>
    </a>
  );
}

function StateBadge({ state }: { state: ProviderState }) {
  return (
    <span className={`status-badge status-${state}`} data-testid="status-badge">
      {STATE_LABELS[state]}
    </span>
  );
}

function localTime(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

function PostureCards({ rows }: { rows: StatusRow[] }) {
  const p = posture(rows);
  return (
    <section className="status-posture" aria-labelledby="status-posture-title" data-testid="status-posture">
      <h2 id="status-posture-title" className="visually-hidden">
        Posture
      </h2>
      <div className="stat status-stat" data-testid="posture-active">
        <div className="muted small">Active issues</div>
        <div className="stat-n">{p.activeIssues}</div>
        <div className="small">{p.topImpacted.length ? p.topImpacted.join(', ') : 'None'}</div>
      </div>
      <div className="stat status-stat" data-testid="posture-impacted">
        <div className="muted small">Impacted providers</div>
        <div className="stat-n">
          {p.impacted} of {p.total}
        </div>
      </div>
      <div className="stat status-stat" data-testid="posture-worst">
        <div className="muted small">Worst severity</div>
        <div className={`stat-n status-text-${p.worst}`}>{p.worstLabel}</div>
        {p.unknownRows > 0 && (
          <div className="small muted">
            {p.unknownRows} {p.unknownRows === 1 ? 'provider' : 'providers'} without current data
          </div>
        )}
      </div>
      <div className="stat status-stat" data-testid="posture-quiet">
        <div className="muted small">Quiet providers</div>
        <div className="stat-n">
          {p.quiet} of {p.total}
        </div>
      </div>
    </section>
  );
}

function RegionChips({ region, setRegion }: { region: MistRegion; setRegion: (r: MistRegion) => void }) {
  return (
    <div className="chips status-regions" role="group" aria-label="Juniper Mist region" data-testid="status-mist-regions">
      {MIST_FILTERS.map((f) => (
        <button
          key={f.id}
          type="button"
          className={`chip chip-small${region === f.id ? ' chip-on' : ''}`}
          aria-pressed={region === f.id}
          data-testid={`status-region-${f.id}`}
          onClick={() => setRegion(f.id)}
        >
          {f.label}
        </button>
      ))}
    </div>
  );
}

function ProviderCard({ row, region, setRegion }: { row: StatusRow; region: MistRegion; setRegion: (r: MistRegion) => void }) {
  const titleId = `status-card-title-${row.def.id}`;
  return (
    <li className={`panel status-card status-card-${row.state}`} data-testid={`status-card-${row.def.id}`} data-state={row.state}>
      <div className="status-card-head">
        <h3 id={titleId} className="status-card-title">
          {row.def.label}
        </h3>
        <StateBadge state={row.state} />
      </div>
      <p className={`status-summary status-text-${row.summary === 'issues' ? row.state : row.summary === 'normal' ? 'operational' : 'unknown'}`} data-testid="status-summary">
        {summaryText(row)}
      </p>
      {row.lastError && (
        <p className="small warn-text status-last-error" data-testid="status-last-error">
          Last check failed: {row.lastError}
        </p>
      )}
      {row.def.id === MIST_ROW && <RegionChips region={region} setRegion={setRegion} />}
      <div className="status-links small">
        {row.statusPage && (
          <ExternalLink href={row.statusPage}>
            Status page<span className="visually-hidden"> for {row.def.label}</span>
          </ExternalLink>
        )}
        {row.xUrl && (
          <ExternalLink href={row.xUrl}>
            X<span className="visually-hidden"> account of {row.def.label}</span>
          </ExternalLink>
        )}
        {row.downdetectorUrl && (
          <ExternalLink href={row.downdetectorUrl}>
            Downdetector<span className="visually-hidden"> for {row.def.label}</span>
          </ExternalLink>
        )}
      </div>
    </li>
  );
}

function FeedItem({ entry, now, open, toggle }: { entry: FeedEntry; now: number; open: boolean; toggle: () => void }) {
  const { item } = entry;
  const bodyId = useId();
  const link = httpsUrl(item.link);
  return (
    <li className="status-item" data-testid="status-item" data-severity={item.severity}>
      <button type="button" className="status-item-toggle" aria-expanded={open} aria-controls={bodyId} onClick={toggle} data-testid="status-item-toggle">
        <span className={`status-sev status-sev-${item.severity}`}>{SEVERITY_LABELS[item.severity]}</span>
        <span className="status-item-provider">{entry.rowShort}</span>
        <span className="status-item-title">{item.title}</span>
        {item.pubDate !== null && <span className="muted small nowrap status-item-ago">{formatAgo(item.pubDate, now)}</span>}
      </button>
      <div id={bodyId} className="status-item-body" hidden={!open} data-testid="status-item-body">
        <p className="pre status-item-description">{item.description || 'No details were published.'}</p>
        {item.affectedScopes && item.affectedScopes.length > 0 && (
          <ul className="pills status-scopes" aria-label="Affected">
            {item.affectedScopes.map((s) => (
              <li key={s} className="pill">
                {s}
              </li>
            ))}
          </ul>
        )}
        <p className="muted small">
          {item.pubDate !== null ? (
            <>
              <time dateTime={new Date(item.pubDate).toISOString()}>{localTime(item.pubDate)}</time> · {formatAgo(item.pubDate, now)}
            </>
          ) : (
            'No publication time'
          )}
          {link && (
            <>
              {' · '}
              <ExternalLink href={link}>Open incident</ExternalLink>
            </>
          )}
        </p>
      </div>
    </li>
  );
}

export interface StatusBoardProps extends FeedBoardProps<StatusFeedState> {
  initialFilter?: string;
  initialRegion?: MistRegion;
  initialExpanded?: string[];
}

/** The board itself (props in, markup out), so it renders in tests without a feed. */
export function StatusBoard({ state, now, onRefresh, onRetry, initialFilter = 'all', initialRegion = 'all', initialExpanded = [] }: StatusBoardProps) {
  const [filter, setFilter] = useState(initialFilter);
  const [region, setRegion] = useState<MistRegion>(initialRegion);
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set(initialExpanded));
  const { data, loading, error, refreshing } = state;

  const allRows = useMemo(() => buildRows(data), [data]);
  const regionRows = useMemo(() => buildRows(data, region), [data, region]);
  const shown = useMemo(() => sortRows(regionRows.filter((r) => filter === 'all' || r.def.id === filter)), [regionRows, filter]);
  const feed = useMemo(() => feedSections(shown), [shown]);
  const busy = refreshing || data?.refreshing === true;
  const toggle = (key: string) =>
    setExpanded((s) => {
      const n = new Set(s);
      if (n.has(key)) n.delete(key);
      else n.add(key);
      return n;
    });

  return (
    <section className="view status-view" data-testid="status-view">
      <RefreshHeader
        prefix="status"
        title="Status"
        subtitle="Command Center"
        state={state}
        updated={data ? updatedText(data.lastUpdated, now) : loading ? 'Loading…' : 'Not updated yet'}
        busy={busy}
        onRefresh={onRefresh}
      />

      {error && (
        <LoadErrorPanel
          error={error}
          stale={!!data}
          lead={data ? 'Could not update service status — showing the last status received. ' : 'Could not load service status. '}
          testId="status-error"
          retryTestId="status-retry"
          onRetry={onRetry}
        />
      )}

      {!data && loading && (
        <div className="status-loading" data-testid="status-loading">
          <p className="muted" role="status">
            Loading status…
          </p>
          <div className="status-skeleton" aria-hidden="true">
            {Array.from({ length: 6 }, (_, i) => (
              <div key={i} className="panel status-skeleton-card" />
            ))}
          </div>
        </div>
      )}

      {data && (
        <>
          <div className="chips status-filter" role="group" aria-label="Show provider" data-testid="status-filter">
            {[{ id: 'all', short: 'All' }, ...ROWS].map((r) => {
              const row = allRows.find((x) => x.def.id === r.id);
              const flagged = row && row.state !== 'operational';
              return (
                <button
                  key={r.id}
                  type="button"
                  className={`chip${filter === r.id ? ' chip-on' : ''}`}
                  aria-pressed={filter === r.id}
                  data-testid={`status-chip-${r.id}`}
                  onClick={() => setFilter(r.id)}
                >
                  {flagged && <span className={`status-dot status-dot-${row.state}`} aria-hidden="true" />}
                  {r.short}
                  {flagged && <span className="visually-hidden"> ({STATE_LABELS[row.state]})</span>}
                </button>
              );
            })}
          </div>

          <PostureCards rows={allRows} />

          <section aria-labelledby="status-providers-title" data-testid="status-providers">
            <h2 id="status-providers-title" className="status-section-title">
              Providers
            </h2>
            <ul className="status-cards">
              {shown.map((row) => (
                <ProviderCard key={row.def.id} row={row} region={region} setRegion={setRegion} />
              ))}
            </ul>
          </section>

          <section aria-labelledby="status-feed-title" data-testid="status-feed">
            <h2 id="status-feed-title" className="status-section-title">
              Incidents
            </h2>
            {SECTIONS.map((s) => (
              <div key={s.id} className="status-feed-section" data-testid={`status-section-${s.id}`}>
                <h3 className="subhead">
                  {s.title} <span className="muted">({feed[s.id].length})</span>
                </h3>
                {feed[s.id].length === 0 ? (
                  <p className="muted small">{s.empty}</p>
                ) : (
                  <ul className="status-items">
                    {feed[s.id].map((e) => (
                      <FeedItem key={e.key} entry={e} now={now} open={expanded.has(e.key)} toggle={() => toggle(e.key)} />
                    ))}
                  </ul>
                )}
              </div>
            ))}
          </section>
        </>
      )}
    </section>
  );
}

export default function StatusView() {
  const { feed, state } = useStatusFeed();
  useEffect(() => feed.activate(), [feed]);
  const transport = useTransport();
  const toast = useToast();
  // Re-render "ago" right after new data arrives, not only on the next tick.
  const now = useNowSince(state.data, TICK_MS);
  const opener = useMemo<Opener>(() => {
    const bridge = transport.mode === 'desktop' ? DesktopBridge.of(globalThis) : null;
    return bridge ? (url) => void bridge.openExternal(url).catch((e: unknown) => toast('error', errorMessage(e, 'Could not open the link.'))) : null;
  }, [transport, toast]);
  return (
    <OpenerContext.Provider value={opener}>
      <StatusBoard state={state} now={now} onRefresh={() => void feed.refresh()} onRetry={() => void feed.load()} />
    </OpenerContext.Provider>
  );
}
