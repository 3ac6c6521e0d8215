// Roles per website (issue 20). A membership gives one user one role on one website; a user may hold
// different roles on different websites. The installation's administrators (users.is_admin) hold every
// right everywhere and need no membership. The policy (who may do what) reads these roles; this module
// only keeps them.
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import { InputError, NotFoundError } from '../errors.js';
import { isStorableId } from '../ids.js';

/** From most to least: what each may do is the policy's table, not this list. */
export const SITE_ROLES = ['site_admin', 'editor', 'author', 'contributor', 'reader'] as const;
export type SiteRole = (typeof SITE_ROLES)[number];

export function isSiteRole(value: string): value is SiteRole {
  return (SITE_ROLES as readonly string[]).includes(value);
}

/** True when `role` is at least `minimum` (site_admin > editor > author > contributor > reader). */
export function roleAtLeast(role: SiteRole | null | undefined, minimum: SiteRole): boolean {
  return role != null && SITE_ROLES.indexOf(role) <= SITE_ROLES.indexOf(minimum);
}

/** A WHERE condition: user `userId` is a site admin of website `websiteId` (either a column or a value). */
export function isSiteAdmin<DB extends Database, TB extends keyof DB & string>(
  eb: ExpressionBuilder<DB, TB>,
  userId: number | Expression<number>,
  websiteId: number | Expression<number>,
): Expression<SqlBool> {
  const e = eb as unknown as ExpressionBuilder<Database, never>;
  return e.exists(
    e
      .selectFrom('memberships')
      .select('memberships.id')
      .where('memberships.user_id', '=', userId)
      .where('memberships.website_id', '=', websiteId)
      .where('memberships.role', '=', 'site_admin' satisfies SiteRole),
  );
}

export interface Membership {
  websiteId: number;
  role: SiteRole;
}

export class MembershipsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** The roles a user holds, per website (no administrators' implicit rights). */
  async rolesOf(userId: number): Promise<Membership[]> {
    const rows = await this.db
      .selectFrom('memberships')
      .select(['website_id', 'role'])
      .where('user_id', '=', userId)
      .orderBy('website_id')
      .execute();
    return rows.flatMap((row) =>
      isSiteRole(row.role) ? [{ websiteId: row.website_id, role: row.role }] : [],
    );
  }

  /** The user's role on one website, or null. */
  async roleOn(userId: number, websiteId: number): Promise<SiteRole | null> {
    const row = await this.db
      .selectFrom('memberships')
      .select('role')
      .where('user_id', '=', userId)
      .where('website_id', '=', websiteId)
      .executeTakeFirst();
    return row && isSiteRole(row.role) ? row.role : null;
  }

  /** Gives `role` on a website, replacing the role held there before. */
  async grant(userId: number, websiteId: number, role: string): Promise<Membership> {
    if (!isSiteRole(role)) {
      throw new InputError('role', `The selected role is invalid. Roles: ${SITE_ROLES.join(', ')}.`);
    }
    await this.requireWebsite(websiteId);
    const now = nowIso(this.clock);
    await this.db
      .insertInto('memberships')
      .values({ user_id: userId, website_id: websiteId, role, created_at: now, updated_at: now })
      .onConflict((conflict) =>
        conflict.columns(['user_id', 'website_id']).doUpdateSet({ role, updated_at: now }),
      )
      .execute();
    return { websiteId, role };
  }

  /** Takes the user's role on a website away; answers whether there was one. */
  async revoke(userId: number, websiteId: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom('memberships')
      .where('user_id', '=', userId)
      .where('website_id', '=', websiteId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  private async requireWebsite(websiteId: number): Promise<void> {
    const found =
      isStorableId(websiteId) &&
      (await this.db.selectFrom('websites').select('id').where('id', '=', websiteId).executeTakeFirst());
    if (!found) throw new NotFoundError(`Website #${websiteId} not found`);
  }
}
