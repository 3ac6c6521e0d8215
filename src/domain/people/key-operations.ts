// API keys as operations, for API v2's /keys and the CLI's key:* commands: one input schema, one policy
// question (`key.manage`: a user's own keys, with a token or a session, never with a key; the
// installation's operator for anyone), one transaction with the audit row (the store records it).
import { z } from 'zod';
import type { ApiKey, ApiKeysService } from './api-keys.js';
import { MAX_API_KEY_NAME } from './api-keys.js';
import { ForbiddenError } from '../errors.js';
import type { Actor, Policy } from '../policy.js';
import type { OperationRunner } from '../run.js';
import { parse } from '../schema-fields.js';

/** Why a caller who came with an API key may not manage keys. */
export const KEYS_NEED_A_CREDENTIAL = 'API keys are managed with a token or a session, not a key.';

export const apiKeyInput = z
  .object({
    name: z.string().trim().min(1).max(MAX_API_KEY_NAME),
    website_ids: z.array(z.int().min(1)).max(100).optional(),
    read_only: z.boolean().optional(),
    content_only: z
      .boolean()
      .optional()
      .describe('A content key (read-only, published content only); it must name `website_ids`.'),
    expires_at: z.iso.datetime({ offset: true }).optional(),
  })
  .strict()
  .refine((input) => !input.content_only || (input.website_ids?.length ?? 0) > 0, {
    path: ['website_ids'],
    message: 'A content key must name the websites it reads.',
  });

export class KeyOperations {
  constructor(private readonly deps: { runner: OperationRunner; policy: Policy; apiKeys: ApiKeysService }) {}

  /** The user's keys, revoked ones included (newest first). */
  async list(actor: Actor, userId: number): Promise<ApiKey[]> {
    await this.requireOwner(actor, userId);
    return this.deps.apiKeys.list(userId);
  }

  /** A new key of the user's; the secret is in the answer once (only its hash is kept). */
  async create(actor: Actor, userId: number, raw: unknown): Promise<{ key: ApiKey; secret: string }> {
    const input = parse(apiKeyInput, raw);
    return this.deps.runner.run(async () => {
      await this.requireOwner(actor, userId);
      return this.deps.apiKeys.create(
        userId,
        {
          name: input.name,
          websiteIds: input.website_ids,
          readOnly: input.read_only,
          contentOnly: input.content_only,
          expiresAt: input.expires_at ? new Date(input.expires_at) : null,
        },
        actor,
      );
    });
  }

  /** Revokes one of the user's keys; false when they have no such key in use. */
  async revoke(actor: Actor, userId: number, keyId: number): Promise<boolean> {
    return this.deps.runner.run(async () => {
      await this.requireOwner(actor, userId);
      return this.deps.apiKeys.revoke(userId, keyId, actor);
    });
  }

  private async requireOwner(actor: Actor, userId: number): Promise<void> {
    if (await this.deps.policy.can(actor, 'key.manage', { userId })) return;
    throw actor.key ? new ForbiddenError(KEYS_NEED_A_CREDENTIAL) : new ForbiddenError();
  }
}
