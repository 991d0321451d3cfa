// The protected (Owner / Administrator / Publisher) session the Administration screen talks to,
// whatever carries it: one interface, `ProtectedSession`, with the admin status, sign-in, fresh
// password, lock, commands, the snapshot and the Wiki upload, plus the surface it runs on. The
// desktop bridge on the server PC is the 'local' implementation (DesktopBridge); Relay Web's
// server-mediated session is the 'web' one (WebProtectedSession in ./webProtected); a paired
// client-mode desktop's is the 'laptop' one (LaptopProtectedSession in ./laptopProtected). The
// controllers (admin, Wiki, Dynatrace) compile against this interface only. Refusals are
// BridgeRefusal on every surface, so the screen's handling of `locked`, `passwordRequired`,
// `rateLimited`… is the same everywhere.
import type { AdminCommandName, AdminSnapshot, AdminStatus, WikiUploadEvent, WikiUploadSummary } from './desktopAdmin';

/**
 * Where the protected session lives:
 * - 'local': the server PC's desktop app, through its own bridge (full administration).
 * - 'laptop': a paired client-mode desktop, through the shell's signed laptop_* commands
 *   (LaptopProtectedSession in ./laptopProtected: the Wiki, and for an Owner or Administrator the
 *   account, device and authority commands and Dynatrace; passwords and pairing stay on the server PC).
 * - 'web': Relay Web in a LAN browser, mediated by the server's gateway (Wiki, read-only views).
 */
export type ProtectedSurface = 'local' | 'laptop' | 'web';

export interface ProtectedSession {
  readonly surface: ProtectedSurface;
  /** Whether administration is available and the signed-in session, if any. */
  adminStatus(): Promise<AdminStatus>;
  /** Opens a session (rejected / rateLimited on a wrong password). */
  adminSignIn(username: string, password: string): Promise<AdminStatus>;
  /** The password counts as fresh again (after `passwordRequired`). */
  adminConfirmPassword(password: string): Promise<AdminStatus>;
  /** Locks the session now. */
  adminLock(): Promise<AdminStatus>;
  /** Runs one command; resolves with its JSON result. */
  adminCommand(command: AdminCommandName, payload: Record<string, unknown>, expectedRevision?: number | null): Promise<unknown>;
  /** `admin.snapshot`: accounts, devices, authority. */
  adminSnapshot(): Promise<AdminSnapshot>;
  /** Chooses PDFs (one when replacing), announces and uploads them; `onEvent` gets each file's
   * progress. Resolves `{ batchId: null, files: [] }` when the chooser was cancelled. */
  adminWikiUpload(replacementDocumentId: string | null, onEvent: (event: WikiUploadEvent) => void): Promise<WikiUploadSummary>;
}
