// An integration of kind iec104 (docs/decisions.md#iec-104-outstation): the master's certificate (the model
// every protocol over mutual TLS shares, integrations/master-certificate.ts), the common address of bank 0,
// and the APCI parameters (standard defaults unless configured).
import { matchMaster, type MasterCertificate } from '../integrations/master-certificate.js';
import { MAX_COMMON_ADDRESS } from './data/point-map.js';
import { DEFAULT_TIMERS, type StationTimers } from './station/station.js';

export interface Iec104Integration extends MasterCertificate {
  organizationId: string;
  /** Common address of bank 0; bank b answers at commonAddress + b. */
  commonAddress: number;
  timers: StationTimers;
  analogOnly: boolean;
  caFile?: string;
  pinnedCertificateFile?: string;
}

export const matchIec104Integration = matchMaster<Iec104Integration>;

const int = (v: unknown, min: number, max: number, dflt: number): number => (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : dflt);

/** Validates an `integrations` row of kind iec104 (settings jsonb is `unknown` until here). */
export function iec104IntegrationFromRow(row: { id: string; OrganizationID: string; settings: unknown }): Iec104Integration | undefined {
  const s = (row.settings && typeof row.settings === 'object' ? row.settings : {}) as Record<string, unknown>;
  if (typeof s.masterIdentity !== 'string' || s.masterIdentity === '') return undefined;
  const sec = (key: string, dfltMs: number) => int(s[key], 1, 255, dfltMs / 1000) * 1000;
  const out: Iec104Integration = {
    id: row.id,
    organizationId: row.OrganizationID,
    masterIdentity: s.masterIdentity,
    commonAddress: int(s.commonAddress, 1, MAX_COMMON_ADDRESS, 1),
    // k and w per clause 5.5: w should not exceed two thirds of k.
    timers: {
      k: int(s.k, 1, 32767, DEFAULT_TIMERS.k), w: int(s.w, 1, 32767, DEFAULT_TIMERS.w),
      t0Ms: sec('t0', DEFAULT_TIMERS.t0Ms), t1Ms: sec('t1', DEFAULT_TIMERS.t1Ms), t2Ms: sec('t2', DEFAULT_TIMERS.t2Ms), t3Ms: sec('t3', DEFAULT_TIMERS.t3Ms),
    },
    tlsMinVersion: s.tlsMinVersion === 'TLSv1.3' || s.tlsMinVersion === '1.3' ? 'TLSv1.3' : 'TLSv1.2',
    certificateMode: s.certificateMode === 'pinned' ? 'pinned' : 'ca',
    analogOnly: s.analogOnly === true,
  };
  if (typeof s.caFile === 'string') out.caFile = s.caFile;
  if (typeof s.pinnedCertificateFile === 'string') out.pinnedCertificateFile = s.pinnedCertificateFile;
  if (typeof s.port === 'number' && Number.isInteger(s.port) && s.port > 0 && s.port < 65536) out.port = s.port;
  return out;
}
