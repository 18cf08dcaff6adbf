// Which components `faultline start` runs (cli/start.ts wantedComponents): `--only` decides when given; else
// everything, and the simulator only on the embedded default unless SIMULATE=0.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessOnlyRefusal, parseOnly, wantedComponents, COMPONENTS } from '../../cli/start.js';
import { loadSettings } from '../../config/settings.js';

const runtime = (embedded: boolean, env: Record<string, string> = {}) => ({ embedded, settings: loadSettings(env) });

test('without --only: every component, the simulator on the embedded default alone', () => {
  const all = wantedComponents(null, runtime(true));
  assert.ok(COMPONENTS.every((c) => all(c)));
  assert.is(wantedComponents(null, runtime(false))('simulate'), false);
  assert.is(wantedComponents(null, runtime(false))('api'), true);
});

test('SIMULATE=0 turns the simulator off, and nothing else', () => {
  const wants = wantedComponents(null, runtime(true, { SIMULATE: '0' }));
  assert.is(wants('simulate'), false);
  assert.ok(COMPONENTS.filter((c) => c !== 'simulate').every((c) => wants(c)));
});

test('--only runs exactly what it names, the simulator too', () => {
  const wants = wantedComponents(parseOnly('api,simulate'), runtime(false, { SIMULATE: '0' }));
  assert.equal(COMPONENTS.filter((c) => wants(c)), ['api', 'simulate']);
  assert.throws(() => parseOnly('api,nonsense'), /unknown component nonsense/);
});

test('on the in-process transport --only refuses the bridge or part of the pipeline without the whole pipeline (test/integration/start-only)', () => {
  for (const only of ['bridge', 'bridge,api', 'enrich', 'persist..notify', 'bridge,enrich,dedup']) {
    assert.match(inProcessOnlyRefusal(parseOnly(only), false) ?? '', /no reader in this process/, only);
    assert.is(inProcessOnlyRefusal(parseOnly(only), true), null, `${only} on Kafka`);
  }
  for (const only of ['bridge,pipeline', 'pipeline', 'api', 'api,delivery,alarms', 'bridge,pipeline,api']) assert.is(inProcessOnlyRefusal(parseOnly(only), false), null, only);
  assert.is(inProcessOnlyRefusal(null, false), null, 'no --only: everything runs');
});

test.run();
