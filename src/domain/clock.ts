// Time comes from a Clock so that tests can move it (update locks expire after 3 minutes).
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** The clock's current time as stored in the database: ISO 8601 UTC. */
export function nowIso(clock: Clock): string {
  return clock.now().toISOString();
}
