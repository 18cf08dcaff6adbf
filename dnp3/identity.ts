// A DNP3 integration's settings (docs/decisions.md#dnp3-outstation). The certificate model that maps a
// verified client certificate to one integration, and the settings every master integration shares, are
// shared with IEC 104: integrations/master-certificate.ts, integrations/master-settings.ts.
import { matchMaster } from '../integrations/master-certificate.js';
import { masterSettingsFromRow, settingsOf, type IntegrationRow, type MasterSettings } from '../integrations/master-settings.js';

export { peerIdentity, type IdentityRefusal, type PeerIdentity, type TlsMinVersion } from '../integrations/master-certificate.js';

export interface Dnp3Integration extends MasterSettings {
  outstationAddress: number;
  masterAddress: number;
  unsolicited: boolean;
}

/** The integration a master may reach, or why it is refused (integrations/master-certificate.ts). */
export const matchIntegration = matchMaster<Dnp3Integration>;

const num = (v: unknown, dflt: number): number => (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffef ? v : dflt);

/** Validates an `integrations` row of kind dnp3 (settings jsonb is `unknown` until here). */
export function integrationFromRow(row: IntegrationRow): Dnp3Integration | undefined {
  const shared = masterSettingsFromRow(row, 'TLSv1.3');
  if (!shared) return undefined;
  const s = settingsOf(row);
  return { ...shared, outstationAddress: num(s.outstationAddress, 10), masterAddress: num(s.masterAddress, 1), unsolicited: s.unsolicited !== false };
}
