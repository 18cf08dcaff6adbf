// Errors of `faultline import` (typed, with a machine code). A problem names its place in the file
// (`devices[3].OrganizationID`); no message ever quotes a password or an integration credential.

import { FaultlineError } from '../errors/base.js';

export interface Problem {
  /** Where in the file, e.g. `devices[3].OrganizationID`; `(file)` for the file as a whole. */
  path: string;
  message: string;
}

export const IMPORT_ERRORS = {
  /** The file cannot be read (missing, unreadable). */
  IMPORT_FILE_UNREADABLE: 'The import file cannot be read.',
  /** The file is not JSON. */
  IMPORT_FILE_NOT_JSON: 'The import file is not valid JSON.',
  /** The content breaks the import format; `problems` lists every finding. Nothing was written. */
  IMPORT_INVALID: 'The import file is invalid; nothing was imported.',
} as const;

export type ImportErrorCode = keyof typeof IMPORT_ERRORS;

/** How many problems the message lists; `problems` always holds all of them. */
const LISTED = 50;

export function formatProblems(problems: readonly Problem[]): string {
  const lines = problems.slice(0, LISTED).map((p) => `  ${p.path}: ${p.message}`);
  if (problems.length > LISTED) lines.push(`  ... and ${problems.length - LISTED} more`);
  return lines.join('\n');
}

/**
 * @example
 *   catch (err) { if (err instanceof ImportError) for (const p of err.problems) console.error(`${p.path}: ${p.message}`); }
 */
export class ImportError extends FaultlineError<ImportErrorCode> {
  readonly problems: readonly Problem[];

  constructor(code: ImportErrorCode, problems: readonly Problem[] = [], options: { message?: string; cause?: unknown } = {}) {
    const head = options.message ?? IMPORT_ERRORS[code];
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    // Bad input stays bad.
    super(code, problems.length ? `${head} ${count}:\n${formatProblems(problems)}` : head, { retriable: false, cause: options.cause });
    this.problems = problems;
  }
}
