// DNP3_PORT, read in one place: the outstation listens on it (cli/dnp3.ts) and the device profile states it
// (api/dnp3/device-profile.ts).
import { DEFAULT_DNP3_PORT } from './server.js';

export function dnp3Port(env: NodeJS.ProcessEnv = process.env): number {
  const port = env.DNP3_PORT ? Number(env.DNP3_PORT) : DEFAULT_DNP3_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`DNP3_PORT: "${env.DNP3_PORT}" is not a port`);
  return port;
}
