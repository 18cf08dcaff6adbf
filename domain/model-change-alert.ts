// Model-change alert (spec 6.1 step 5; docs/decisions.md#model-change-alert): the stored model of a device
// changed between two check-ins (a swapped unit, a firmware that reports another model string). The alert
// row is shown in critical-data as EventType `Model Change`.
import type { ModelMap } from './model-replacement.js';
import { replaceModel } from './model-replacement.js';

export const MODEL_CHANGE_EVENT_TYPE = 'Model Change';

export interface ModelChangeAlert {
  IMEINumber: string;
  oldModel: string;
  newModel: string;
  /** The check-in's date (device time, UTC ISO), not the processing time. */
  at: string;
}

export interface ModelChangeInput {
  IMEINumber: string;
  /** The model of this check-in after replacement (spec 3.3). */
  newModel: string | null;
  /** The previous stored record, or null when the device has none. */
  previous: { model: string | null } | null;
  /** The check-in's device_data.date. */
  at: string;
  /**
   * The current replacement map. The previous model is compared after replacement too, so adding a key
   * to the map (old records stored `fci3k`, new ones `FCI-3000`) does not raise an alert for every device.
   */
  modelMap?: ModelMap;
}

/**
 * An alert when both models are known and differ. Decisions: no previous record, or a model missing on
 * either side (the device left the field out), is no change; oldModel is the value as stored.
 */
export function modelChangeAlert(input: ModelChangeInput): ModelChangeAlert | null {
  const { previous, newModel } = input;
  if (previous === null || previous.model === null || newModel === null) return null;
  const comparable = input.modelMap ? replaceModel(previous.model, input.modelMap) : previous.model;
  if (comparable === newModel) return null;
  return { IMEINumber: input.IMEINumber, oldModel: previous.model, newModel, at: input.at };
}
