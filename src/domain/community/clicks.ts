// Click analytics: one row in `clicks` per counted event (a view, an outbound click, a like, a
// favourite) of a post, a link or a page. Rankings (R-F5) count these rows within a period.
// Recording is one INSERT … SELECT: it writes only when the target exists and is shown on the
// website, with no read-modify-write of any counter, so concurrent beacons never race. A like or a
// favourite counts once per visitor (a unique index; ON CONFLICT DO NOTHING). It does not run on the
// operation runner: one statement is atomic already, and a visitor's beacon announces nothing and is
// not audited, so a transaction around it would only add two round trips to every click.
import { sql } from 'kysely';
import type { Db, Dialect } from '../../db/database.js';
import { visibleOnWebsite } from '../websites/bindings.js';
import { nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import { isStorableId } from '../ids.js';

/** What may be counted: `type` of the request -> the `model_type` stored (and read by rankings). */
export const CLICK_TYPES = ['post', 'link', 'page'] as const;
export type ClickType = (typeof CLICK_TYPES)[number];
export const CLICK_KINDS = ['view', 'click', 'like', 'fav'] as const;
export type ClickKind = (typeof CLICK_KINDS)[number];
/** Kinds a visitor gives once per target. */
export const ONCE_PER_VISITOR: readonly ClickKind[] = ['like', 'fav'];

// Crawlers, link previews, monitors and automation say so in their user agent. A browser always sends
// one, so an empty user agent is not counted either.
const BOT_USER_AGENT =
  /bot\b|bot\/|crawl|spider|slurp|archiver|facebookexternalhit|embedly|preview|mediapartners|lighthouse|pingdom|uptime|monitor|headlesschrome|phantomjs|scrapy|wget|curl\/|python-requests|python-urllib|go-http-client|java\/|okhttp|libwww|httpclient|feedfetcher|ia_archiver/i;

export function isBot(userAgent: string | undefined): boolean {
  const agent = (userAgent ?? '').trim();
  return agent === '' || BOT_USER_AGENT.test(agent);
}

export interface ClickEvent {
  type: ClickType;
  id: number;
  kind: ClickKind;
  userId: number | null;
  /** The visitor's hash (a user's for a signed-in visitor); never a raw IP. */
  visitorHash: string;
  /** The website the event happened on: the target must be shown there. */
  websiteId: number;
}

export type ClickOutcome = 'recorded' | 'duplicate' | 'not_found';

export class ClicksService {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
  ) {}

  async record(event: ClickEvent): Promise<ClickOutcome> {
    if (!isStorableId(event.id)) return 'not_found';
    const now = nowIso(this.clock);
    // Values of the SELECT list, typed for PostgreSQL (it cannot infer a parameter's type there).
    const stamp = this.dialect === 'postgres' ? sql`cast(${now} as timestamptz)` : sql`${now}`;
    const values = [
      sql<string>`cast(${event.kind} as varchar(20))`.as('kind'),
      sql<number | null>`cast(${event.userId} as integer)`.as('user_id'),
      sql<string>`cast(${event.visitorHash} as char(64))`.as('visitor_hash'),
      sql<string>`${stamp}`.as('created_at'),
      sql<number>`cast(${event.websiteId} as integer)`.as('website_id'),
    ] as const;
    const columns = [
      'model_type',
      'model_id',
      'kind',
      'user_id',
      'visitor_hash',
      'created_at',
      'website_id',
    ] as const;
    // The SELECT yields one row when the target is live and shown on the website, else none.
    const source =
      event.type === 'page'
        ? this.db
            .selectFrom('pages')
            .select([sql.lit(event.type).as('model_type'), 'pages.id as model_id', ...values])
            .where('pages.id', '=', event.id)
            .where('pages.status', '=', 'published')
            .where('pages.deleted_at', 'is', null)
            .where((eb) => visibleOnWebsite(eb, 'page', eb.ref('pages.id'), event.websiteId))
        : this.db
            .selectFrom('posts')
            .select([sql.lit(event.type).as('model_type'), 'posts.id as model_id', ...values])
            .where('posts.id', '=', event.id)
            .where('posts.type', '=', event.type)
            .where('posts.status', '=', 'published')
            .where('posts.deleted_at', 'is', null)
            .where((eb) => visibleOnWebsite(eb, 'post', eb.ref('posts.id'), event.websiteId));
    const result = await this.db
      .insertInto('clicks')
      .columns([...columns])
      .expression(source)
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (Number(result.numInsertedOrUpdatedRows ?? 0) > 0) return 'recorded';
    // Nothing written: a repeated like/favourite, or no such target (the rare path reads once more).
    if (!ONCE_PER_VISITOR.includes(event.kind)) return 'not_found';
    const again = await this.db
      .selectFrom('clicks')
      .select('id')
      .where('model_type', '=', event.type)
      .where('model_id', '=', event.id)
      .where('kind', '=', event.kind)
      .where('visitor_hash', '=', event.visitorHash)
      .executeTakeFirst();
    return again ? 'duplicate' : 'not_found';
  }

  /** Counts of a target's events by kind (all time): for pages that show them, and for tests. */
  async counts(type: ClickType, id: number): Promise<Record<ClickKind, number>> {
    const counts: Record<ClickKind, number> = { view: 0, click: 0, like: 0, fav: 0 };
    if (!isStorableId(id)) return counts;
    const rows = await this.db
      .selectFrom('clicks')
      .select(['kind', (eb) => eb.fn.countAll<number>().as('total')])
      .where('model_type', '=', type)
      .where('model_id', '=', id)
      .groupBy('kind')
      .execute();
    for (const row of rows) {
      if ((CLICK_KINDS as readonly string[]).includes(row.kind))
        counts[row.kind as ClickKind] = Number(row.total);
    }
    return counts;
  }

  /** Events of one kind for many targets, in one query: id -> count (absent: none). */
  async totals(type: ClickType, kind: ClickKind, ids: readonly number[]): Promise<Map<number, number>> {
    const totals = new Map<number, number>();
    const valid = ids.filter(isStorableId);
    if (valid.length === 0) return totals;
    const rows = await this.db
      .selectFrom('clicks')
      .select(['model_id', (eb) => eb.fn.countAll<number>().as('total')])
      .where('model_type', '=', type)
      .where('kind', '=', kind)
      .where('model_id', 'in', valid)
      .groupBy('model_id')
      .execute();
    for (const row of rows) totals.set(row.model_id, Number(row.total));
    return totals;
  }
}
