// The status bar's health notice: asks GET /api/relay/health every HEALTH_NOTICE_REFRESH_MS (one
// request at a time, through the Transport) and, while a subsystem is degraded, restarting or
// unresponsive, shows "⚠ N subsystems degraded" as a button that opens Settings → System health
// (each reason in its tooltip). Nothing otherwise, and nothing while the health cannot be read:
// the connection label already says why. A snapshot the open System health panel read updates it
// too (../settings/healthUpdates). The notice sits in a polite live region.
import { useContext, useEffect, useState } from 'react';
import { useTransport } from '../../transport/context';
import { onHealth } from '../settings/healthUpdates';
import { requestSystemHealth } from '../settings/openSystemHealth';
import { healthNotice } from '../settings/systemHealth';
import { ShellContext } from './ShellContext';

/** How often the status bar asks for the server's health. */
export const HEALTH_NOTICE_REFRESH_MS = 15_000;

type Notice = ReturnType<typeof healthNotice>;

/** The notice for one reading (pure rendering; the markup test renders it directly). */
export function HealthNoticeView({ notice, onOpen }: { notice: Notice; onOpen: () => void }) {
  return (
    <span role="status" data-testid="status-health-region">
      {notice && (
        <button type="button" className="statusbar-health" data-testid="status-health" title={notice.detail} onClick={onOpen}>
          {notice.text}
          <span className="visually-hidden"> — open System health</span>
        </button>
      )}
    </span>
  );
}

export function HealthNotice() {
  const transport = useTransport();
  const shell = useContext(ShellContext);
  const [notice, setNotice] = useState<Notice>(null);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      try {
        const health = await transport.health();
        if (!stopped) setNotice(healthNotice(health));
      } catch {
        if (!stopped) setNotice(null);
      } finally {
        if (!stopped) timer = setTimeout(load, HEALTH_NOTICE_REFRESH_MS);
      }
    };
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [transport]);
  useEffect(() => onHealth((health) => setNotice(healthNotice(health))), []);
  const open = () => {
    shell?.go('settings');
    requestSystemHealth();
  };
  return <HealthNoticeView notice={notice} onOpen={open} />;
}
