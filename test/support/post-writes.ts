// Posts written in tests through the post operations, which announce each change (the store does not:
// issue 35 #4), so a test that writes after a page was cached sees what a reader would. Takes the
// store's field names (the shape most tests were written in) and hands the operation its own.
import type { PostDetail, PostWrite } from '../../src/domain/posts/model.js';
import type { Services } from '../../src/services.js';

/** Who writes: an administrator by default; `userId: null` is the system. */
export interface Writer {
  userId: number | null;
  isAdmin: boolean;
}

type StoreFields = Omit<PostWrite, 'thumbnailTruncated' | 'authorAllowed' | 'ifUpdatedAt' | 'convertToWebp'>;

/** The operation's input (API field names) for the store's fields. */
function operationInput(fields: Partial<StoreFields>): Record<string, unknown> {
  const names: Record<string, string> = {
    publishedAt: 'published_at',
    metaTitle: 'meta_title',
    metaDescription: 'meta_description',
    metaKeywords: 'meta_keywords',
    authorId: 'author_id',
    websiteIds: 'website_id',
    thumbnailUrl: 'thumbnail_url',
    localizeImages: 'localize_images',
  };
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (key === 'thumbnailUpload') {
      input.thumbnail = { filename: 'thumbnail.jpg', data: value, truncated: false };
    } else {
      input[names[key] ?? key] = value;
    }
  }
  return input;
}

export function postWrites(services: Pick<Services, 'postOps'>) {
  const actorOf = (writer: Writer) => ({ ...writer, websiteId: null });
  return {
    create: (fields: Partial<StoreFields>, writer: Writer): Promise<PostDetail> =>
      services.postOps.create(actorOf(writer), operationInput(fields)),
    update: (id: number, fields: Partial<StoreFields>, writer: Writer): Promise<PostDetail> =>
      services.postOps.update(actorOf(writer), String(id), operationInput(fields)),
    delete: (id: number, writer: Writer = { userId: null, isAdmin: true }): Promise<void> =>
      services.postOps.delete(actorOf(writer), String(id)),
  };
}
