// One action on many posts (the admin panel's bulk actions): publish, unpublish (back to draft),
// delete, or move to websites. Each post goes through the one operation for that action (its policy,
// its transaction, its audit entry), so a bulk action can do nothing a single call could not; one
// post refused or gone does not stop the others, and the answer says what happened to each.
import { z } from 'zod';
import { ForbiddenError, NotFoundError, StaleWriteError, ValidationError } from '../errors.js';
import type { Actor } from '../policy.js';
import { parse } from '../schema-fields.js';
import { deletePost } from './delete.js';
import type { ReviewContext } from './review.js';
import { updatePost } from './update.js';

/** At most this many posts per call: a page of the admin's list is 20–100. */
export const MAX_BULK_POSTS = 200;

export const bulkPostInput = z
  .object({
    ids: z.array(z.int().min(1)).min(1).max(MAX_BULK_POSTS),
    action: z.enum(['publish', 'unpublish', 'delete', 'move']),
    /** For `move`: the websites the posts are on afterwards. */
    website_ids: z.array(z.int().min(1)).min(1).max(100).optional(),
  })
  .strict()
  .refine((input) => input.action !== 'move' || input.website_ids !== undefined, {
    path: ['website_ids'],
    message: 'The website ids field is required to move posts.',
  });

export type BulkOutcome = 'done' | 'forbidden' | 'not_found' | 'invalid' | 'conflict';
export interface BulkResult {
  id: number;
  outcome: BulkOutcome;
  /** Why it was not done (the operation's message). */
  message?: string;
}

function outcomeOf(error: unknown): Omit<BulkResult, 'id'> {
  if (error instanceof ForbiddenError) return { outcome: 'forbidden', message: error.message };
  if (error instanceof NotFoundError) return { outcome: 'not_found', message: error.message };
  if (error instanceof StaleWriteError) return { outcome: 'conflict', message: error.message };
  if (error instanceof ValidationError) {
    const written = Object.values(error.messages).flat();
    const found = error.issues.map((issue) =>
      issue.message.replace(':attribute', String(issue.path.join('.')).replace(/_/g, ' ')),
    );
    return { outcome: 'invalid', message: [...written, ...found].join(' ') };
  }
  throw error;
}

export async function bulkPosts(ctx: ReviewContext, actor: Actor, raw: unknown): Promise<BulkResult[]> {
  const input = parse(bulkPostInput, raw);
  const results: BulkResult[] = [];
  // One after the other: each is its own transaction, and the database sees no burst.
  for (const id of new Set(input.ids)) {
    try {
      const ref = String(id);
      if (input.action === 'delete') await deletePost(ctx, actor, ref);
      else if (input.action === 'move') await updatePost(ctx, actor, ref, { website_id: input.website_ids });
      else {
        await updatePost(ctx, actor, ref, {
          status: input.action === 'publish' ? 'published' : 'draft',
        });
      }
      results.push({ id, outcome: 'done' });
    } catch (error) {
      results.push({ id, ...outcomeOf(error) });
    }
  }
  return results;
}
