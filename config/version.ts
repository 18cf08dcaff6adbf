// The product's version, written once: package.json's `version`. The CLI's --version, the MultiSpeak header's
// AppVersion and the DNP3 device profile's software version all read it here.
import { existsSync, readFileSync } from 'node:fs';

/** package.json: one folder up in a checkout (config/version.ts), two in an installed release (dist/config/version.js). */
const packageFile = ['../package.json', '../../package.json'].map((p) => new URL(p, import.meta.url)).find(existsSync);
if (!packageFile) throw new Error('package.json not found beside the program: the installation is incomplete');

export const APP_VERSION: string = (JSON.parse(readFileSync(packageFile, 'utf8')) as { version: string }).version;
