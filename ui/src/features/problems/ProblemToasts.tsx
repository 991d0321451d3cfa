// The app-level new-problem toasts: mounted once in the Shell (so they arrive on every tab), it
// follows `dynatrace_problems` realtime and hands each toast ./problemToasts decides on to the
// toast queue with the Dynatrace problem priority, keyed by the problem id. Renders nothing.
import { useEffect, useRef } from 'react';
import { useToast } from '../../components/Toasts';
import { TOAST_PRIORITY } from '../../components/toastQueue';
import { useTransport } from '../../transport/context';
import { PROBLEMS } from './problems';
import { ProblemToastRule } from './problemToasts';

export function ProblemToasts() {
  const transport = useTransport();
  const toast = useToast();
  const toastRef = useRef(toast);
  toastRef.current = toast;
  useEffect(() => {
    const rule = new ProblemToastRule();
    let live = true;
    let unsub: (() => void) | null = null;
    transport
      .subscribe(PROBLEMS, (e) => {
        const t = rule.offer(e);
        if (t) toastRef.current(t.kind, t.message, { priority: TOAST_PRIORITY.problem, key: t.key });
      })
      .then((u) => {
        if (live) unsub = u;
        else u();
      })
      .catch(() => {});
    return () => {
      live = false;
      unsub?.();
    };
  }, [transport]);
  return null;
}
