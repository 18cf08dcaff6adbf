// The mutual-TLS fixture of the DNP3 identity tests (test/dnp3/tls, test/security/dnp3-attacks): dev
// certificates from infra/certs.sh in a temporary folder, two organisations (north, south) with one
// integration each, and an outstation per organisation whose analog 0 tells them apart (north 111,
// south 222), so a master that reads the wrong one is caught.
import { readFileSync } from 'node:fs';
import type { Dnp3Integration } from '../../../dnp3/identity.js';
import { Outstation } from '../../../dnp3/outstation/outstation.js';
import { devCerts } from '../../helpers/dev-certs.js';

type TlsMin = Dnp3Integration['tlsMinVersion'];

export interface TwoOrganisations {
  /** The certificate folder; remove it after the suite. */
  dir: string;
  pem(name: string): Buffer;
  integrations: Dnp3Integration[];
  outstations: Map<string, Outstation>;
}

export function twoOrganisations(prefix: string, tls: { north: TlsMin; south: TlsMin }): TwoOrganisations {
  const certs = devCerts(prefix);
  const base = { outstationAddress: 10, masterAddress: 1, unsolicited: false, certificateMode: 'ca', analogOnly: false } as const;
  const integrations: Dnp3Integration[] = [
    { ...base, id: 'north-scada', organizationId: 'north', masterIdentity: 'scada.north.example', tlsMinVersion: tls.north },
    { ...base, id: 'south-scada', organizationId: 'south', masterIdentity: 'scada.south.example', tlsMinVersion: tls.south },
  ];
  const outstations = new Map<string, Outstation>();
  for (const [org, value] of [['north', 111], ['south', 222]] as const) {
    const o = new Outstation({ unsolicited: false });
    o.definePoints('analog', 1, { eventClass: 0 });
    o.update('analog', 0, { flags: 1, value, time: 0 });
    outstations.set(org, o);
  }
  return { dir: certs.dir, pem: (name) => readFileSync(certs.pem(name)), integrations, outstations };
}
