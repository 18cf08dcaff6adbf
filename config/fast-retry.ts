// FAULTLINE_FAST_RETRY=1 (tests only): retry back-offs shrink to milliseconds (plumbing/retry.ts). Read once
// when the module loads: it is process-wide, not part of one runtime's settings.
export const FAST_RETRY = process.env.FAULTLINE_FAST_RETRY === '1';
