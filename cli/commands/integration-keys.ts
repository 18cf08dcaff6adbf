// `faultline integration-keys create <org> <name>` and `rotate <org> <id>`: the operator issues an integration
// key for any organisation, printing it once. An organisation that masks fault details gets its keys only this
// way: a key reads the fault class unmasked, so its admins may list and revoke keys but not mint them
// (docs/decisions.md#integration-keys-and-the-mask). The key store (api/auth/integration-keys.ts) makes them.
import { keyNameProblem, pgIntegrationKeyStore, type IntegrationKeyInfo } from '../../api/auth/integration-keys.js';
import { openRuntime } from '../runtime.js';

/** Who the list names as the key's maker. */
export const OPERATOR = 'operator (command line)';

function printKey(action: string, org: string, info: IntegrationKeyInfo, key: string): void {
  process.stdout.write(`integration key ${info.id} ("${info.name}") of organisation ${org} ${action}; it is shown this once, only its hash is kept:\n${key}\n`);
}

export async function run(args: string[]): Promise<void> {
  const [action, org, third] = args;
  if ((action !== 'create' && action !== 'rotate') || !org || third === undefined) {
    throw new Error('integration-keys: create <organisation> <name> | rotate <organisation> <id>');
  }
  const runtime = await openRuntime();
  try {
    const { rowCount } = await runtime.pool.query('select 1 from organizations where "OrganizationID" = $1', [org]);
    if (!rowCount) throw new Error(`no organisation "${org}"`);
    const keys = pgIntegrationKeyStore(runtime.pool);
    if (action === 'create') {
      const name = third.trim();
      const problem = keyNameProblem(name);
      if (problem) throw new Error(`integration-keys create: the name ${problem}`);
      const { info, key } = await keys.create(org, name, OPERATOR);
      printKey('created', org, info, key);
    } else {
      const rotated = /^[0-9a-f]{16}$/.test(third) ? await keys.rotate(org, third) : null;
      if (!rotated) throw new Error(`integration-keys rotate: no key "${third}" of organisation ${org} that is not revoked (its admins list the ids: GET /api/integration-keys)`);
      printKey('rotated (the old secret no longer works)', org, rotated.info, rotated.key);
    }
  } finally {
    await runtime.close();
  }
}
