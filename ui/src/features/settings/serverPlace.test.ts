// The way out of every "not configured" / "sign-in needed" message names a path that exists
// where the renderer runs: the desktop screens only on the desktop server PC, the exact `relay`
// commands (as `relay --help` spells them) everywhere else.
import { describe, expect, it } from 'vitest';
import {
  DIRECT_ADMINISTRATION_POINTER,
  RADAR_SIGN_IN_CLI,
  conditionHint,
  dynatraceScopePath,
  dynatraceSetupPath,
  radarSignInPath,
  type ServerPlace,
} from './serverPlace';

const AWAY: ServerPlace[] = ['laptop', 'relay-web', 'direct'];

describe('paths from here', () => {
  it('Dynatrace: the desktop screen on the server PC, the configure and set-token commands elsewhere', () => {
    expect(dynatraceSetupPath('server-pc')).toBe('An Administrator sets the environment URL and the platform token on this PC: Settings → Administration → Dynatrace.');
    for (const place of AWAY) {
      expect(dynatraceSetupPath(place)).toMatch(/^Ask the administrator of the Relay server to run `relay dynatrace --data-dir DATA configure` and `relay dynatrace --data-dir DATA set-token` on the server PC/);
      expect(dynatraceScopePath(place)).toMatch(/relay dynatrace --data-dir DATA configure/);
    }
    expect(dynatraceScopePath('server-pc')).toBe('Narrow the scope in Settings → Administration → Dynatrace.');
  });

  it('Radar: the sign-in window on the server PC, `relay radar … sign-in` elsewhere', () => {
    expect(RADAR_SIGN_IN_CLI).toBe('relay radar --data-dir DATA sign-in');
    expect(radarSignInPath('server-pc')).toMatch(/Open the Radar sign-in window/);
    expect(radarSignInPath('server-pc')).not.toMatch(/relay radar/);
    for (const place of AWAY) expect(radarSignInPath(place)).toMatch(/^Ask the administrator of the Relay server to run `relay radar --data-dir DATA sign-in` on the server PC/);
  });

  it('System health hints per condition; nothing for an unknown one', () => {
    expect(conditionHint('not_configured', 'direct')).toBe(dynatraceSetupPath('direct'));
    expect(conditionHint('sign_in_needed', 'relay-web')).toBe(radarSignInPath('relay-web'));
    expect(conditionHint('feeds_failing', 'direct')).toMatch(/outbound HTTPS/);
    expect(conditionHint('backup_overdue', 'server-pc')).toMatch(/Settings → Data administration/);
    expect(conditionHint('backup_failing', 'laptop')).toMatch(/`relay backup --data-dir DATA health`/);
    expect(conditionHint(undefined, 'direct')).toBeNull();
  });

  it('a browser on the data API port is pointed at Relay Web, the desktop app and the command', () => {
    expect(DIRECT_ADMINISTRATION_POINTER).toMatch(/not available in this browser window/);
    expect(DIRECT_ADMINISTRATION_POINTER).toMatch(/Relay Web[^]*desktop app on the server PC[^]*`relay --help`/);
  });
});
