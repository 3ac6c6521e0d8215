// Writing posts from the public site: the public form's fields become the input of the same post
// operations the API calls (create, update), so the same policy decides (own posts only, on websites
// the writer may write to) and the same sanitizing applies (non-admins' HTML cut down to an
// allow-list, their excerpt to plain text). Tags are given by name here (an unknown name becomes a new
// `post_tag` bound to the website), categories by id.
import { sanitizePostHtml } from '../text/html-sanitizer.js';
import { markdownToHtml } from '../text/markdown.js';
import type { ContentFormat } from '../text/markdown.js';
import type { Actor, Policy } from '../policy.js';
import { factsOf } from './context.js';
import { REVIEW_STATUS } from './index.js';
import type { PostDetail, PostOperations, PostsService } from './index.js';
import type { SettingsService } from '../system/settings.js';
import type { TagNode, TagsService } from '../tags/store.js';
import type { TagOperations } from '../tags/operations.js';
import { DEFAULT_LOCALE } from '../translations.js';
import type { User } from '../people/users.js';

export const AUTHOR_STATUSES = ['draft', 'published'] as const;
/** What the form's status list says for each status it may offer. */
export const STATUS_LABELS: Readonly<Record<string, string>> = {
  draft: 'Draft',
  pending: 'Submitted for review',
  published: 'Published',
  scheduled: 'Scheduled',
};
export const MAX_TAG_NAMES = 10;
export const MAX_TAG_NAME = 50;

export interface PostForm {
  title: string;
  /** As typed: Markdown (converted and sanitized here) or HTML (sanitized by the operation for non-admins). */
  content: string;
  /** How `content` is written. */
  format: ContentFormat;
  excerpt: string;
  /**
   * `draft`, `pending` (submit for review) or `published`; a scheduled post keeps `scheduled` while
   * it is not changed.
   */
  status: string;
  categories: number[];
  tags: string[];
  /** Blank: no thumbnail. */
  thumbnailUrl: string;
  /** An uploaded picture (a multipart form's file), which wins over `thumbnailUrl`. */
  thumbnail?: unknown;
}

export interface CategoryOption {
  id: number;
  name: string;
  depth: number;
}

export type Access = { post: PostDetail } | { error: 'not_found' | 'forbidden' };

/** A signed-in writer on a website, as the policy sees them. */
export function writerOn(user: User, websiteId: number): Actor {
  return { userId: user.id, isAdmin: user.isAdmin, websiteId, origin: { surface: 'site' } };
}

/** The HTML a form's content stands for: Markdown converted (and sanitized), HTML as written. */
export function contentHtml(content: string, format: ContentFormat): string {
  return format === 'markdown' ? markdownToHtml(content) : content;
}

/**
 * What the editor's live preview shows: the content as it would be stored for a writer who is not an
 * administrator (Markdown converted, everything through the site's sanitizer).
 */
export function previewHtml(content: string, format: ContentFormat): string {
  return format === 'markdown' ? markdownToHtml(content) : sanitizePostHtml(content);
}

export class AuthoringService {
  constructor(
    private readonly posts: PostsService,
    private readonly operations: PostOperations,
    private readonly policy: Policy,
    private readonly tags: TagsService,
    private readonly settings: SettingsService,
    /** Makes the tags a writer names that do not exist yet. */
    private readonly tagOps: Pick<TagOperations, 'ensure'>,
  ) {}

  /** May the writer edit the post here (the policy's answer for `post.update`)? */
  canEdit(post: PostDetail, user: User, websiteId: number): Promise<boolean> {
    return this.policy.can(writerOn(user, websiteId), 'post.update', { post: factsOf(post) });
  }
  /** The writer's own posts on this website, newest change first (their profile's "Your posts"). */
  ownPosts(user: User, websiteId: number, limit = 50) {
    return this.posts.recentOf(user.id, websiteId, limit);
  }

  /**
   * The statuses the writer's form offers on this website: a contributor (or reader) saves drafts and
   * submits them for review, and is never offered what the policy would refuse. `current`: the
   * post's status, kept on offer while it has it (a scheduled or pending post).
   */
  /** Whether the user may write posts on this website (the header's "Write", the form). */
  mayWrite(user: User, websiteId: number): Promise<boolean> {
    return this.policy.can(writerOn(user, websiteId), 'post.create', { websiteIds: [websiteId] });
  }

  async statusesFor(user: User, websiteId: number, current?: string): Promise<string[]> {
    const publishes = await this.policy.can(writerOn(user, websiteId), 'post.publish', {
      post: null,
      websiteIds: [websiteId],
    });
    const statuses = publishes ? ['draft', REVIEW_STATUS, 'published'] : ['draft', REVIEW_STATUS];
    if (current !== undefined && !statuses.includes(current)) statuses.push(current);
    return statuses;
  }

  /** The post's newest review step (the editor's note when it was sent back), for its edit form. */
  reviewOf(post: PostDetail, user: User, websiteId: number) {
    return this.operations.reviewOf(writerOn(user, websiteId), String(post.id));
  }

  /** The posts waiting for review on this website: ForbiddenError unless the user edits it. */
  reviewQueue(user: User, websiteId: number) {
    return this.operations.reviewQueue(writerOn(user, websiteId), websiteId);
  }

  /** Whether the user reviews posts on this website (the profile links to the queue). */
  reviews(user: User, websiteId: number): Promise<boolean> {
    return this.policy.can(writerOn(user, websiteId), 'website.edit', { websiteId });
  }

  /** An editor's decision on a pending post: `approve`, or `return` with a note. */
  review(user: User, websiteId: number, ref: string, decision: 'approve' | 'return', note: string) {
    const actor = writerOn(user, websiteId);
    return decision === 'approve'
      ? this.operations.approve(actor, ref, {})
      : this.operations.sendBack(actor, ref, { note });
  }

  /** The post named by an id or slug, if it exists and the user may edit it. */
  async open(ref: string, user: User, websiteId: number): Promise<Access> {
    const post = await this.posts.findDetailByRef(ref);
    if (!post || !(await this.policy.can(writerOn(user, websiteId), 'post.read', { post: factsOf(post) })))
      return { error: 'not_found' };
    return (await this.canEdit(post, user, websiteId)) ? { post } : { error: 'forbidden' };
  }

  /** The website's post categories (its own and all-sites ones), depth-first, for the form's checkboxes. */
  async categories(locale: string, websiteId: number): Promise<CategoryOption[]> {
    const options: CategoryOption[] = [];
    const walk = (nodes: TagNode[], depth: number) => {
      for (const node of nodes) {
        options.push({ id: node.id, name: node.name, depth });
        walk(node.children, depth + 1);
      }
    };
    walk(await this.tags.tree('post_category', locale, websiteId), 0);
    return options;
  }

  /** The form's values for an existing post. */
  formOf(post: PostDetail): PostForm {
    return {
      title: post.title,
      // Stored as HTML: a post written in Markdown is edited as the HTML it became.
      content: post.content,
      format: 'html',
      excerpt: post.excerpt ?? '',
      status: post.status,
      categories: post.categories.map((category) => category.id),
      tags: post.tagList.map((tag) => tag.name),
      thumbnailUrl: post.thumbnail ?? '',
    };
  }

  /**
   * A new post bound to the website; ValidationError or ForbiddenError from the operation. `pending`:
   * saved as a draft, then submitted for review.
   */
  async create(form: PostForm, user: User, websiteId: number): Promise<PostDetail> {
    const actor = writerOn(user, websiteId);
    const input = await this.inputOf(form, websiteId);
    const submitting = input.status === REVIEW_STATUS;
    if (submitting) input.status = 'draft';
    const post = await this.operations.create(actor, { ...input, website_id: [websiteId] });
    return submitting ? this.operations.submit(actor, String(post.id)) : post;
  }

  /**
   * The post changed by the form; ValidationError, ForbiddenError or NotFoundError from the operation.
   * Choosing `pending` for a draft submits it once it is saved.
   */
  async update(post: PostDetail, form: PostForm, user: User, websiteId: number): Promise<PostDetail> {
    const actor = writerOn(user, websiteId);
    const input = await this.inputOf(form, websiteId);
    const submitting = input.status === REVIEW_STATUS && post.status !== REVIEW_STATUS;
    // An unchanged status is not sent: a scheduled post stays scheduled with its date, a pending one
    // stays in the queue. A pending post set back to draft leaves the queue.
    if (input.status === post.status || input.status === REVIEW_STATUS) delete input.status;
    if (submitting && post.status !== 'draft') input.status = 'draft';
    const updated = await this.operations.update(actor, String(post.id), input);
    return submitting ? this.operations.submit(actor, String(post.id)) : updated;
  }

  /** Deletes the writer's post (the delete operation: its policy, its audit entry). */
  delete(post: PostDetail, user: User, websiteId: number): Promise<void> {
    return this.operations.delete(writerOn(user, websiteId), String(post.id));
  }

  /** The form's fields as the post operations' input (the API's field names). */
  private async inputOf(form: PostForm, websiteId: number): Promise<Record<string, unknown>> {
    return {
      title: form.title.trim(),
      content: contentHtml(form.content, form.format),
      excerpt: form.excerpt.trim() === '' ? null : form.excerpt,
      status: form.status,
      categories: form.categories,
      tags: await this.tagIds(form.tags, websiteId),
      thumbnail_url: form.thumbnailUrl.trim() === '' ? null : form.thumbnailUrl.trim(),
      ...(form.thumbnail !== undefined ? { thumbnail: form.thumbnail } : {}),
    };
  }

  /** Ids of `post_tag` tags by name; a new name makes a new tag bound to the website. */
  private async tagIds(names: string[], websiteId: number): Promise<number[]> {
    const defaultLocale = (await this.settings.get('default_locale'))?.trim() || DEFAULT_LOCALE;
    const ids: number[] = [];
    for (const name of names) {
      const { tag } = await this.tagOps.ensure({
        name,
        type: 'post_tag',
        websiteIds: [websiteId],
        updateWhenDuplicated: false,
        defaultLocale,
      });
      if (!ids.includes(tag.id)) ids.push(tag.id);
    }
    return ids;
  }
}
