// The one WHERE condition for "this model carries this tag (or one of these tags)", for the lists that
// filter by tag: links, posts, their counts.
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Database } from '../db/schema.js';

/** The model of this type whose id is in `idColumn` carries the tag `tags`, or one of `tags`. */
export function taggedWith<DB extends Database, TB extends keyof DB & string>(
  eb: ExpressionBuilder<DB, TB>,
  modelType: string,
  idColumn: Expression<number>,
  tags: number | readonly number[],
): Expression<SqlBool> {
  const e = eb as unknown as ExpressionBuilder<Database, never>;
  const taggables = e
    .selectFrom('taggables')
    .select('taggables.tag_id')
    .where('taggables.taggable_type', '=', modelType)
    .where('taggables.taggable_id', '=', idColumn);
  return e.exists(
    typeof tags === 'number'
      ? taggables.where('taggables.tag_id', '=', tags)
      : taggables.where('taggables.tag_id', 'in', [...tags]),
  );
}
