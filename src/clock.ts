/** Milliseconds since the epoch: the one clock every part of the service reads (tests inject their own). */
export type Clock = () => number;

/** The clock's time as the ISO-8601 text stored and answered everywhere. */
export const isoNow = (clock: Clock): string => new Date(clock()).toISOString();
