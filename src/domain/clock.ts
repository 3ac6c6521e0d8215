// Time comes from a Clock so that tests can move it (update locks expire after 3 minutes).
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** The clock's current time as stored in the database: ISO 8601 UTC. */
export function nowIso(clock: Clock): string {
  return clock.now().toISOString();
}

/**
 * The `updated_at` of a new version of a row last changed at `previous`: now, or a millisecond after
 * `previous` when the clock has not moved past it (two writes in one millisecond, or a clock set
 * back). Versions must differ: API v2's ETags and If-Match are made of them.
 */
export function nextVersion(clock: Clock, previous: string | Date | null | undefined): string {
  const now = clock.now().getTime();
  const last = previous ? new Date(previous).getTime() : NaN;
  return new Date(Number.isNaN(last) || now > last ? now : last + 1).toISOString();
}
