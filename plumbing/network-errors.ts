// Socket, DNS and HTTP failures as ours (docs/decisions.md#one-error-base): the one place their shapes are
// read: Node's net/dns codes, undici's (fetch throws them as its TypeError's cause), an AbortSignal's timeout,
// and an HTTP answer's status on an error (`status` or undici's `statusCode`).
import { CodedError, type CodeMeaning } from '../errors/code-table.js';

export const NETWORK_ERRORS = {
  NETWORK_UNAVAILABLE: { retriable: true, meaning: 'the peer cannot be reached: connection refused, reset or timed out, DNS failure' },
  TIMED_OUT: { retriable: true, meaning: 'the request was aborted by its timeout' },
  HTTP_UNAVAILABLE: { retriable: true, meaning: 'the peer answered 5xx, 429 or 408: away or busy' },
  HTTP_REFUSED: { retriable: false, meaning: 'the peer refused the request itself (another 4xx)' },
} as const satisfies Record<string, CodeMeaning>;

const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN',
  'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED',
]);

export class NetworkError extends CodedError(NETWORK_ERRORS) {}

/** A socket, DNS, timeout or HTTP-status failure as a NetworkError (the original as its cause); undefined for anything else. */
export function fromNetwork(err: unknown): NetworkError | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { name?: unknown; code?: unknown; message?: unknown; status?: unknown; statusCode?: unknown };
  const message = typeof e.message === 'string' ? e.message : '';
  if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return new NetworkError('NETWORK_UNAVAILABLE', message, { cause: err });
  if (e.name === 'AbortError' || e.name === 'TimeoutError') return new NetworkError('TIMED_OUT', message, { cause: err });
  const status = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : null;
  if (status === null || status < 400) return undefined;
  return new NetworkError(status >= 500 || status === 429 || status === 408 ? 'HTTP_UNAVAILABLE' : 'HTTP_REFUSED', message, { cause: err });
}
