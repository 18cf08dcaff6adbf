// Every setting that ends up as a wait in milliseconds (a `...Ms` field of Settings) is refused past 2^31-1 ms:
// Node's timers hold at most that, and a longer setTimeout fires at once (SHUTDOWN_TIMEOUT_MS=3000000000 made the
// drain exit 1 the moment it began). The refusal is a sentence naming the variable. A new `...Ms` setting without
// a row here fails the suite.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadSettings, MAX_TIMER_MS, type Settings } from '../../config/settings.js';

type MsField = { [K in keyof Settings]: K extends `${string}Ms` ? K : never }[keyof Settings];
/** Each `...Ms` setting: its variable and how many milliseconds one unit of it is. */
const MS_SETTINGS: Record<MsField, { name: string; unitMs: number }> = {
  shutdownTimeoutMs: { name: 'SHUTDOWN_TIMEOUT_MS', unitMs: 1 },
  kafkaSessionTimeoutMs: { name: 'KAFKA_SESSION_TIMEOUT_MS', unitMs: 1 },
  testFaultClearMs: { name: 'TEST_FAULT_CLEAR_SECONDS', unitMs: 1000 },
  incidentWindowMs: { name: 'INCIDENT_WINDOW_SECONDS', unitMs: 1000 },
  fleetTickMs: { name: 'FLEET_ASSESS_MINUTES', unitMs: 60_000 },
};

test('every ...Ms field of the settings has a row', () => {
  const fields = Object.keys(loadSettings({})).filter((k) => k.endsWith('Ms'));
  assert.equal(fields.filter((f) => !(f in MS_SETTINGS)), [], 'ms settings without a row');
});

for (const [field, { name, unitMs }] of Object.entries(MS_SETTINGS)) {
  test(`${name}: past what a timer holds is refused with a sentence naming it; the default stays within`, () => {
    const within = loadSettings({})[field as MsField];
    assert.ok(within > 0 && within <= MAX_TIMER_MS, `${field} default ${within}`);
    for (const over of [Math.floor(MAX_TIMER_MS / unitMs) + 1, 3_000_000_000, 1e300]) {
      assert.throws(() => loadSettings({ [name]: String(over) }), (err: Error) => err.message.startsWith(`${name}: `) && !err.message.includes('\n'), `${name}=${over}`);
    }
  });
}

test('the longest wait a timer holds is still accepted where the setting allows it', () => {
  assert.is(loadSettings({ SHUTDOWN_TIMEOUT_MS: String(MAX_TIMER_MS) }).shutdownTimeoutMs, MAX_TIMER_MS);
  assert.is(loadSettings({ KAFKA_SESSION_TIMEOUT_MS: String(MAX_TIMER_MS) }).kafkaSessionTimeoutMs, MAX_TIMER_MS);
});

test.run();
