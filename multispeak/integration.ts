// A MultiSpeak integration's settings with their defaults applied, in one place: notify reads which
// notifications to write (operation, check-ins), the delivery worker how to send them (target.ts).
import type { StoredIntegration } from '../integrations/store.js';

export const DEFAULTS = { version: '4.1', checkins: true, timeoutMs: 15_000, connectTimeoutMs: 5_000, maxAgeHours: 24, resyncAfterOutage: false, notifyPer: 'device' } as const;

export interface MultiSpeakSettings {
  id: string;
  OrganizationID: string;
  company: string;
  channel: string;
  endpoint: unknown;
  /** As stored; target.ts refuses one that faultline does not send. */
  operation: unknown;
  /** 4.1 unless the customer chose 3.0 (spec 6.3: the customer states the version). */
  version: unknown;
  /** Check-in (heartbeat) notifications; only meaningful for SCADAAnalogChangedNotificationByPointID. */
  checkins: boolean;
  timeoutMs: number;
  connectTimeoutMs: number;
  maxAgeHours: number;
  /** Resend every device's current state when deliveries succeed again after failing (multispeak/resync.ts). */
  resyncAfterOutage: boolean;
  /** 'incident': one notification per feeder incident (incidents/notifications.ts) instead of one per device on a power line. */
  notifyPer: 'device' | 'incident';
  caFile: unknown;
  clientCertFile: unknown;
  clientKeyFile: unknown;
  credentials: StoredIntegration['credentials'];
}

const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

export function multiSpeakSettings(i: StoredIntegration): MultiSpeakSettings {
  const s = i.settings;
  return {
    id: i.id, OrganizationID: i.OrganizationID, company: i.company, channel: i.channel,
    endpoint: s.endpoint, operation: s.operation, version: s.version ?? DEFAULTS.version,
    checkins: typeof s.checkins === 'boolean' ? s.checkins : DEFAULTS.checkins,
    timeoutMs: num(s.timeoutMs, DEFAULTS.timeoutMs), connectTimeoutMs: num(s.connectTimeoutMs, DEFAULTS.connectTimeoutMs),
    maxAgeHours: num(s.maxAgeHours, DEFAULTS.maxAgeHours),
    resyncAfterOutage: typeof s.resyncAfterOutage === 'boolean' ? s.resyncAfterOutage : DEFAULTS.resyncAfterOutage,
    notifyPer: s.notifyPer === 'incident' ? 'incident' : DEFAULTS.notifyPer,
    caFile: s.caFile, clientCertFile: s.clientCertFile, clientKeyFile: s.clientKeyFile, credentials: i.credentials,
  };
}
