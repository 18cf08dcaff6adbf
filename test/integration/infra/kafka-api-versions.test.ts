// kafkajs 2.2.4 against the running broker, API by API: every request kafkajs implements must have a version both
// sides speak, or a call of it fails with "The server does not support the requested API version". Kafka 4.0
// removed the versions of clients older than 2.1 (KIP-896), so this is what decides whether a broker serves
// faultline's client; run it on another broker with `KAFKA_VERSION=4.1.1 npm test -- kafka-api-versions`
// (docs/operations.md#supported-versions). The broker's ranges come from ApiVersions v0, which every version
// keeps; kafkajs's from its request modules, the lists it negotiates from.
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { INFRA } from '../../../infra/endpoints.js';

const kafkajsRequests = 'kafkajs/src/protocol/requests/';
const require = createRequire(import.meta.url);
const API_KEYS = require(`${kafkajsRequests}apiKeys`) as Record<string, number>;

/** The versions kafkajs can send of one API (none: it does not implement it). */
function kafkajsVersions(api: string): number[] {
  const module = api === 'GroupCoordinator' ? 'findCoordinator' : api[0]!.toLowerCase() + api.slice(1);
  try {
    return (require(`${kafkajsRequests}${module}`) as { versions: string[] }).versions.map(Number);
  } catch {
    return [];
  }
}

/** ApiVersions v0 of the broker at host:port: each API key with its [min, max] version. */
function brokerVersions(host: string, port: number): Promise<Map<number, [number, number]>> {
  const clientId = Buffer.from('faultline-api-versions');
  const body = Buffer.alloc(10 + clientId.length);
  body.writeInt16BE(API_KEYS.ApiVersions!, 0); // api key
  body.writeInt16BE(0, 2); // api version
  body.writeInt32BE(1, 4); // correlation id
  body.writeInt16BE(clientId.length, 8);
  clientId.copy(body, 10);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const socket = connect(port, host, () => socket.write(Buffer.concat([size, body])));
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (got.length < 4 || got.length < 4 + got.readInt32BE(0)) return;
      socket.end();
      // size, correlation id, error code, then an array of (api key, min, max).
      const error = got.readInt16BE(8);
      if (error !== 0) { reject(new Error(`ApiVersions error code ${error}`)); return; }
      const out = new Map<number, [number, number]>();
      for (let i = 0, at = 14; i < got.readInt32BE(10); i++, at += 6) out.set(got.readInt16BE(at), [got.readInt16BE(at + 2), got.readInt16BE(at + 4)]);
      resolve(out);
    });
  });
}

test('every API kafkajs implements has a version the broker accepts', async () => {
  const broker = await brokerVersions(INFRA.kafka.host, INFRA.kafka.port);
  const table: string[] = [];
  const none: string[] = [];
  for (const [api, key] of Object.entries(API_KEYS)) {
    const ours = kafkajsVersions(api);
    if (ours.length === 0) continue;
    const range = broker.get(key);
    const common = range ? ours.filter((v) => v >= range[0] && v <= range[1]) : [];
    table.push(`${api}: kafkajs ${Math.min(...ours)}-${Math.max(...ours)}, broker ${range ? range.join('-') : 'none'}, ${common.length ? `v${Math.max(...common)}` : 'none in common'}`);
    if (common.length === 0) none.push(api);
  }
  console.log(table.join('\n'));
  assert.ok(table.length >= 30, `${table.length} APIs compared`);
  assert.equal(none, [], 'APIs with no version in common');
});

test.run();
