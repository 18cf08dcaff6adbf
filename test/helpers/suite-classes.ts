// Which suites `npm test -- --no-infra` runs (test/run.ts): those that need nothing but Node, bash, git and
// openssl. Server suites (the folders below) need the servers of infra/up.sh and the tools they fetch (Java for
// Kafka and the registry); the PYTHON_SUITES need Python (zeep and lxml from PyPI, or python3 itself). The full
// run runs every one of them, so leaving them out of --no-infra reduces nothing it covers
// (docs/decisions.md#what-no-infra-needs).

/** Folders whose suites talk to the real servers. */
export const SERVER_DIRS = ['test/integration', 'test/resilience', 'test/security', 'test/interop'];

/** Suites outside SERVER_DIRS that need Python: they run beside the server suites, never under --no-infra. */
export const PYTHON_SUITES = [
  // Every MultiSpeak envelope validated by lxml and parsed by zeep (test/multispeak/python.ts).
  'test/multispeak/envelopes.test.ts',
  // A listener that never accepts (Node accepts every connection; a Python socket with a full backlog does not).
  'test/bridge/sqs-connect-timeout.test.ts',
];

/** True for a suite that `--no-infra` leaves out: it needs the servers or Python. */
export const needsMoreThanNode = (file: string): boolean => SERVER_DIRS.some((d) => file.startsWith(d + '/')) || PYTHON_SUITES.includes(file);
