// Slots and banks (docs/decisions.md#dnp3-outstation): every device and every power line with feeder topology
// has an organisation-wide slot, never reused. An organisation's slots are split into banks of BANK_SLOTS
// consecutive slots; a bank is one DNP3 logical outstation (link address) and one IEC 104 common address.
// Under BANK_SLOTS devices there is bank 0 only.

/** Slots per bank: a round number below DNP3's 16-bit index limit (8,191 slots), so maps stay readable (bank 1 = slots 8000..15999). */
export const BANK_SLOTS = 8000;

export const bankOf = (slot: number): number => Math.floor(slot / BANK_SLOTS);
export const localSlot = (slot: number): number => slot % BANK_SLOTS;
/** Number of banks for an organisation whose highest slot is `maxSlot` (-1: no devices; bank 0 still exists). */
export const bankCount = (maxSlot: number): number => (maxSlot < 0 ? 1 : bankOf(maxSlot) + 1);
/** The highest local slot of bank `bank` when the organisation's highest slot is `maxSlot` (-1: none). */
export const lastLocalSlot = (bank: number, maxSlot: number): number =>
  bank < bankOf(maxSlot) ? BANK_SLOTS - 1 : maxSlot < 0 ? -1 : localSlot(maxSlot);
