// Idempotent creates (issue 21 #16): a client that sends `Idempotency-Key: <its own unique string>`
// and retries after a cut connection gets the first answer again, not a second post. The first
// request claims the key (a row with no answer yet, under the primary key, so of two at once only
// one claims it), runs, and keeps its successful answer for 24 hours. A retry while the first still
// runs is a conflict (409); the same key with another input is refused (422); a failed first attempt
// keeps nothing, so its retry runs again.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { ExpressionBuilder } from 'kysely';
import { deleteInChunks } from '../../db/chunked.js';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Clock } from '../clock.js';
import { nowIso } from '../clock.js';
import { ConflictError, InputError } from '../errors.js';

export const IDEMPOTENCY_HOURS = 24;
/** What a key may be: 1 to 255 visible ASCII characters (a UUID, say). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface RecordedAnswer {
  status: number;
  /** The answer's JSON text. */
  body: string;
}

/** A stable JSON text of a value: object keys sorted, so one input always has one fingerprint. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (Buffer.isBuffer(value)) return JSON.stringify(createHash('sha256').update(value).digest('hex'));
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export class Idempotency {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  private cutoff(): string {
    return new Date(this.clock.now().getTime() - IDEMPOTENCY_HOURS * 3_600_000).toISOString();
  }

  /**
   * Runs `work` once per (caller, scope, key) within 24 hours, and answers a repeat with the first
   * answer (`replayed: true`). Only answers below 300 are kept.
   */
  async run(
    claim: { caller: string; scope: string; key: string; input: unknown },
    work: () => Promise<RecordedAnswer>,
  ): Promise<RecordedAnswer & { replayed: boolean }> {
    if (!KEY_PATTERN.test(claim.key)) {
      throw new InputError(
        'idempotency_key',
        'The Idempotency-Key must be 1 to 255 visible ASCII characters.',
      );
    }
    const fingerprint = createHash('sha256').update(stableJson(claim.input)).digest('hex');
    const row = { caller: claim.caller, scope: claim.scope, key: claim.key };
    const thisKey = (eb: ExpressionBuilder<Database, 'idempotency_keys'>) => eb.and(row);
    // A claim older than the window is forgotten: the key may be used again.
    await this.db
      .deleteFrom('idempotency_keys')
      .where(thisKey)
      .where('created_at', '<', this.cutoff())
      .execute();
    try {
      await this.db
        .insertInto('idempotency_keys')
        .values({ ...row, fingerprint, status: null, body: null, created_at: nowIso(this.clock) })
        .execute();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const first = await this.db
        .selectFrom('idempotency_keys')
        .select(['fingerprint', 'status', 'body'])
        .where(thisKey)
        .executeTakeFirst();
      if (!first) return this.run(claim, work); // the first attempt failed and let go meanwhile
      if (first.fingerprint.trim() !== fingerprint) {
        throw new InputError('idempotency_key', 'This Idempotency-Key was used with a different request.');
      }
      if (first.status === null || first.body === null) {
        throw new ConflictError('A request with this Idempotency-Key is still being processed.');
      }
      return { status: Number(first.status), body: first.body, replayed: true };
    }
    const release = () => this.db.deleteFrom('idempotency_keys').where(thisKey).execute();
    let answer: RecordedAnswer;
    try {
      answer = await work();
    } catch (error) {
      await release().catch(() => undefined);
      throw error;
    }
    if (answer.status < 300) {
      await this.db
        .updateTable('idempotency_keys')
        .set({ status: answer.status, body: answer.body })
        .where(thisKey)
        .execute();
    } else {
      await release();
    }
    return { ...answer, replayed: false };
  }

  /** Forgets the answers older than the window (the scheduler calls it hourly). */
  async prune(): Promise<number> {
    const cutoff = this.cutoff();
    return deleteInChunks(
      this.db,
      'idempotency_keys',
      ['caller', 'scope', 'key'],
      sql`created_at < ${cutoff}`,
    );
  }
}
