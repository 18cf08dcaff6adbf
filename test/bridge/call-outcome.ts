// How a call of the SQS request path ended, for the suites that want it to fail and never hang.

/** What a call came to: its value's word 'resolved', its error, or 'still pending' once a bound only a hang reaches passed. */
export async function outcome(call: Promise<unknown>, boundMs = 20_000): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise((r) => { timer = setTimeout(() => r('still pending'), boundMs); });
  try {
    return await Promise.race([call.then(() => 'resolved', (e: unknown) => e), pending]);
  } finally {
    clearTimeout(timer);
  }
}
