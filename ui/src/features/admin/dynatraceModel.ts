// Administration screen, the Dynatrace section's pure helpers: `dynatrace.status` read field by
// field (the token is only ever "configured" / "not configured" and where it is kept — anything
// else the server sent is dropped), the form from a status and the `dynatrace.configure` payload
// from the form (alerting profiles one per line, trimmed and deduplicated; a blank matcher or
// workflow id is left out), the scope and token storage in words, the test result, and the
// operator-facing sentence for a refusal (a stale revision says "reload and retry").
import { describeFailure } from './adminModel';

export type DynatraceScope =
  | { kind: 'all' }
  | { kind: 'alerting-profile'; profiles: string[] }
  | { kind: 'custom-dql'; matcher: string }
  | { kind: 'workflow'; task: string };

export type TokenStorage = 'os_store' | 'owner_only_file' | 'memory_only';

export interface DynatraceStatus {
  /** The configuration's revision: every change names it (`expectedRevision`). */
  revision: number;
  environmentUrl: string;
  token: 'configured' | 'not_configured';
  tokenStorage: TokenStorage | null;
  scope: DynatraceScope;
  workflowId: string;
}

export interface DynatraceForm {
  environmentUrl: string;
  /** One alerting profile name per line. */
  profiles: string;
  matcher: string;
  workflowId: string;
  /** Take the scope from the workflow's DQL query task ("follow workflow DQL"). */
  followWorkflow: boolean;
  /** The DQL query task to follow (blank: the workflow's only one). */
  workflowTask: string;
}

export interface ConnectionTest {
  ok: boolean;
  message: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const STORAGES: readonly string[] = ['os_store', 'owner_only_file', 'memory_only'];

/** `dynatrace.status` (and the answer of every change) with only the listed fields kept. */
export function dynatraceStatus(raw: unknown): DynatraceStatus {
  const r = isObject(raw) ? raw : {};
  const sc = isObject(r.scope) ? r.scope : {};
  let scope: DynatraceScope = { kind: 'all' };
  if (sc.kind === 'alerting-profile') {
    scope = { kind: 'alerting-profile', profiles: (Array.isArray(sc.profiles) ? sc.profiles : []).filter((p): p is string => typeof p === 'string') };
  } else if (sc.kind === 'custom-dql') {
    scope = { kind: 'custom-dql', matcher: str(sc.matcher) };
  } else if (sc.kind === 'workflow') {
    scope = { kind: 'workflow', task: str(sc.task) };
  }
  const configured = r.token === 'configured';
  return {
    revision: typeof r.revision === 'number' && Number.isFinite(r.revision) ? r.revision : 0,
    environmentUrl: str(r.environmentUrl),
    token: configured ? 'configured' : 'not_configured',
    tokenStorage: configured && STORAGES.includes(str(r.tokenStorage)) ? (r.tokenStorage as TokenStorage) : null,
    scope,
    workflowId: str(r.workflowId),
  };
}

export function connectionTest(raw: unknown): ConnectionTest {
  const r = isObject(raw) ? raw : {};
  const ok = r.ok === true;
  return { ok, message: str(r.message) || (ok ? 'Dynatrace answered.' : 'Dynatrace did not answer.') };
}

export const EMPTY_FORM: DynatraceForm = {
  environmentUrl: '',
  profiles: '',
  matcher: '',
  workflowId: '',
  followWorkflow: false,
  workflowTask: '',
};

export function formFromStatus(s: DynatraceStatus): DynatraceForm {
  return {
    environmentUrl: s.environmentUrl,
    profiles: s.scope.kind === 'alerting-profile' ? s.scope.profiles.join('\n') : '',
    matcher: s.scope.kind === 'custom-dql' ? s.scope.matcher : '',
    workflowId: s.workflowId,
    followWorkflow: s.scope.kind === 'workflow',
    workflowTask: s.scope.kind === 'workflow' ? s.scope.task : '',
  };
}

/** The profile names in the text: one per line, trimmed, blanks and repeats dropped. */
export function parseProfiles(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const name = line.trim();
    if (name && !out.includes(name)) out.push(name);
  }
  return out;
}

/** The `dynatrace.configure` payload for the form. */
export function configurePayload(f: DynatraceForm): Record<string, unknown> {
  const payload: Record<string, unknown> = { environmentUrl: f.environmentUrl.trim(), alertingProfiles: parseProfiles(f.profiles) };
  if (f.matcher.trim()) payload.matcher = f.matcher.trim();
  if (f.workflowId.trim()) payload.workflowId = f.workflowId.trim();
  if (f.followWorkflow) {
    payload.followWorkflow = true;
    if (f.workflowTask.trim()) payload.workflowTask = f.workflowTask.trim();
  }
  return payload;
}

/** True when saving the form would change the stored configuration. */
export function formChanged(f: DynatraceForm, s: DynatraceStatus | null): boolean {
  const base = s ? formFromStatus(s) : EMPTY_FORM;
  return JSON.stringify(configurePayload(f)) !== JSON.stringify(configurePayload(base));
}

/** The scope the stored settings give, in words. */
export function scopeText(scope: DynatraceScope): string {
  switch (scope.kind) {
    case 'alerting-profile':
      return `Problems of the alerting profile${scope.profiles.length === 1 ? '' : 's'} ${scope.profiles.join(', ')}`;
    case 'custom-dql':
      return 'Problems matching the custom DQL matcher (alerting profiles are ignored)';
    case 'workflow':
      return `Problems matching the workflow's DQL query task${scope.task ? ` ${scope.task}` : ''} (read again every day)`;
    default:
      return 'Every problem in the environment';
  }
}

const STORAGE_TEXT: Record<TokenStorage, string> = {
  os_store: "kept in the operating system's secret store",
  owner_only_file: 'kept in a file only the server account can read',
  memory_only: 'kept in memory only — enter it again after the server restarts',
};

/** "Configured (kept in …)" or "Not configured". */
export function tokenText(s: Pick<DynatraceStatus, 'token' | 'tokenStorage'>): string {
  if (s.token !== 'configured') return 'Not configured';
  return s.tokenStorage ? `Configured (${STORAGE_TEXT[s.tokenStorage]})` : 'Configured';
}

export const STALE_TEXT = 'The record changed meanwhile; reload and retry. The current settings are shown again.';

/** True when the refusal is a stale revision (someone else saved first). */
export function isStale(e: unknown): boolean {
  return e instanceof Error && /changed meanwhile|stale/i.test(e.message);
}

/** A refusal in the operator's words; `secrets` (the token typed) are masked out. */
export function dynatraceFailure(e: unknown, secrets: readonly string[] = []): string {
  return isStale(e) ? STALE_TEXT : describeFailure(e, secrets);
}
