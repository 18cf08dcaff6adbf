// Reads an import file for `faultline import <file.json>`. Parse errors give a line and column but never
// quote the file: the text near a syntax error may be a password.
import { readFile } from 'node:fs/promises';
import { ImportError } from './errors.js';

function lineAndColumn(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  return `line ${line}, column ${position - before.lastIndexOf('\n')}`;
}

/**
 * The file's content as `unknown`, to be handed to `importReferenceData` / `validateImport`.
 *
 * @example
 *   const counts = await importReferenceData(pool, await readImportFile('reference.json'), { keyring });
 */
export async function readImportFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new ImportError('IMPORT_FILE_UNREADABLE', [], { message: `The import file ${path} cannot be read (${code}).` });
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // editors on Windows like to add a BOM
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const position = /position (\d+)/.exec((err as Error).message);
    const where = position ? ` near ${lineAndColumn(text, Number(position[1]))}` : '';
    throw new ImportError('IMPORT_FILE_NOT_JSON', [], { message: `The import file ${path} is not valid JSON${where}.` });
  }
}
