// Users as operations for the management faces (API v2): the list of accounts and enabling or
// disabling one — the installation's administrators' (the last active administrator stays). Audited.
import { recordWrite } from '../system/audit.js';
import type { OperationRunner } from '../run.js';
import type { AuditLog } from '../system/audit.js';
import type { Db } from '../../db/database.js';
import { ForbiddenError, NotFoundError } from '../errors.js';
import type { Actor } from '../policy.js';
import { toUser } from './users.js';
import { username } from './account-input.js';
import { containsText, likePattern } from '../text/text-match.js';
import type { User, UsersService } from './users.js';
import type { ApiKey, ApiKeysService } from './api-keys.js';
import type { Policy } from '../policy.js';
import { parse } from '../schema-fields.js';
import { z } from 'zod';

/** An account enabled or disabled (administrators; never the last active administrator). */
export const accountActiveInput = z.object({ is_active: z.boolean() });

/** A new account, as the CLI's user:create sends it (the store checks the email and the password). */
export const newUserInput = z
  .object({
    email: z.string(),
    name: z.string(),
    password: z.string(),
    admin: z.boolean().optional(),
    /** The author pages' name (install's first administrator is `admin`). */
    username: username.optional(),
  })
  .strict();

export interface UserListQuery {
  /** Words of the name, email or username. */
  q?: string;
  page: number;
  perPage: number;
}

export class UserOperations {
  constructor(
    private readonly db: Db,
    private readonly users: UsersService,
    private readonly runner: OperationRunner,
    private readonly audit: AuditLog,
    private readonly policy: Policy,
    private readonly apiKeys: ApiKeysService,
  ) {}

  /** Creates an account (administrators, the operator) and answers it with its first API token. */
  async create(actor: Actor, raw: unknown): Promise<{ user: User; token: string }> {
    const input = parse(newUserInput, raw);
    return this.runner.run(async () => {
      if (!(await this.policy.can(actor, 'account.manage', {}))) throw new ForbiddenError();
      const user = await this.users.create({
        email: input.email,
        name: input.name,
        password: input.password,
        isAdmin: input.admin ?? false,
        username: input.username,
      });
      const token = await this.users.issueToken(user.id);
      await recordWrite(this.audit, actor, {
        action: 'user.create',
        resourceType: 'user',
        resourceId: user.id,
        websiteIds: [],
        // The names of the fields given, never the password.
        input: {
          email: true,
          name: true,
          password: true,
          ...(input.admin ? { admin: true } : {}),
          ...(input.username ? { username: true } : {}),
        },
      });
      return { user, token };
    });
  }

  /** Issues a new API token to the user (their old one stops working); answers the token once. */
  async issueToken(actor: Actor, id: number): Promise<string> {
    return this.runner.run(async () => {
      if (!(await this.policy.can(actor, 'account.token', { userId: id }))) throw new ForbiddenError();
      if (!(await this.users.findById(id))) throw new NotFoundError('User not found');
      const token = await this.users.issueToken(id);
      await recordWrite(this.audit, actor, {
        action: 'user.token',
        resourceType: 'user',
        resourceId: id,
        websiteIds: [],
      });
      return token;
    });
  }

  /** A user's API keys, revoked ones included (administrators). */
  async keys(actor: Actor, id: number): Promise<ApiKey[]> {
    if (!(await this.policy.can(actor, 'account.read', {}))) throw new ForbiddenError();
    await this.show(actor, id);
    return this.apiKeys.list(id);
  }

  /**
   * Revokes one of a user's API keys (administrators); refused at once on every node (the
   * credential cache is told). False when the user has no such key in use.
   */
  async revokeKey(actor: Actor, id: number, keyId: number): Promise<boolean> {
    return this.runner.run(async () => {
      if (!(await this.policy.can(actor, 'account.manage', {}))) throw new ForbiddenError();
      await this.show(actor, id);
      return this.apiKeys.revoke(id, keyId, actor);
    });
  }

  async list(actor: Actor, query: UserListQuery): Promise<{ items: User[]; total: number }> {
    if (!(await this.policy.can(actor, 'account.read', {}))) throw new ForbiddenError();
    let select = this.db.selectFrom('users');
    const q = query.q?.trim();
    if (q) {
      const pattern = likePattern(q);
      const columns = ['users.name', 'users.email', 'users.username'] as const;
      select = select.where((eb) => eb.or(columns.map((column) => containsText(eb.ref(column), pattern))));
    }
    const count = await select.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    const rows = await select
      .selectAll('users')
      .orderBy('users.id')
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute();
    return { items: rows.map(toUser), total: Number(count?.n ?? 0) };
  }

  /** The account with this email, or null (who may manage accounts: the CLI names users by email). */
  async findByEmail(actor: Actor, email: string): Promise<User | null> {
    if (!(await this.policy.can(actor, 'account.manage', {}))) throw new ForbiddenError();
    return this.users.findByEmail(email);
  }

  async show(actor: Actor, id: number): Promise<User> {
    if (!(await this.policy.can(actor, 'account.read', { userId: id }))) throw new ForbiddenError();
    const user = await this.users.findById(id);
    if (!user) throw new NotFoundError('User not found');
    return user;
  }

  /** Enables or disables an account (InputError for the last active administrator). */
  async setActive(actor: Actor, id: number, active: boolean): Promise<User> {
    return this.runner.run(async () => {
      if (!(await this.policy.can(actor, 'account.manage', {}))) throw new ForbiddenError();
      await this.show(actor, id);
      await this.users.setActive(id, active);
      await recordWrite(this.audit, actor, {
        action: active ? 'user.enable' : 'user.disable',
        resourceType: 'user',
        resourceId: id,
        websiteIds: [],
      });
      return this.show(actor, id);
    });
  }
}
