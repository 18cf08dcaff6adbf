// The IEC 104 controlled station component of `faultline start` (docs/iec104.md). It serves mutual TLS on
// IEC104_PORT (default 2404) with the SCADA certificate both master listeners share (cli/scada-tls.ts), and it
// opens its port only when an enabled integration of kind iec104 exists: a deployment without 104 masters listens
// on nothing more.
import { log } from '../config/log.js';
import { fixedPorts } from '../config/settings.js';
import { readIntegrations } from '../integrations/store.js';
import { startIec104Service } from '../iec104/service.js';
import { whereListening } from './listening.js';
import type { Runtime } from './runtime.js';
import { scadaTlsFiles, scadaTlsUnconfigured } from './scada-tls.js';

/** What `start` lists, and how to stop it when it runs. `required`: `--only iec104` asked for it by name, so a station that cannot serve its integrations (no mutual TLS) stops the start. */
export async function startIec104(runtime: Runtime, required: boolean): Promise<{ description: string; close?: () => Promise<void> }> {
  const off = (why: string) => {
    if (required) throw new Error(`--only iec104: the IEC 104 station is ${why}`);
    return { description: `IEC 104 station ${why}` };
  };
  // No 104 master yet is a configuration like any other, not a fault, even when --only names the station: the
  // SCADA process of docs/operations.md runs `dnp3,iec104,api` for DNP3-only utilities too.
  if ((await readIntegrations(runtime.pool, { kind: 'iec104' })).length === 0) return { description: 'IEC 104 station off: no enabled integration of kind iec104 (restart after importing one)' };
  const unconfigured = scadaTlsUnconfigured(runtime.embedded, runtime.settings);
  const files = unconfigured ? undefined : scadaTlsFiles(runtime);
  if (!files) return off(`off: IEC 62351-3 needs mutual TLS (${unconfigured})`);
  const service = await startIec104Service({
    pool: runtime.pool, port: runtime.settings.iec104Port, host: runtime.settings.httpHost, reserved: fixedPorts(runtime.settings), range: runtime.settings.scadaDedicatedPorts, tlsFiles: files,
    offlineAfterHours: runtime.settings.offlineAfterHours, checkinFloorS: runtime.settings.alarms.checkinFloorS,
    onError: (err) => log.warn({ component: 'iec104', err: (err as Error).message }, 'IEC 104 station error'),
  });
  return {
    description: `IEC 104 station on TCP ${whereListening(runtime.settings.httpHost, service.server.port)} (mutual TLS, CA ${files.ca}, ${service.outstations.size} integration(s), reloaded on change or SIGHUP)`,
    close: () => service.close(),
  };
}
