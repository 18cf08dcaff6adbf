// Loads the State / FaultType strings (docs/decisions.md#codes-to-strings) once at start, from
// CODE_STRINGS_FILE or the shipped schemas/config/code-strings.json.
import { readFileSync } from 'node:fs';
import { parseCodeStrings, type CodeStrings } from '../../domain/code-strings.js';

export const DEFAULT_CODE_STRINGS_FILE = new URL('../../schemas/config/code-strings.json', import.meta.url).pathname;

export function loadCodeStrings(file: string = process.env.CODE_STRINGS_FILE || DEFAULT_CODE_STRINGS_FILE): CodeStrings {
  const result = parseCodeStrings(JSON.parse(readFileSync(file, 'utf8')));
  if (!result.ok) throw new Error(`${file}: ${result.reason}`);
  return result.value;
}
