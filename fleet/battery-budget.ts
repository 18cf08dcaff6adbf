// What a model's battery holds and what a check-in costs it (issue 44 point 3; docs/decisions.md#battery-forecast).
// A table in code, one row per current model name (schemas/config/model-map.json maps legacy names to these),
// and one documented default for a model it does not list: the forecast says which it used (its evidence), so a
// figure made from the default is never mistaken for one made from the model's own data sheet.

export interface BatteryBudget {
  /** Usable charge of a new cell, mAh (an equivalent: what the model's cell delivers down to its cut-off). */
  capacityMah: number;
  /** Charge of one check-in apart from its radio time (wake, sensing, the sleep between check-ins), mAh. */
  perMessageMah: number;
  /** Charge of one second of connection (ConnectTime: the radio on), mAh. */
  perConnectSecondMah: number;
  /**
   * The cell's voltage (BatteryMCU, the day's highest reading, volts) under which its end is near: a lithium cell
   * holds its voltage flat until then, so the voltage only confirms an end late, never forecasts one.
   */
  lowVoltage: number;
}

/**
 * The default: a D-size lithium thionyl chloride cell (19 Ah, cut-off near 3.1 V under load), a check-in costing
 * 0.05 mAh besides its radio time and a cellular modem drawing about 200 mA while connected (200 / 3600 mAh a
 * second). At six check-ins of 20 s a day that is about 7 mAh a day: seven years.
 */
export const DEFAULT_BATTERY_BUDGET: BatteryBudget = { capacityMah: 19_000, perMessageMah: 0.05, perConnectSecondMah: 200 / 3600, lowVoltage: 3.1 };

/** Per model (the model name a check-in reports after the model map). */
export const BATTERY_BUDGETS: Readonly<Record<string, BatteryBudget>> = {
  'FCI-3000': DEFAULT_BATTERY_BUDGET,
  // The older unit: a C-size cell and a 2G modem (longer, costlier connections).
  'FCI-2000': { capacityMah: 8_500, perMessageMah: 0.05, perConnectSecondMah: 250 / 3600, lowVoltage: 3.1 },
  // The FI-5A's separate display cell is BatteryLED; the forecast follows the MCU cell, which the modem drains.
  'FI-5A E04TRB-X': { capacityMah: 13_000, perMessageMah: 0.04, perConnectSecondMah: 200 / 3600, lowVoltage: 3.1 },
  'FI-5A E04TRB-Y': { capacityMah: 13_000, perMessageMah: 0.04, perConnectSecondMah: 200 / 3600, lowVoltage: 3.1 },
  'FI-5A F24TNB-Y': { capacityMah: 13_000, perMessageMah: 0.04, perConnectSecondMah: 200 / 3600, lowVoltage: 3.1 },
};

/** The budget of a model and whether it is the model's own or the default. */
export function budgetOf(model: string | null): { budget: BatteryBudget; from: 'model' | 'default' } {
  const own = model === null ? undefined : BATTERY_BUDGETS[model];
  return own ? { budget: own, from: 'model' } : { budget: DEFAULT_BATTERY_BUDGET, from: 'default' };
}
