// Record shapes used by Compose.
import type { BaseRecord } from '../../transport/types';

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

export function initials(name: string): string {
  const w = name.trim().split(/\s+/).filter(Boolean);
  return ((w[0]?.[0] ?? '') + (w[1]?.[0] ?? w[0]?.[1] ?? '')).toUpperCase();
}
