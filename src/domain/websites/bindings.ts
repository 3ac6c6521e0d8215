// Binds models (posts, tags, pages, menus, users) to websites: one table and one mechanism for all.
// A model bound to no website is global: it shows on every website.
import type { ExpressionBuilder, Expression, SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import { storableIds } from '../ids.js';
import type { Database } from '../../db/schema.js';

export class WebsiteBindings {
  constructor(private readonly db: Db) {}

  /** Replaces the websites a model is bound to (R-P8: replaced, not merged). */
  async sync(db: Db, modelType: string, modelId: number, websiteIds: readonly number[]): Promise<void> {
    await db
      .deleteFrom('website_bindings')
      .where('model_type', '=', modelType)
      .where('model_id', '=', modelId)
      .execute();
    const unique = [...new Set(websiteIds)];
    if (unique.length === 0) return;
    await db
      .insertInto('website_bindings')
      .values(
        unique.map((websiteId) => ({ website_id: websiteId, model_type: modelType, model_id: modelId })),
      )
      .execute();
  }

  /** The website ids of many models in one query. */
  async websitesOf(modelType: string, ids: readonly number[]): Promise<Map<number, number[]>> {
    const byModel = new Map<number, number[]>();
    if (ids.length === 0) return byModel;
    const rows = await this.db
      .selectFrom('website_bindings')
      .select(['model_id', 'website_id'])
      .where('model_type', '=', modelType)
      .where('model_id', 'in', [...ids])
      .orderBy('website_id')
      .execute();
    for (const row of rows) byModel.set(row.model_id, [...(byModel.get(row.model_id) ?? []), row.website_id]);
    return byModel;
  }

  /** Which of these website ids exist, in the order given, without duplicates. */
  async existing(ids: readonly number[]): Promise<number[]> {
    ids = storableIds(ids); // an id beyond the column's range cannot exist (and PostgreSQL would fail)
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('websites')
      .select('id')
      .where('id', 'in', [...ids])
      .execute();
    const found = new Set(rows.map((row) => row.id));
    return [...new Set(ids)].filter((id) => found.has(id));
  }
}

/**
 * A WHERE condition: the model whose id is in `idColumn` shows on `websiteId`: bound to it, or bound
 * to no website at all.
 *
 * `perRow`: for a query that stops after a few rows (a page in index order). PostgreSQL otherwise
 * turns both EXISTS into hashed subplans, which read every binding of the model type before the
 * first row: the cost of a page would grow with the data. `LIMIT 1 OFFSET 0` keeps them correlated
 * index lookups, a few per row read (SQLite does that anyway). A count, which reads every row, is
 * better off hashed: leave it out there.
 */
export function visibleOnWebsite<DB extends Database, TB extends keyof DB & string>(
  eb: ExpressionBuilder<DB, TB>,
  modelType: string,
  idColumn: Expression<number>,
  websiteId: number,
  options: { perRow?: boolean } = {},
): Expression<SqlBool> {
  const e = eb as unknown as ExpressionBuilder<Database, never>;
  const bindings = () => {
    const query = bindingsOf(e, modelType, idColumn);
    return options.perRow ? query.limit(1).offset(0) : query;
  };
  return e.or([
    e.not(e.exists(bindings())),
    e.exists(bindings().where('website_bindings.website_id', '=', websiteId)),
  ]);
}

/** A WHERE condition: the model of this type whose id is `modelId` is bound to website `websiteId`. */
export function boundToWebsite<DB extends Database, TB extends keyof DB & string>(
  eb: ExpressionBuilder<DB, TB>,
  modelType: string,
  modelId: number | Expression<number>,
  websiteId: number | Expression<number>,
): Expression<SqlBool> {
  const e = eb as unknown as ExpressionBuilder<Database, never>;
  return e.exists(bindingsOf(e, modelType, modelId).where('website_bindings.website_id', '=', websiteId));
}

/** The ids of the models of this type bound to website `websiteId` and to no other (they go with it). */
export function boundOnlyTo(db: Db, websiteId: number, modelType: string) {
  return db
    .selectFrom('website_bindings as mine')
    .select('mine.model_id')
    .where('mine.website_id', '=', websiteId)
    .where('mine.model_type', '=', modelType)
    .where((eb) =>
      eb.not(
        eb.exists(
          bindingsOf(eb, modelType, eb.ref('mine.model_id')).where(
            'website_bindings.website_id',
            '!=',
            websiteId,
          ),
        ),
      ),
    );
}

/**
 * The comments a website's moderators see and act on (issue 34 #7): those made on it, and, made before
 * comments kept their website, those under a post bound to it (under an all-sites post such an old
 * comment is the administrators', through lists that name no website).
 */
export function madeOnWebsite<DB extends Database, TB extends keyof DB & string>(
  eb: ExpressionBuilder<DB, TB>,
  websiteId: number,
): Expression<SqlBool> {
  const e = eb as unknown as ExpressionBuilder<Database, 'comments'>;
  return e.or([
    e('comments.website_id', '=', websiteId),
    e.and([
      e('comments.website_id', 'is', null),
      boundToWebsite(e, 'post', e.ref('comments.post_id'), websiteId),
    ]),
  ]);
}

/** The bindings of the model of this type whose id is `modelId`: a subquery. */
function bindingsOf<DB extends Database, TB extends keyof DB & string>(
  eb: ExpressionBuilder<DB, TB>,
  modelType: string,
  modelId: number | Expression<number>,
) {
  return (eb as unknown as ExpressionBuilder<Database, never>)
    .selectFrom('website_bindings')
    .select('website_bindings.model_id')
    .where('website_bindings.model_type', '=', modelType)
    .where('website_bindings.model_id', '=', modelId);
}
