// The people of a website, as operations for the management faces (API v2, the admin panel):
// its members and their roles, granted and taken back. Administrators manage every website's
// members; a website's site admins manage its editors, authors, contributors and readers (making or
// unmaking a site admin is the administrators'). Every change is audited; a role changed takes effect
// on the member's next request (nothing caches roles).
import { z } from 'zod';
import type { OperationRunner } from '../run.js';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import type { Db } from '../../db/database.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { SITE_ROLES } from './memberships.js';
import type { Membership, MembershipsService, SiteRole } from './memberships.js';
import type { Actor, Policy } from '../policy.js';
import { ATTRIBUTE, parse } from '../schema-fields.js';
import { normalizeEmail, toUser } from './users.js';
import type { User } from './users.js';

export const grantInput = z.object({
  role: z.enum(SITE_ROLES, { error: `The selected role is invalid. Roles: ${SITE_ROLES.join(', ')}.` }),
});
export const addMemberInput = z.object({
  email: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .refine((value) => /^[^\s@]+@[^\s@]+$/.test(value), `The ${ATTRIBUTE} must be a valid email address.`),
  role: z.enum(SITE_ROLES),
});

export interface Member {
  user: User;
  role: SiteRole;
}

export class MemberOperations {
  constructor(
    private readonly db: Db,
    private readonly memberships: MembershipsService,
    private readonly policy: Policy,
    private readonly runner: OperationRunner,
    private readonly audit?: AuditLog,
  ) {}

  /** A user's roles, one per website (the user themself, or who may read accounts). */
  async rolesOf(actor: Actor, userId: number): Promise<Membership[]> {
    if (actor.userId !== userId && !(await this.policy.can(actor, 'account.read', { userId }))) {
      throw new ForbiddenError();
    }
    return this.memberships.rolesOf(userId);
  }

  /** The roles of the authenticated user, one per website: what `/me` shows them of themselves. */
  async ownRoles(user: { id: number }): Promise<Membership[]> {
    return this.memberships.rolesOf(user.id);
  }

  /** The website's members, by name (its site admins and administrators only). */
  async list(actor: Actor, websiteId: number): Promise<Member[]> {
    await this.requireManager(actor, websiteId);
    const rows = await this.db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .selectAll('users')
      .select('memberships.role')
      .where('memberships.website_id', '=', websiteId)
      .orderBy('users.name')
      .orderBy('users.id')
      .execute();
    return rows.map((row) => ({ user: toUser(row), role: row.role as SiteRole }));
  }

  /** Gives (or changes) a user's role on the website. */
  async grant(actor: Actor, websiteId: number, userId: number, raw: unknown): Promise<Member> {
    return this.runner.run(async () => {
      const { role } = parse(grantInput, raw);
      await this.requireManager(actor, websiteId);
      const user = await this.userOf(userId);
      const current = await this.memberships.roleOn(userId, websiteId);
      if (!(await this.policy.can(actor, 'member.grant', { websiteId, role, current })))
        throw new ForbiddenError();
      await this.memberships.grant(userId, websiteId, role);
      await this.audited(actor, 'membership.grant', websiteId, userId, { role });
      return { user, role };
    });
  }

  /**
   * Adds the existing account with this email to the website with a role (the panel's "add a
   * member"): whoever manages the members may ask, and learns whether an account has that email
   * (NotFoundError). Someone who already holds a role there is a ConflictError: change their role.
   */
  async add(actor: Actor, websiteId: number, raw: unknown): Promise<Member> {
    return this.runner.run(async () => {
      const { email, role } = parse(addMemberInput, raw);
      await this.requireManager(actor, websiteId);
      const row = await this.db
        .selectFrom('users')
        .selectAll()
        .where('email', '=', normalizeEmail(email))
        .executeTakeFirst();
      if (!row) throw new NotFoundError('No account has this email address.');
      if ((await this.memberships.roleOn(row.id, websiteId)) !== null) {
        throw new ConflictError('This user is already a member of the website: change their role instead.');
      }
      return this.grant(actor, websiteId, row.id, { role });
    });
  }

  /** Takes the user's role on the website away; answers whether there was one. */
  async revoke(actor: Actor, websiteId: number, userId: number): Promise<boolean> {
    return this.runner.run(async () => {
      await this.requireManager(actor, websiteId);
      await this.userOf(userId);
      const current = await this.memberships.roleOn(userId, websiteId);
      if (!(await this.policy.can(actor, 'member.grant', { websiteId, role: null, current })))
        throw new ForbiddenError();
      const removed = await this.memberships.revoke(userId, websiteId);
      if (removed) await this.audited(actor, 'membership.revoke', websiteId, userId);
      return removed;
    });
  }

  /** A website the actor does not see is not found (nothing of it is revealed); one they see, 403. */
  private async requireManager(actor: Actor, websiteId: number): Promise<void> {
    if (await this.policy.can(actor, 'member.manage', { websiteId })) return;
    if (!(await this.policy.can(actor, 'website.see', { websiteId })))
      throw new NotFoundError('Website not found');
    throw new ForbiddenError();
  }

  private async userOf(userId: number): Promise<User> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    if (!row) throw new NotFoundError('User not found');
    return toUser(row);
  }

  private audited(actor: Actor, action: string, websiteId: number, userId: number, input?: unknown) {
    return recordWrite(this.audit, actor, {
      action,
      resourceType: 'membership',
      resourceId: userId,
      websiteIds: [websiteId],
      input,
    });
  }
}
