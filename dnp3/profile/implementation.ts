// What the outstation answers, as the device profile's implementation table lists it (docs/decisions.md#dnp3-device-profile):
// object group and variation, the request function codes and qualifiers accepted, the response qualifiers
// sent. dnp3/README.md "Device profile" says the same in prose; test/interop/dnp3/yadnp3-profile.test.ts reads
// every READ row with the opendnp3 master and checks the variation and values it gets back.

export interface ImplementationRow {
  group: number;
  variation: number;
  description: string;
  request?: { functionCodes: number[]; qualifiers: number[] };
  response?: { functionCodes: number[]; qualifiers: number[] };
}

const READ = 1;
const WRITE = 2;
const ENABLE_UNSOLICITED = 20;
const DISABLE_UNSOLICITED = 21;
const RESPONSE = 129;
const UNSOLICITED_RESPONSE = 130;

const staticRead = { functionCodes: [READ], qualifiers: [0x00, 0x01, 0x06, 0x17, 0x28] };
const staticAnswer = { functionCodes: [RESPONSE], qualifiers: [0x00, 0x01, 0x28] };
const eventRead = { functionCodes: [READ], qualifiers: [0x06, 0x07, 0x08] };
const eventAnswer = { functionCodes: [RESPONSE, UNSOLICITED_RESPONSE], qualifiers: [0x28] };

export const IMPLEMENTATION: readonly ImplementationRow[] = [
  { group: 1, variation: 0, description: 'Binary Input - any variation (answered as variation 2)', request: staticRead },
  { group: 1, variation: 1, description: 'Binary Input - packed format', request: staticRead, response: staticAnswer },
  { group: 1, variation: 2, description: 'Binary Input - with flags', request: staticRead, response: staticAnswer },
  { group: 2, variation: 0, description: 'Binary Input Event - any variation (answered as variation 2)', request: eventRead },
  { group: 2, variation: 1, description: 'Binary Input Event - without time', request: eventRead, response: eventAnswer },
  { group: 2, variation: 2, description: 'Binary Input Event - with absolute time', request: eventRead, response: eventAnswer },
  { group: 30, variation: 0, description: 'Analog Input - any variation (answered as variation 5)', request: staticRead },
  { group: 30, variation: 1, description: 'Analog Input - 32-bit with flag', request: staticRead, response: staticAnswer },
  { group: 30, variation: 2, description: 'Analog Input - 16-bit with flag', request: staticRead, response: staticAnswer },
  { group: 30, variation: 5, description: 'Analog Input - single-precision floating point with flag', request: staticRead, response: staticAnswer },
  { group: 32, variation: 0, description: 'Analog Input Event - any variation (answered as variation 7)', request: eventRead },
  { group: 32, variation: 1, description: 'Analog Input Event - 32-bit without time', request: eventRead, response: eventAnswer },
  { group: 32, variation: 3, description: 'Analog Input Event - 32-bit with time', request: eventRead, response: eventAnswer },
  { group: 32, variation: 5, description: 'Analog Input Event - single-precision floating point without time', request: eventRead, response: eventAnswer },
  { group: 32, variation: 7, description: 'Analog Input Event - single-precision floating point with time', request: eventRead, response: eventAnswer },
  { group: 50, variation: 1, description: 'Time and Date - absolute time', request: { functionCodes: [READ, WRITE], qualifiers: [0x07] }, response: { functionCodes: [RESPONSE], qualifiers: [0x07] } },
  { group: 50, variation: 3, description: 'Time and Date - absolute time at last recorded time', request: { functionCodes: [WRITE], qualifiers: [0x07] } },
  { group: 52, variation: 2, description: 'Time Delay - fine (the answer to DELAY_MEASURE, function 23)', response: { functionCodes: [RESPONSE], qualifiers: [0x07] } },
  { group: 60, variation: 1, description: 'Class Objects - class 0 data', request: { functionCodes: [READ], qualifiers: [0x06] } },
  { group: 60, variation: 2, description: 'Class Objects - class 1 data', request: { functionCodes: [READ, ENABLE_UNSOLICITED, DISABLE_UNSOLICITED], qualifiers: [0x06, 0x07, 0x08] } },
  { group: 60, variation: 3, description: 'Class Objects - class 2 data', request: { functionCodes: [READ, ENABLE_UNSOLICITED, DISABLE_UNSOLICITED], qualifiers: [0x06, 0x07, 0x08] } },
  { group: 60, variation: 4, description: 'Class Objects - class 3 data', request: { functionCodes: [READ, ENABLE_UNSOLICITED, DISABLE_UNSOLICITED], qualifiers: [0x06, 0x07, 0x08] } },
  { group: 80, variation: 1, description: 'Internal Indications - packed format (write index 7 = 0 only: clears DEVICE_RESTART)', request: { functionCodes: [WRITE], qualifiers: [0x00] } },
];

/** Function codes the outstation executes (others answer IIN2.0; controls answer NOT_SUPPORTED, see the profile's gaps). */
export const SUPPORTED_FUNCTION_CODES: readonly { code: number; name: string }[] = [
  { code: 0, name: 'CONFIRM' }, { code: 1, name: 'READ' }, { code: 2, name: 'WRITE' },
  { code: 20, name: 'ENABLE_UNSOLICITED' }, { code: 21, name: 'DISABLE_UNSOLICITED' },
  { code: 23, name: 'DELAY_MEASURE' }, { code: 24, name: 'RECORD_CURRENT_TIME' },
];

/** What the profile says is not done (go-dnp3's profile keeps such a list too). */
export const KNOWN_GAPS: readonly string[] = [
  'Controls (g12v1 SELECT, OPERATE, DIRECT_OPERATE) are echoed with status 4 NOT_SUPPORTED and IIN2.2: fault indicators have no outputs; DIRECT_OPERATE_NR gets no response.',
  'COLD_RESTART and WARM_RESTART answer IIN2.0 (function not supported).',
  'A repeated READ (same sequence number) is executed again rather than detected as a duplicate.',
  'No g0 device attributes, no self address 0xFFFC, no confirmation of the response after a 0xFFFE broadcast.',
  'The outstation never sends REQUEST_LINK_STATUS keep-alives; it answers the master\'s.',
  'No file transfer, no counters, no double-bit or binary/analog outputs, no secure authentication (TLS protects the link instead).',
];
