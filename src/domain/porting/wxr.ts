// WordPress import (issue 39 #3): a WXR file (WordPress's Tools -> Export, format 1.0 to 1.2) read with
// a streaming XML parser (saxes), never a regular expression, and turned into a Folio archive that the
// Folio importer then brings in (its plan, dry run, clash renaming, batches and undo are the same).
//
//   authors -> users without a password (and an author role on the website)
//   categories (a tree by parent nicename) and tags -> tags; an item's <category> -> its tags
//   posts and pages: title, slug, status, dates, content, excerpt; comments threaded by parent
//   attachments and in-content images -> fetched through the SSRF guard into the media library (or
//   left where they are with --no-media); featured images (_thumbnail_id) -> thumbnails
//   each item's old permalink -> a redirect to the post or page
//
// Two passes over the file: the first collects authors, terms and attachments (small) and checks the
// XML; the second writes records one item at a time. Memory holds one item, not the file.
import fs from 'node:fs';
import path from 'node:path';
import type { CheerioAPI } from 'cheerio';
import type * as Saxes from 'saxes';
import { lazyModule } from '../../lib/lazy-module.js';
import type { MediaStore } from '../../storage/store.js';
import { sanitizeComment } from '../community/comments.js';
import { ForbiddenError } from '../errors.js';
import { plainText, sanitizeImportedHtml } from '../text/html-sanitizer.js';
import type { Actor, Policy } from '../policy.js';
import { redirectPath } from '../public/redirects.js';
import type { SafeFetcher } from '../safe-fetch.js';
import { ArchiveBuilder } from './archive-writer.js';
import { ImportedImages } from './images.js';
import { ImportError } from './import-folio.js';
import type { FolioImporter, ImportReport } from './import-folio.js';

const saxes = lazyModule<typeof Saxes>('saxes');

type Fields = Record<string, string>;
type Item = Fields;
interface ItemExtras {
  categories: Array<{ domain: string; nicename: string; name: string }>;
  meta: Array<{ key: string; value: string }>;
  comments: Fields[];
}

export interface ConvertOptions {
  websiteId: number | null;
  dryRun: boolean;
  /** Leave images where they are (external URLs) instead of fetching them. */
  noMedia: boolean;
  /**
   * Keep the posts' and pages' HTML as written (a source the administrator trusts). Else it is cut
   * to the public site's allow-list, as a non-administrator's writing is. Comments, written by
   * visitors, are always cleaned like every comment Folio takes.
   */
  keepHtml?: boolean;
  onProgress?: (done: number, total: number) => void;
}

const NAMESPACES: Record<string, string> = {
  'http://purl.org/rss/1.0/modules/content/': 'content',
  'http://purl.org/dc/elements/1.1/': 'dc',
  'http://wellformedweb.org/CommentAPI/': 'wfw',
};
function prefixOf(uri: string): string {
  if (NAMESPACES[uri]) return NAMESPACES[uri];
  if (/^http:\/\/wordpress\.org\/export\/1\.\d+\/excerpt\/$/.test(uri)) return 'excerpt';
  if (/^http:\/\/wordpress\.org\/export\/1\.\d+\/$/.test(uri)) return 'wp';
  return uri === '' ? '' : 'other';
}

/** Post types of WordPress's own that hold no content of a site (menus, styles, revisions, …). */
const INTERNAL_TYPES = new Set([
  'revision',
  'nav_menu_item',
  'custom_css',
  'customize_changeset',
  'oembed_cache',
  'user_request',
  'wp_block',
  'wp_template',
  'wp_template_part',
  'wp_global_styles',
  'wp_navigation',
  'wp_font_family',
  'wp_font_face',
]);
const MAX_TEXT = 16 * 1024 * 1024;

/** Streams a WXR file, calling back per author, term and item. Throws ImportError on broken XML. */
async function parseWxr(
  file: string,
  on: {
    channel?: (fields: Fields) => void;
    author?: (fields: Fields) => void;
    category?: (fields: Fields) => void;
    tag?: (fields: Fields) => void;
    item?: (item: Item, extras: ItemExtras) => Promise<void> | void;
  },
): Promise<void> {
  const parser = new (saxes().SaxesParser)({ xmlns: true, position: true });
  const stack: string[] = [];
  let text = '';
  let channel: Fields = {};
  let record: Fields | null = null;
  let recordKind = '';
  let item: Item | null = null;
  let extras: ItemExtras | null = null;
  let sub: Fields | null = null; // a comment or postmeta inside an item
  let categoryAttrs: { domain: string; nicename: string } | null = null;
  // Items are handled one after the other, in the file's order (an item's image downloads included).
  let chain: Promise<void> = Promise.resolve();
  let sawRss = false;
  let sawWxr = false;

  parser.on('opentag', (tag) => {
    const prefix = prefixOf(tag.uri);
    const name = prefix ? `${prefix}:${tag.local}` : tag.local;
    if (stack.length === 0) sawRss = name === 'rss';
    if (prefix === 'wp') sawWxr = true;
    stack.push(name);
    text = '';
    const parent = stack[stack.length - 2];
    if (name === 'item' && parent === 'channel') {
      item = {};
      extras = { categories: [], meta: [], comments: [] };
    } else if (parent === 'channel' && ['wp:author', 'wp:category', 'wp:tag'].includes(name)) {
      record = {};
      recordKind = name;
    } else if (item && parent === 'item' && (name === 'wp:comment' || name === 'wp:postmeta')) {
      sub = {};
    } else if (item && parent === 'item' && name === 'category') {
      const attr = (local: string) => {
        const value = Object.values(tag.attributes).find((a) => a.local === local)?.value;
        return typeof value === 'string' ? value : '';
      };
      categoryAttrs = { domain: attr('domain'), nicename: attr('nicename') };
    }
  });
  const addText = (value: string) => {
    if (text.length + value.length > MAX_TEXT)
      throw new ImportError(`an element of the WXR file is larger than ${MAX_TEXT} bytes`);
    text += value;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const name = stack.pop()!;
    const parent = stack[stack.length - 1];
    const value = text.trim() === '' && !/^(content|excerpt):encoded$/.test(name) ? text.trim() : text;
    if (name === 'item' && item && extras) {
      const [done, more] = [item, extras];
      chain = chain.then(() => on.item?.(done, more));
      item = null;
      extras = null;
    } else if (sub && (name === 'wp:comment' || name === 'wp:postmeta') && parent === 'item') {
      if (name === 'wp:comment') extras!.comments.push(sub);
      else extras!.meta.push({ key: sub['wp:meta_key'] ?? '', value: sub['wp:meta_value'] ?? '' });
      sub = null;
    } else if (sub) {
      if (parent === 'wp:comment' || parent === 'wp:postmeta') sub[name] = value;
    } else if (item && parent === 'item') {
      if (name === 'category' && categoryAttrs) {
        extras!.categories.push({ ...categoryAttrs, name: value.trim() });
        categoryAttrs = null;
      } else item[name] = value;
    } else if (record && name === recordKind && parent === 'channel') {
      if (name === 'wp:author') on.author?.(record);
      else if (name === 'wp:category') on.category?.(record);
      else on.tag?.(record);
      record = null;
    } else if (record && parent === recordKind) {
      record[name] = value.trim();
    } else if (parent === 'channel' && !item) {
      channel[name] = value.trim();
      if (name === 'wp:wxr_version' || name === 'link') on.channel?.(channel);
    }
    text = '';
  });

  const stream = fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 256 * 1024 });
  try {
    for await (const chunk of stream) {
      parser.write(chunk as string);
      // The items of this chunk are handled before the next chunk is read: back-pressure on the file.
      await chain;
    }
    parser.close();
    await chain;
  } catch (error) {
    if (error instanceof ImportError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (/^.*:\d+:\d+: /.test(message) || parser.line) {
      throw new ImportError(
        `the WXR file is not well-formed XML (${message.replace(/^undefined:/, `line `)})`,
      );
    }
    throw error;
  } finally {
    stream.destroy();
  }
  if (!sawRss || !sawWxr)
    throw new ImportError('the file is XML but not a WordPress export (WXR): no <rss> with wp: elements');
  channel = {};
}

const iso = (gmt: string | undefined, local: string | undefined): string | null => {
  for (const value of [gmt, local]) {
    if (!value || value.startsWith('0000-00-00')) continue;
    const date = new Date(`${value.replace(' ', 'T')}Z`);
    if (!Number.isNaN(date.getTime())) return date.toISOString();
  }
  return null;
};

/** A slug from a title when WordPress had none (drafts): lower-case ASCII words joined by dashes. */
function slugify(title: string, fallback: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200);
  return slug || fallback;
}

/** WordPress's stored content keeps paragraphs as blank lines (wpautop adds <p> when shown). */
function paragraphs(load: CheerioAPI['load'], content: string): string {
  const $ = load(content, null, false);
  if ($('p, div, h1, h2, h3, h4, h5, h6, ul, ol, table, figure, blockquote, pre').length > 0) return content;
  return content
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter(Boolean)
    .map((block) => `<p>${block.replace(/\n/g, '<br>\n')}</p>`)
    .join('\n');
}

export class WordPressImporter {
  constructor(
    private readonly deps: {
      policy: Policy;
      fetcher: SafeFetcher;
      store: MediaStore;
      folio: FolioImporter;
    },
  ) {}

  async import(actor: Actor, file: string, options: ConvertOptions): Promise<ImportReport> {
    if (!(await this.deps.policy.can(actor, 'installation.manage', {})))
      throw new ForbiddenError('Importing is for administrators.');
    const builder = new ArchiveBuilder();
    try {
      const notes = await this.convert(file, builder, options);
      const archive = await builder.finish(path.join(builder.dir, 'wordpress.tar.gz'));
      const report = await this.deps.folio.import(actor, archive, {
        websiteId: options.websiteId,
        dryRun: options.dryRun,
        onProgress: options.onProgress,
        convertedFrom: 'wordpress',
      });
      return { ...report, format: 'wordpress', skipped: [...notes, ...report.skipped] };
    } finally {
      builder.dispose();
    }
  }

  /** Writes the WXR file's records (and fetched images) into the builder; answers what it left out. */
  private async convert(
    file: string,
    out: ArchiveBuilder,
    options: ConvertOptions,
  ): Promise<ImportReport['skipped']> {
    const notes: ImportReport['skipped'] = [];
    const now = new Date().toISOString();
    // The full HTML parser (parse5, as browsers parse), loaded on first use: a node keeps its ~15 MB.
    const { load } = await import('cheerio');
    // Pass 1: authors, terms, attachments; the XML checked from end to end.
    const authors = new Map<string, Fields>();
    const emails = new Map<string, string>();
    const categories: Fields[] = [];
    const tags: Fields[] = [];
    const attachments = new Map<string, string>();
    let channel: Fields = {};
    let items = 0;
    await parseWxr(file, {
      channel: (fields) => (channel = { ...fields }),
      author: (fields) => {
        const login = fields['wp:author_login'] ?? '';
        const email = (fields['wp:author_email'] ?? '').trim().toLowerCase();
        if (email && emails.has(email)) {
          throw new ImportError(
            `two authors of the WXR file (${emails.get(email)} and ${login}) have the email ${email}`,
          );
        }
        if (email) emails.set(email, login);
        authors.set(login, fields);
      },
      category: (fields) => categories.push(fields),
      tag: (fields) => tags.push(fields),
      item: (item) => {
        items += 1;
        if (item['wp:post_type'] === 'attachment' && item['wp:attachment_url']) {
          attachments.set(item['wp:post_id'] ?? '', item['wp:attachment_url']);
        }
      },
    });

    // The website and its domain (used as they are when importing as a new website).
    const base = channel['wp:base_blog_url'] || channel.link || '';
    let host: string | null;
    try {
      host = base ? new URL(base).hostname.toLowerCase() : null;
    } catch {
      host = null;
    }
    if (options.websiteId == null && !host) {
      throw new ImportError(
        'the WXR file names no site URL (<link>): import it into a website with --website',
      );
    }
    out.add('websites', {
      id: 1,
      user_id: null,
      site_name: channel.title || host || 'WordPress',
      site_slogan: channel.description || null,
      theme: 'default',
      enabled_page_cache: true,
      enabled_data_cache: true,
      created_at: now,
      updated_at: now,
    });
    if (host)
      out.add('domains', {
        id: 1,
        website_id: 1,
        domain: host,
        is_primary: true,
        created_at: now,
        updated_at: now,
      });

    // Authors: users without a password, authors on the website.
    const userIds = new Map<string, number>();
    let userId = 0;
    for (const [login, fields] of authors) {
      const email = (fields['wp:author_email'] ?? '').trim().toLowerCase();
      if (!email) {
        notes.push({
          kind: 'users',
          id: login,
          reason: 'a WordPress author without an email: their posts have no author',
        });
        continue;
      }
      userId += 1;
      userIds.set(login, userId);
      out.add('users', {
        id: userId,
        name: fields['wp:author_display_name'] || login,
        email,
        username: login || null,
        is_admin: false,
        is_active: true,
        created_at: now,
        updated_at: now,
        locale: null,
      });
      out.add('memberships', {
        id: userId,
        user_id: userId,
        website_id: 1,
        role: 'author',
        created_at: now,
        updated_at: now,
      });
    }

    // Categories (a tree) and tags.
    const tagIds = new Map<string, number>();
    let tagId = 0;
    const addTag = (
      type: string,
      slug: string,
      name: string,
      description: string | null,
      parent: number | null,
    ) => {
      tagId += 1;
      tagIds.set(`${type}:${slug}`, tagId);
      out.add('tags', {
        id: tagId,
        name,
        slug,
        type,
        parent_id: parent,
        description,
        icon: null,
        sort: 0,
        created_at: now,
        updated_at: now,
      });
      out.add('website_bindings', { website_id: 1, model_type: 'tag', model_id: tagId });
      return tagId;
    };
    // Parents first, whatever the file's order (a parent named but missing becomes a root).
    const byNicename = new Map(categories.map((c) => [c['wp:category_nicename'] ?? '', c]));
    const placing = new Set<string>();
    const placeCategory = (nicename: string): number | null => {
      const known = tagIds.get(`post_category:${nicename}`);
      if (known) return known;
      const category = byNicename.get(nicename);
      if (!category || placing.has(nicename)) return null;
      placing.add(nicename);
      const parentName = category['wp:category_parent'] ?? '';
      const parent = parentName ? placeCategory(parentName) : null;
      return addTag(
        'post_category',
        nicename,
        category['wp:cat_name'] || nicename,
        category['wp:category_description'] || null,
        parent,
      );
    };
    for (const nicename of byNicename.keys()) if (nicename) placeCategory(nicename);
    for (const tag of tags) {
      const slug = tag['wp:tag_slug'] ?? '';
      if (slug && !tagIds.has(`post_tag:${slug}`))
        addTag('post_tag', slug, tag['wp:tag_name'] || slug, tag['wp:tag_description'] || null, null);
    }

    // Images: fetched once per URL, stored by their content's hash.
    const images = new ImportedImages({
      fetcher: this.deps.fetcher,
      store: this.deps.store,
      out,
      notes,
      skip: options.noMedia || options.dryRun,
      now,
    });
    const localImage = (url: string) => images.local(url);
    const localizeContent = (html: string) => images.localizeContent(html);

    // Pass 2: posts, pages, their comments, terms and old URLs.
    const STATUS: Record<string, string> = {
      publish: 'published',
      future: 'scheduled',
      draft: 'draft',
      'auto-draft': 'draft',
      pending: 'pending',
      private: 'draft',
    };
    let done = 0;
    let redirectId = 0;
    const redirected = new Set<string>();
    const seenIds = new Set<string>();
    await parseWxr(file, {
      item: async (item, extras) => {
        done += 1;
        options.onProgress?.(done, items);
        const type = item['wp:post_type'] ?? 'post';
        const wpId = item['wp:post_id'] ?? '';
        if (type === 'attachment') return;
        if (INTERNAL_TYPES.has(type)) return;
        if (type !== 'post' && type !== 'page') {
          notes.push({ kind: 'posts', id: wpId, reason: `unknown post type "${type}" (not imported)` });
          return;
        }
        if (!/^\d+$/.test(wpId) || seenIds.has(wpId)) {
          notes.push({
            kind: type === 'page' ? 'pages' : 'posts',
            id: wpId,
            reason: 'no post id, or the same id twice',
          });
          return;
        }
        seenIds.add(wpId);
        const wpStatus = item['wp:status'] ?? 'draft';
        if (wpStatus === 'trash' || wpStatus === 'inherit') {
          notes.push({
            kind: type === 'page' ? 'pages' : 'posts',
            id: wpId,
            reason: `in WordPress's ${wpStatus}: not imported`,
          });
          return;
        }
        if (wpStatus === 'private')
          notes.push({ kind: 'posts', id: wpId, reason: 'private in WordPress: imported as a draft' });
        const id = Number(wpId);
        const title = (item.title ?? '').trim() || '(untitled)';
        const slug = (item['wp:post_name'] ?? '').trim() || slugify(title, `${type}-${id}`);
        const created = iso(item['wp:post_date_gmt'], item['wp:post_date']) ?? now;
        const modified = iso(item['wp:post_modified_gmt'], item['wp:post_modified']) ?? created;
        const author = userIds.get((item['dc:creator'] ?? '').trim()) ?? null;
        const written = await localizeContent(paragraphs(load, item['content:encoded'] ?? ''));
        const content = options.keepHtml ? written : sanitizeImportedHtml(written);
        if (type === 'page') {
          out.add('pages', {
            id,
            author_id: author,
            title,
            slug,
            content,
            type: 'plain',
            template: null,
            status: wpStatus === 'publish' ? 'published' : 'draft',
            meta_title: null,
            meta_description: null,
            created_at: created,
            updated_at: modified,
            deleted_at: null,
          });
          out.add('website_bindings', { website_id: 1, model_type: 'page', model_id: id });
        } else {
          const thumbnailId = extras.meta.find((m) => m.key === '_thumbnail_id')?.value;
          const thumbnailUrl = thumbnailId ? attachments.get(thumbnailId) : undefined;
          const thumbnail = thumbnailUrl ? ((await localImage(thumbnailUrl)) ?? thumbnailUrl) : null;
          const writtenExcerpt = (item['excerpt:encoded'] ?? '').trim();
          const excerpt = options.keepHtml ? writtenExcerpt : plainText(writtenExcerpt).trim();
          out.add('posts', {
            id,
            type: 'post',
            author_id: author,
            title,
            slug,
            excerpt: excerpt || null,
            content,
            keywords: null,
            thumbnail,
            status: STATUS[wpStatus] ?? 'draft',
            published_at: wpStatus === 'publish' || wpStatus === 'future' ? created : null,
            meta_title: null,
            meta_description: null,
            meta_keywords: null,
            created_at: created,
            updated_at: modified,
            deleted_at: null,
          });
          out.add('website_bindings', { website_id: 1, model_type: 'post', model_id: id });
          for (const term of extras.categories) {
            const kind =
              term.domain === 'category' ? 'post_category' : term.domain === 'post_tag' ? 'post_tag' : null;
            if (!kind) continue;
            const slugOfTerm = term.nicename || slugify(term.name, '');
            let tag = tagIds.get(`${kind}:${slugOfTerm}`);
            if (!tag && slugOfTerm) tag = addTag(kind, slugOfTerm, term.name || slugOfTerm, null, null);
            if (tag) out.add('taggables', { tag_id: tag, taggable_type: 'post', taggable_id: id });
          }
          for (const comment of extras.comments) {
            const approved = comment['wp:comment_approved'] ?? '0';
            if (
              approved === 'trash' ||
              (comment['wp:comment_type'] ?? '') === 'pingback' ||
              (comment['wp:comment_type'] ?? '') === 'trackback'
            )
              continue;
            const commentId = Number(comment['wp:comment_id']);
            if (!Number.isInteger(commentId)) continue;
            const parent = Number(comment['wp:comment_parent'] ?? 0);
            const at = iso(comment['wp:comment_date_gmt'], comment['wp:comment_date']) ?? created;
            out.add('comments', {
              id: commentId,
              post_id: id,
              user_id: null,
              parent_id: parent > 0 ? parent : null,
              author_name: comment['wp:comment_author'] || null,
              author_email: comment['wp:comment_author_email'] || null,
              content: sanitizeComment(comment['wp:comment_content'] ?? ''),
              status: approved === '1' ? 'approved' : approved === 'spam' ? 'spam' : 'pending',
              likes: 0,
              reports: 0,
              ip_hash: null,
              user_agent: null,
              website_id: 1,
              created_at: at,
              updated_at: at,
            });
          }
        }
        // The old permalink keeps answering: a 301 to the post or page; so do WordPress's links by id
        // (`/?p=12`, and `/?page_id=12` for a page), which it answers whatever its permalinks.
        const target = type === 'page' ? `/page/${slug}` : `/post/${slug}`;
        const oldPaths = [
          item.link ? redirectPath(item.link) : null,
          `/?p=${id}`,
          type === 'page' ? `/?page_id=${id}` : null,
        ];
        for (const from of new Set(oldPaths)) {
          if (!from || from === '/' || from === target || redirected.has(from)) continue;
          redirected.add(from);
          redirectId += 1;
          out.add('redirects', {
            id: redirectId,
            website_id: 1,
            from_path: from,
            post_id: type === 'post' ? id : null,
            page_id: type === 'page' ? id : null,
            to_url: null,
            created_at: now,
          });
        }
      },
    });
    return notes;
  }
}
