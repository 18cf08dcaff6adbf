// Where the shared material (fixtures, reference WSDLs) is: `../shared` beside the checkout, as CI lays it
// out, else the workplace's /work/shared (a scratch clone elsewhere); FAULTLINE_SHARED overrides both.
// Never edited by tests.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const beside = new URL('../../shared/', import.meta.url).pathname;

export const SHARED_DIR = process.env.FAULTLINE_SHARED ?? (existsSync(beside) ? beside : '/work/shared/');
export const FIXTURES_PATH = process.env.FAULTLINE_FIXTURES ?? join(SHARED_DIR, 'fixtures');
/** As a directory URL (trailing slash), for `new URL(name, FIXTURES_URL)`. */
export const FIXTURES_URL = pathToFileURL(`${FIXTURES_PATH}/`);
