// Loaded into the pipeline processes of poison.test.ts with `node --import` (never by the product): installs
// the test seam's wrapper (stages/runtime/test-seam.ts) so that one stage throws on chosen check-ins, as a bug
// would. POISON_HOOK_DIR holds faults.json ([{stage, imei, date, mode}]); mode `always` throws until the file
// `fixed` appears there (the fix is deployed), `twice` throws on the first two batches that hold the record,
// counted across every process (exclusive creation of numbered files).
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { installStageWrapper } from '../../stages/runtime/test-seam.js';

export interface InjectedFault { stage: string; imei: string; date: string; mode: 'always' | 'twice' }

const dir = process.env.POISON_HOOK_DIR;

function fails(fault: InjectedFault, at: string): boolean {
  if (fault.mode === 'always') return !existsSync(join(at, 'fixed'));
  for (let n = 1; n <= 2; n++) {
    try {
      closeSync(openSync(join(at, `${fault.imei}-${Date.parse(fault.date)}-${n}`), 'wx'));
      return true;
    } catch { /* taken: that failure already happened */ }
  }
  return false;
}

if (dir) {
  const faults = JSON.parse(readFileSync(join(dir, 'faults.json'), 'utf8')) as InjectedFault[];
  installStageWrapper((stage) => {
    const mine = faults.filter((f) => f.stage === stage.name);
    if (mine.length === 0) return stage;
    return {
      ...stage,
      async handle(batch, controls) {
        for (const m of batch.messages) {
          const d = (m.value as { checkIn?: { device_data?: { IMEINumber?: string; date?: string } } }).checkIn?.device_data;
          const fault = d && mine.find((f) => f.imei === d.IMEINumber && Date.parse(f.date) === Date.parse(d.date ?? ''));
          if (fault && fails(fault, dir)) throw new Error(`injected fault (${fault.mode}) in ${stage.name} for ${fault.imei} at ${fault.date}`);
        }
        return stage.handle(batch, controls);
      },
    };
  });
}
