// A capability's error class from its code table (docs/decisions.md#error-classes-from-their-code-table): the
// table says of each code whether trying again can help, so the class states only its table and its extras,
// and no constructor repeats `retriable: TABLE[code].retriable`. Pure: no I/O.
import { FaultlineError } from './base.js';

/** What a capability's code table says of each code: what it means, and whether trying again can help. */
export interface CodeMeaning {
  readonly retriable: boolean;
  readonly meaning: string;
}

/** A code table's entry: whether trying again can help, and what the code means or the message an error of it says by default. */
export interface CodeEntry {
  readonly retriable: boolean;
  readonly meaning?: string;
  readonly message?: string;
}

export interface CodedErrorOptions {
  /** What went wrong underneath (ES2022 `cause`). */
  cause?: unknown;
  /** This error's own answer where it depends on more than the code (an SMTP reply code); else the table's. */
  retriable?: boolean;
}

/**
 * The base class of a capability's errors: `new X(code, message?, { cause?, retriable? })` takes `retriable`
 * from the code's entry unless the error says otherwise, and the message from the caller, else the entry's
 * `message`, else what the code means.
 *
 * @example
 *   export const DELIVERY_ERRORS = { TIMEOUT: { retriable: true, meaning: '...' }, ... } as const satisfies Record<string, CodeMeaning>;
 *   export class DeliveryError extends CodedError(DELIVERY_ERRORS) {}
 */
export function CodedError<Code extends string>(table: Readonly<Record<Code, CodeEntry>>) {
  abstract class Coded extends FaultlineError<Code> {
    constructor(code: Code, message?: string, { cause, retriable }: CodedErrorOptions = {}) {
      const entry = table[code];
      super(code, message ?? entry.message ?? entry.meaning ?? code, { retriable: retriable ?? entry.retriable, cause });
    }
  }
  return Coded;
}
