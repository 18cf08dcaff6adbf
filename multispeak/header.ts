// MultiSpeakMsgHeader attributes per version (docs/multispeak.md). 4.1 requires BuildString and has
// no Version attribute; 3.0 has a free-text Version and nothing required.
import { APP_VERSION } from '../config/version.js';
import type { Version } from './versions.js';

export const APP_NAME = 'faultline';

export interface HeaderInput {
  userId?: string;
  pwd?: string;
  messageId?: string;
  /** ISO 8601 UTC. */
  timeStamp?: string;
  company?: string;
  objectsRemaining?: number;
  lastSent?: string;
}

export function headerAttributes(version: Version, h: HeaderInput): Record<string, string> {
  const common: Record<string, string | undefined> = {
    UserID: h.userId, Pwd: h.pwd, AppName: APP_NAME, AppVersion: APP_VERSION, Company: h.company,
  };
  const tail: Record<string, string | undefined> = {
    ObjectsRemaining: h.objectsRemaining === undefined ? undefined : String(h.objectsRemaining), LastSent: h.lastSent,
    MessageID: h.messageId, TimeStamp: h.timeStamp,
  };
  // Attribute order follows the schema; XML does not care, but a human reading a capture does.
  const all = version === '4.1'
    ? { MajorVersion: '4', MinorVersion: '1', Build: '6', BuildString: 'Release', ...common, ...tail }
    : { Version: '3.0', ...common, ...tail };
  return Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
}
