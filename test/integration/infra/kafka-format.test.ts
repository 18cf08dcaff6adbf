// The Kafka storage format step with a cluster id that begins with '-' (base64url makes one in 64 such ids; the
// two-word `-t ID` form read it as an option and a fresh machine's Kafka never started).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = new URL('../../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'kafka-format-'));

test.after(() => rmSync(dir, { recursive: true, force: true }));

function format(clusterId: string): { status: number | null; output: string; meta: string } {
  const data = join(dir, clusterId.replace(/[^A-Za-z0-9]/g, '_'));
  const config = join(dir, `${clusterId}.properties`);
  const template = readFileSync(join(root, 'infra/kafka/server.properties'), 'utf8');
  writeFileSync(config, template
    .replaceAll('@KAFKA_HOST@', '127.0.0.1').replaceAll('@KAFKA_PORT@', '1').replaceAll('@KAFKA_CONTROLLER_PORT@', '2')
    .replaceAll('@DATA_DIR@', data));
  const run = spawnSync('bash', [join(root, 'infra/kafka.sh'), 'format', config, clusterId], { cwd: root, encoding: 'utf8' });
  let meta = '';
  try { meta = readFileSync(join(data, 'meta.properties'), 'utf8'); } catch { /* not formatted */ }
  return { status: run.status, output: run.stdout + run.stderr, meta };
}

test('formats storage with a cluster id that begins with a dash', () => {
  const id = '-TSkyIFptRlB6Q311mg1Tg';
  const { status, output, meta } = format(id);
  assert.is(status, 0, output);
  assert.match(meta, `cluster.id=${id}`);
});

test('and with an ordinary one', () => {
  const id = 'TSkyIFptRlB6Q311mg1Tgw';
  const { status, output, meta } = format(id);
  assert.is(status, 0, output);
  assert.match(meta, `cluster.id=${id}`);
});

test.run();
