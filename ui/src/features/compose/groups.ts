// Record shapes used by Compose.
import type { BaseRecord } from '../../transport/types';

export const BRIDGE_GROUPS = 'bridge_groups';
export const BRIDGE_HISTORY = 'bridge_history';

export interface GroupRecord extends BaseRecord {
  name: string;
  contacts?: string[] | null;
}

export interface BridgeHistory extends BaseRecord {
  note?: string;
  groups?: string[] | null;
  contacts?: string[] | null;
  recipientCount?: number;
}

/** Re-exported: grapheme-safe initials live in lib/text. */
export { initials } from '../../lib/text';
