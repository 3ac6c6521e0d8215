// Writing posts from the public site: the same posts service as the API, with the rules of the site's
// authors on top. A user edits only their own posts unless they are an admin; what a non-admin writes
// is cut down to an allow-list of HTML (content) or to plain text (excerpt); tags are given by name
// (an unknown name becomes a new `post_tag` bound to the website), categories by id.
import { plainText, sanitizePostHtml } from './html-sanitizer.js';
import { PostInputError } from './posts.js';
import type { PostDetail, PostsService, PostWrite } from './posts.js';
import type { SettingsService } from './settings.js';
import type { TagNode, TagsService } from './tags.js';
import { DEFAULT_LOCALE } from './translations.js';
import type { User } from './users.js';

export const AUTHOR_STATUSES = ['draft', 'published'] as const;
export const MAX_TAG_NAMES = 10;
export const MAX_TAG_NAME = 50;

export interface PostForm {
  title: string;
  content: string;
  excerpt: string;
  /** `draft` or `published`; a scheduled post keeps `scheduled` while it is not changed. */
  status: string;
  categories: number[];
  tags: string[];
  /** Blank: no thumbnail. */
  thumbnailUrl: string;
}

export interface CategoryOption {
  id: number;
  name: string;
  depth: number;
}

export type Access = { post: PostDetail } | { error: 'not_found' | 'forbidden' };

export class AuthoringService {
  constructor(
    private readonly posts: PostsService,
    private readonly tags: TagsService,
    private readonly settings: SettingsService,
  ) {}

  canEdit(post: PostDetail, user: User): boolean {
    return user.isAdmin || post.author?.id === user.id;
  }

  /** The post named by an id or slug, if it exists and the user may edit it. */
  async open(ref: string, user: User): Promise<Access> {
    const id = await this.posts.resolveId(ref);
    const post = id === null ? null : await this.posts.findDetail(id);
    if (!post) return { error: 'not_found' };
    return this.canEdit(post, user) ? { post } : { error: 'forbidden' };
  }

  /** Every post category, depth-first, for the form's checkboxes. */
  async categories(locale: string): Promise<CategoryOption[]> {
    const options: CategoryOption[] = [];
    const walk = (nodes: TagNode[], depth: number) => {
      for (const node of nodes) {
        options.push({ id: node.id, name: node.name, depth });
        walk(node.children, depth + 1);
      }
    };
    walk(await this.tags.tree('post_category', locale), 0);
    return options;
  }

  /** The form's values for an existing post. */
  formOf(post: PostDetail): PostForm {
    return {
      title: post.title,
      content: post.content,
      excerpt: post.excerpt ?? '',
      status: post.status,
      categories: post.categories.map((category) => category.id),
      tags: post.tagList.map((tag) => tag.name),
      thumbnailUrl: post.thumbnail ?? '',
    };
  }

  async create(form: PostForm, user: User, websiteId: number): Promise<PostDetail> {
    const write = await this.toWrite(form, user, websiteId);
    return this.posts.create(
      { ...write, websiteIds: [websiteId] },
      { userId: user.id, isAdmin: user.isAdmin },
    );
  }

  /** Null when the post is gone; throws PostInputError for bad input. Access is checked by open(). */
  async update(post: PostDetail, form: PostForm, user: User, websiteId: number): Promise<PostDetail | null> {
    const write = await this.toWrite(form, user, websiteId);
    // An unchanged status is not sent: a scheduled post stays scheduled with its date.
    if (write.status === post.status) delete write.status;
    return this.posts.update(post.id, write, { userId: user.id, isAdmin: user.isAdmin });
  }

  private async toWrite(form: PostForm, user: User, websiteId: number): Promise<PostWrite> {
    const trusted = user.isAdmin;
    const content = trusted ? form.content : sanitizePostHtml(form.content);
    const errors: Record<string, string[]> = {};
    // Sanitizing may leave nothing (a post of one script tag): that is an empty content.
    if (content.trim() === '') errors.content = ['The content field is required.'];
    if (Object.keys(errors).length > 0) throw new PostInputError(errors);
    return {
      title: form.title.trim(),
      content,
      excerpt: form.excerpt.trim() === '' ? null : trusted ? form.excerpt : plainText(form.excerpt),
      status: form.status as PostWrite['status'],
      categories: form.categories,
      tags: await this.tagIds(form.tags, websiteId),
      thumbnailUrl: form.thumbnailUrl.trim() === '' ? null : form.thumbnailUrl.trim(),
    };
  }

  /** Ids of `post_tag` tags by name; a new name makes a new tag bound to the website. */
  private async tagIds(names: string[], websiteId: number): Promise<number[]> {
    const defaultLocale = (await this.settings.get('default_locale'))?.trim() || DEFAULT_LOCALE;
    const ids: number[] = [];
    for (const name of names) {
      const { tag } = await this.tags.store({
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
