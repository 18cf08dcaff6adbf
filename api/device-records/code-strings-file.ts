// Loads the State / FaultType strings (docs/decisions.md#codes-to-strings) once at start, from
// Settings.codeStringsFile (CODE_STRINGS_FILE) or the shipped schemas/config/code-strings.json.
import { readFileSync } from 'node:fs';
import { DEFAULT_CODE_STRINGS_FILE } from '../../config/settings.js';
import { parseCodeStrings, type CodeStrings } from '../../domain/code-strings.js';

export function loadCodeStrings(file: string = DEFAULT_CODE_STRINGS_FILE): CodeStrings {
  const result = parseCodeStrings(JSON.parse(readFileSync(file, 'utf8')));
  if (!result.ok) throw new Error(`${file}: ${result.reason}`);
  return result.value;
}
