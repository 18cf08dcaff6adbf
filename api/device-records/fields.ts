// Whitelisted columns of the read interface. A field name from a request is only ever a key into one of
// these tables; the SQL text comes from the table, values go in as $n parameters (issue 4, point 5).

/** How a filter value of the field is read and compared. */
export type FieldType =
  /** Compared as text: eq, ne, contains, in. */
  | 'text'
  /** Compared as a number: eq, ne, gte, lte, in. */
  | 'number'
  /** Ongoing_fault / ActualOngoingFault: a code, or the string the caller sees (masked or not): eq, ne, in. */
  | 'ongoing-fault'
  /** State / FaultType: a code or its configured string: eq, ne, in. */
  | 'state'
  | 'fault-type'
  /** EventType: text, where `Fault` means every fault event type: eq, ne, contains, in. */
  | 'event-type'
  /** LastCheckInTime read as the device-summary cards count it: `online`, `offline` (includes never), `never`: eq. */
  | 'connectivity';

export interface FieldDef {
  /** SQL expression, a constant of this module's callers. */
  sql: string;
  type: FieldType;
}

export type FieldTable = Readonly<Record<string, FieldDef>>;

export const OPERATORS = ['eq', 'ne', 'contains', 'gte', 'lte', 'in'] as const;
export type Operator = (typeof OPERATORS)[number];

export const OPERATORS_OF: Readonly<Record<FieldType, readonly Operator[]>> = {
  text: ['eq', 'ne', 'contains', 'in'],
  number: ['eq', 'ne', 'gte', 'lte', 'in'],
  'ongoing-fault': ['eq', 'ne', 'in'],
  state: ['eq', 'ne', 'in'],
  'fault-type': ['eq', 'ne', 'in'],
  'event-type': ['eq', 'ne', 'contains', 'in'],
  connectivity: ['eq'],
};

export const text = (sql: string): FieldDef => ({ sql, type: 'text' });
export const num = (sql: string): FieldDef => ({ sql, type: 'number' });
export const fault = (sql: string): FieldDef => ({ sql, type: 'ongoing-fault' });
export const eventType = (sql: string): FieldDef => ({ sql, type: 'event-type' });
