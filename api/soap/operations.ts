// The operations our SOAP endpoint answers (docs/multispeak.md#what-our-endpoint-answers), in one list that the
// WSDL, the dispatcher and GetMethods all read, so what GetMethods says is what the endpoint does.
export const SERVED_OPERATIONS = ['PingURL', 'GetMethods', 'GetAllSCADAPoints'] as const;
export type ServedOperation = (typeof SERVED_OPERATIONS)[number];

export function isServedOperation(value: string): value is ServedOperation {
  return (SERVED_OPERATIONS as readonly string[]).includes(value);
}
