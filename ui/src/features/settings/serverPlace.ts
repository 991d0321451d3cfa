// Where this renderer runs relative to the Relay server, and the way out of every "not
// configured" / "sign-in needed" message from here (pure; `useServerPlace` finds the place).
// Only the desktop app in server mode IS the server PC and has Settings → Administration; a
// paired laptop, a Relay Web browser and a browser on the data API port reach a server that may
// be a headless `relay serve`, whose only administration is the `relay` command on that PC. So
// everywhere but the server PC the text names the command first and the desktop screen second.
import type { ConditionCode } from '../../transport/types';

/**
 * 'server-pc': the desktop app in server mode (this PC is the server); 'laptop': the desktop
 * app in client mode; 'relay-web': a browser through the Relay Web gateway; 'direct': a browser
 * on the data API port (no Administration at all).
 */
export type ServerPlace = 'server-pc' | 'laptop' | 'relay-web' | 'direct';

/** The exact commands (`relay <command> --help`; DATA is the server's data directory). */
export const DYNATRACE_CONFIGURE_CLI = 'relay dynatrace --data-dir DATA configure';
export const DYNATRACE_SET_TOKEN_CLI = 'relay dynatrace --data-dir DATA set-token';
export const RADAR_SIGN_IN_CLI = 'relay radar --data-dir DATA sign-in';
export const BACKUP_HEALTH_CLI = 'relay backup --data-dir DATA health';

/** How Dynatrace gets its environment URL and platform token, from here. */
export function dynatraceSetupPath(place: ServerPlace): string {
  if (place === 'server-pc') {
    return 'An Administrator sets the environment URL and the platform token on this PC: Settings → Administration → Dynatrace.';
  }
  return `Ask the administrator of the Relay server to run \`${DYNATRACE_CONFIGURE_CLI}\` and \`${DYNATRACE_SET_TOKEN_CLI}\` on the server PC (in the Relay desktop app there: Settings → Administration → Dynatrace).`;
}

/** How the Dynatrace scope is narrowed (a reconciliation hit the result limit), from here. */
export function dynatraceScopePath(place: ServerPlace): string {
  if (place === 'server-pc') return 'Narrow the scope in Settings → Administration → Dynatrace.';
  return `Ask the administrator of the Relay server to narrow the scope (\`${DYNATRACE_CONFIGURE_CLI}\` with --profile or --matcher on the server PC).`;
}

/** How the server gets a Radar session, from here. */
export function radarSignInPath(place: ServerPlace): string {
  if (place === 'server-pc') return 'Use “Open the Radar sign-in window” below, sign in there, then “I have signed in”.';
  return `Ask the administrator of the Relay server to run \`${RADAR_SIGN_IN_CLI}\` on the server PC (or sign in from the Radar tab of the Relay desktop app there).`;
}

/** What to do about a subsystem's condition (System health), from here; null when nothing to add. */
export function conditionHint(code: ConditionCode | undefined, place: ServerPlace): string | null {
  switch (code) {
    case 'feeds_failing':
      return 'The server PC needs outbound HTTPS to the status pages; the Status tab keeps the last good items meanwhile.';
    case 'sign_in_needed':
      return radarSignInPath(place);
    case 'reads_failing':
      return 'Check that the server PC reaches the CW Dashboard; the Radar tab keeps the last board meanwhile.';
    case 'not_configured':
      return dynatraceSetupPath(place);
    case 'sync_failing':
      return 'The Problems tab keeps the last problems and says when the next retry is.';
    case 'backup_failing':
    case 'backup_overdue':
      return place === 'server-pc'
        ? 'Settings → Data administration shows the backups and can run one now.'
        : `Tell the administrator of the Relay server; \`${BACKUP_HEALTH_CLI}\` on the server PC shows the details.`;
    default:
      return null;
  }
}

/** Shown where Administration would be in a browser on the data API port (it has none). */
export const DIRECT_ADMINISTRATION_POINTER =
  'Administration is not available in this browser window. Use Relay Web (ask the administrator of the Relay server for its address), the Relay desktop app on the server PC, or the `relay` command there (`relay --help`).';
