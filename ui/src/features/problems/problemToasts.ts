// When a Dynatrace problem raises a toast (no React): a realtime `create` of an OPEN problem,
// once per problem id for the life of the shell (a problem re-created by a later sync, or its
// updates, never toast again; loads and reconnect refetches are not events, so they never toast).
// The toast says the display id, the severity in words and the title, as an error for
// availability/error problems and a warning otherwise; the shell shows it with the problem
// priority (./components/toastQueue), keyed by the problem id.
import type { RealtimeEvent } from '../../transport/types';
import { isOpen, problemLabel, severityLabel, severityTone, type DynatraceProblem } from './problems';

/** The most problem ids remembered (oldest forgotten first). */
export const MAX_REMEMBERED = 2000;
const MAX_TITLE = 160;

export interface ProblemToast {
  kind: 'error' | 'warning';
  message: string;
  /** The problem id: the queue drops a second toast for it while the first shows. */
  key: string;
}

export class ProblemToastRule {
  private readonly seen = new Set<string>();

  constructor(private readonly max = MAX_REMEMBERED) {}

  /** The toast this event raises, or null. */
  offer(e: RealtimeEvent): ProblemToast | null {
    const p = e.record as Partial<DynatraceProblem> | null | undefined;
    if (!p || typeof p.problemId !== 'string' || !p.problemId) return null;
    const first = !this.seen.has(p.problemId);
    this.remember(p.problemId);
    if (e.action !== 'create' || !first || !isOpen({ status: p.status ?? '' })) return null;
    return problemToast(p as DynatraceProblem);
  }

  private remember(id: string): void {
    this.seen.delete(id);
    this.seen.add(id);
    while (this.seen.size > this.max) this.seen.delete(this.seen.values().next().value as string);
  }
}

export function problemToast(p: DynatraceProblem): ProblemToast {
  const title = (p.title || 'Untitled problem').slice(0, MAX_TITLE);
  return {
    kind: severityTone(p.severity ?? '') === 'critical' ? 'error' : 'warning',
    message: `New Dynatrace problem ${problemLabel(p)} (${severityLabel(p.severity ?? '')}): ${title}`,
    key: p.problemId,
  };
}
