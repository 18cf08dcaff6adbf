// Ongoing_fault / ActualOngoingFault as the API shows them: the string of spec 3.1, or, when the
// organisation has MaskFaultDetails, only `None` / `Fault` (spec 3.5). One function so no endpoint can
// forget the mask.
import { maskedOngoingFaultText, ongoingFaultText } from './ongoing-fault-codes.js';

export function ongoingFaultDisplay(code: number, maskFaultDetails: boolean): string {
  return maskFaultDetails ? maskedOngoingFaultText(code) : ongoingFaultText(code);
}

export function ongoingFaultDisplayOrNull(code: number | null, maskFaultDetails: boolean): string | null {
  return code === null ? null : ongoingFaultDisplay(code, maskFaultDetails);
}
