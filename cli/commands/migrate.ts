import { openRuntime } from '../runtime.js';

export async function run(): Promise<void> {
  const runtime = await openRuntime({ schema: 'none' });
  try {
    const { migrate } = await import('../../db/migrate.js');
    const { applied, alreadyApplied } = await migrate(runtime.pool);
    process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : `up to date (${alreadyApplied} migrations)\n`);
  } finally {
    await runtime.close();
  }
}
