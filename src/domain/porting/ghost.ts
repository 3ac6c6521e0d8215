// Ghost import (issue 39 #4): a Ghost JSON export (Settings -> Labs -> Export, `{ db: [{ meta, data }] }`)
// turned into a Folio archive the Folio importer brings in (its plan, dry run, clash renaming, batches
// and undo are the same). Posts and pages keep their HTML; a post without HTML has its Lexical (Ghost
// 5) or mobiledoc (Ghost 1-4) document rendered here. Tags, authors (users without a password) and the
// tags and first author of each post come along. Ghost exports name no site domain: they go into an
// existing website (--website). Images stay where they are (Ghost's __GHOST_URL__ paths are reported).
import fs from 'node:fs';
import path from 'node:path';
import { ForbiddenError } from '../errors.js';
import { plainText, sanitizeImportedHtml } from '../text/html-sanitizer.js';
import { markdownToHtml } from '../text/markdown.js';
import type { Actor, Policy } from '../policy.js';
import type { MediaStore } from '../../storage/store.js';
import type { SafeFetcher } from '../safe-fetch.js';
import { ArchiveBuilder } from './archive-writer.js';
import { ImportedImages } from './images.js';
import { ImportError } from './import-folio.js';
import type { FolioImporter, ImportReport } from './import-folio.js';

/** Ghost exports are one JSON document; larger than this is refused (it would be read whole). */
export const MAX_GHOST_BYTES = 512 * 1024 * 1024;

type Obj = Record<string, unknown>;
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const escape = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );
const safeUrl = (url: string) =>
  /^(https?:|mailto:|\/|#|__GHOST_URL__)/i.test(url.trim()) ? url.trim() : '#';

/** Lexical's text formats (a bit field) as HTML elements, innermost first. */
const FORMATS: Array<[number, string]> = [
  [16, 'code'],
  [1, 'strong'],
  [2, 'em'],
  [8, 'u'],
  [4, 's'],
];

/** A post's document as its editor wrote it (Ghost 5: lexical, Ghost 1-4: mobiledoc). */
function parseDocument(json: string, editor: 'lexical' | 'mobiledoc'): Obj {
  try {
    return JSON.parse(json) as Obj;
  } catch {
    throw new ImportError(`a post's ${editor} document is not valid JSON`);
  }
}

/** Renders a Lexical document (Ghost 5's editor) to HTML: the nodes Ghost writes, unknown ones dropped. */
export function lexicalToHtml(json: string): string {
  const doc = parseDocument(json, 'lexical');
  const children = (node: Obj): string => ((node.children as Obj[] | undefined) ?? []).map(render).join('');
  const render = (node: Obj): string => {
    switch (node.type) {
      case 'text':
      case 'extended-text': {
        let html = escape(str(node.text));
        const format = typeof node.format === 'number' ? node.format : 0;
        for (const [bit, tag] of FORMATS) if (format & bit) html = `<${tag}>${html}</${tag}>`;
        return html;
      }
      case 'linebreak':
        return '<br>';
      case 'paragraph':
        return `<p>${children(node)}</p>`;
      case 'heading':
      case 'extended-heading': {
        const tag = /^h[1-6]$/.test(str(node.tag)) ? str(node.tag) : 'h2';
        return `<${tag}>${children(node)}</${tag}>`;
      }
      case 'quote':
      case 'extended-quote':
        return `<blockquote>${children(node)}</blockquote>`;
      case 'list': {
        const tag = node.listType === 'number' ? 'ol' : 'ul';
        return `<${tag}>${children(node)}</${tag}>`;
      }
      case 'listitem':
        return `<li>${children(node)}</li>`;
      case 'link':
        return `<a href="${escape(safeUrl(str(node.url)))}">${children(node)}</a>`;
      case 'horizontalrule':
        return '<hr>';
      case 'image': {
        const caption = str(node.caption);
        const img = `<img src="${escape(safeUrl(str(node.src)))}" alt="${escape(str(node.alt))}">`;
        return caption
          ? `<figure>${img}<figcaption>${caption}</figcaption></figure>`
          : `<figure>${img}</figure>`;
      }
      case 'codeblock':
        return `<pre><code>${escape(str(node.code))}</code></pre>`;
      case 'html':
        return str(node.html);
      case 'markdown':
        return markdownToHtml(str(node.markdown));
      default:
        return node.children ? children(node) : '';
    }
  };
  return children((doc.root as Obj | undefined) ?? {});
}

/** Renders a mobiledoc document (Ghost 1-4): markup sections, lists, and the common cards. */
export function mobiledocToHtml(json: string): string {
  const doc = parseDocument(json, 'mobiledoc');
  const markups = (doc.markups as Array<[string, string[]?]> | undefined) ?? [];
  const cards = (doc.cards as Array<[string, Obj]> | undefined) ?? [];
  const markers = (list: unknown[]): string => {
    let html = '';
    const open: string[] = [];
    for (const marker of list as Array<[number, number[], number, string]>) {
      const [, opens = [], closes = 0, text = ''] = marker;
      for (const index of opens) {
        const [tag = 'span', attrs = []] = markups[index] ?? [];
        const safeTag = ['a', 'strong', 'b', 'em', 'i', 'u', 's', 'code', 'sup', 'sub'].includes(tag)
          ? tag
          : 'span';
        const href = safeTag === 'a' ? attrs[attrs.indexOf('href') + 1] : undefined;
        html += href !== undefined ? `<a href="${escape(safeUrl(String(href)))}">` : `<${safeTag}>`;
        open.push(safeTag);
      }
      html += escape(String(text));
      for (let i = 0; i < closes; i += 1) html += `</${open.pop() ?? 'span'}>`;
    }
    while (open.length) html += `</${open.pop()}>`;
    return html;
  };
  const sections = (doc.sections as unknown[][] | undefined) ?? [];
  return sections
    .map((section) => {
      const [kind, tagOrIndex, content] = section as [number, string | number, unknown[]];
      if (kind === 1) {
        const tag = ['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'aside'].includes(
          String(tagOrIndex).toLowerCase(),
        )
          ? String(tagOrIndex).toLowerCase()
          : 'p';
        return `<${tag}>${markers(content ?? [])}</${tag}>`;
      }
      if (kind === 3) {
        const tag = tagOrIndex === 'ol' ? 'ol' : 'ul';
        return `<${tag}>${((content ?? []) as unknown[][]).map((item) => `<li>${markers(item)}</li>`).join('')}</${tag}>`;
      }
      if (kind === 10) {
        const [name, payload = {}] = cards[Number(tagOrIndex)] ?? ['', {}];
        if (name === 'html') return str(payload.html);
        if (name === 'markdown' || name === 'card-markdown') return markdownToHtml(str(payload.markdown));
        if (name === 'image')
          return `<figure><img src="${escape(safeUrl(str(payload.src)))}" alt="${escape(str(payload.alt))}"></figure>`;
        if (name === 'code') return `<pre><code>${escape(str(payload.code))}</code></pre>`;
        if (name === 'hr') return '<hr>';
        return '';
      }
      return '';
    })
    .join('');
}

export class GhostImporter {
  constructor(
    private readonly deps: { policy: Policy; folio: FolioImporter; fetcher: SafeFetcher; store: MediaStore },
  ) {}

  async import(
    actor: Actor,
    file: string,
    options: {
      websiteId: number | null;
      dryRun: boolean;
      onProgress?: (done: number, total: number) => void;
      /** Keep the HTML as written (a trusted source); else cut to the public site's allow-list. */
      keepHtml?: boolean;
      /**
       * The Ghost site's address (`https://blog.example.com`): what its `__GHOST_URL__` stands for, so
       * that its own images can be fetched. Without it they stay at Ghost's paths (the report says so).
       */
      siteUrl?: string | null;
      /** Leave images where they are (external URLs) instead of fetching them into the library. */
      noMedia?: boolean;
    },
  ): Promise<ImportReport> {
    if (!(await this.deps.policy.can(actor, 'installation.manage', {})))
      throw new ForbiddenError('Importing is for administrators.');
    if (options.websiteId == null) {
      throw new ImportError(
        'a Ghost export names no domain: import it into a website with --website ID|DOMAIN',
      );
    }
    const size = fs.statSync(file).size;
    if (size > MAX_GHOST_BYTES) {
      throw new ImportError(
        `the Ghost export is ${Math.round(size / 1024 / 1024)} MB; at most ${MAX_GHOST_BYTES / 1024 / 1024} MB are read`,
      );
    }
    let parsed: Obj;
    try {
      parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Obj;
    } catch (error) {
      throw new ImportError(`the Ghost export is not valid JSON (${(error as Error).message})`);
    }
    const db = (Array.isArray(parsed.db) ? (parsed.db[0] as Obj | undefined) : parsed) ?? {};
    const data = db.data as Obj | undefined;
    if (!data || typeof data !== 'object' || !Array.isArray(data.posts)) {
      throw new ImportError('the Ghost export has no data.posts');
    }
    const builder = new ArchiveBuilder();
    try {
      const notes: ImportReport['skipped'] = [];
      const images = new ImportedImages({
        fetcher: this.deps.fetcher,
        store: this.deps.store,
        out: builder,
        notes,
        skip: options.noMedia === true || options.dryRun,
        now: new Date().toISOString(),
      });
      const siteUrl = options.siteUrl?.trim().replace(/\/+$/, '') || null;
      if (siteUrl !== null && !/^https?:\/\/[^/]+/i.test(siteUrl)) {
        throw new ImportError(`the Ghost site's address "${siteUrl}" is not an http(s) URL`);
      }
      notes.push(
        ...(await this.convert(data, builder, { keepHtml: options.keepHtml === true, siteUrl, images })),
      );
      const archive = await builder.finish(path.join(builder.dir, 'ghost.tar.gz'));
      const report = await this.deps.folio.import(actor, archive, { ...options, convertedFrom: 'ghost' });
      return { ...report, format: 'ghost', skipped: [...notes, ...report.skipped] };
    } finally {
      builder.dispose();
    }
  }

  private async convert(
    data: Obj,
    out: ArchiveBuilder,
    options: { keepHtml: boolean; siteUrl: string | null; images: ImportedImages },
  ): Promise<ImportReport['skipped']> {
    const { keepHtml, siteUrl, images } = options;
    /** Ghost's own paths (`__GHOST_URL__/content/images/…`) on the site's address, when it is known. */
    const onSite = (text: string) => (siteUrl === null ? text : text.replaceAll('__GHOST_URL__', siteUrl));
    const notes: ImportReport['skipped'] = [];
    const now = new Date().toISOString();
    const list = (name: string) => (Array.isArray(data[name]) ? (data[name] as Obj[]) : []);
    const date = (value: unknown) => {
      const parsed = typeof value === 'string' || typeof value === 'number' ? new Date(value) : null;
      return parsed && !Number.isNaN(parsed.getTime()) ? parsed.toISOString() : null;
    };
    out.add('websites', { id: 1, user_id: null, site_name: 'Ghost', created_at: now, updated_at: now });

    const users = new Map<string, number>();
    const emails = new Map<string, string>();
    for (const user of list('users')) {
      const ghostId = str(user.id);
      const email = str(user.email).trim().toLowerCase();
      if (!email) {
        notes.push({
          kind: 'users',
          id: ghostId,
          reason: 'a Ghost author without an email: their posts have no author',
        });
        continue;
      }
      if (emails.has(email))
        throw new ImportError(
          `two authors of the Ghost export (${emails.get(email)} and ${ghostId}) have the email ${email}`,
        );
      emails.set(email, ghostId);
      const id = users.size + 1;
      users.set(ghostId, id);
      out.add('users', {
        id,
        name: str(user.name) || email,
        email,
        username: str(user.slug) || null,
        is_admin: false,
        is_active: true,
        created_at: date(user.created_at) ?? now,
        updated_at: date(user.updated_at) ?? now,
        locale: null,
      });
      out.add('memberships', {
        id,
        user_id: id,
        website_id: 1,
        role: 'author',
        created_at: now,
        updated_at: now,
      });
    }

    const tags = new Map<string, number>();
    for (const tag of list('tags')) {
      const ghostId = str(tag.id);
      const slug = str(tag.slug);
      if (!slug || str(tag.name).startsWith('#')) {
        notes.push({
          kind: 'tags',
          id: str(tag.name) || ghostId,
          reason: 'an internal Ghost tag (#…): not imported',
        });
        continue;
      }
      const id = tags.size + 1;
      tags.set(ghostId, id);
      out.add('tags', {
        id,
        name: str(tag.name) || slug,
        slug,
        type: 'post_tag',
        parent_id: null,
        description: str(tag.description) || null,
        icon: null,
        sort: 0,
        created_at: date(tag.created_at) ?? now,
        updated_at: date(tag.updated_at) ?? now,
      });
      out.add('website_bindings', { website_id: 1, model_type: 'tag', model_id: id });
    }

    const authorOf = new Map<string, string>();
    for (const link of list('posts_authors').sort(
      (a, b) => Number(a.sort_order ?? 0) - Number(b.sort_order ?? 0),
    )) {
      if (!authorOf.has(str(link.post_id))) authorOf.set(str(link.post_id), str(link.author_id));
    }
    const posts = new Map<string, { id: number; page: boolean }>();
    let ghostUrls = 0;
    for (const post of list('posts')) {
      const ghostId = str(post.id);
      const page = post.type === 'page' || post.page === true || post.page === 1;
      const type = str(post.type) || 'post';
      if (!page && type !== 'post') {
        notes.push({ kind: 'posts', id: ghostId, reason: `unknown post type "${type}" (not imported)` });
        continue;
      }
      let html = str(post.html);
      if (!html && str(post.lexical)) html = lexicalToHtml(str(post.lexical));
      if (!html && str(post.mobiledoc)) html = mobiledocToHtml(str(post.mobiledoc));
      html = onSite(html);
      if (html.includes('__GHOST_URL__')) ghostUrls += 1;
      if (!keepHtml) html = sanitizeImportedHtml(html);
      html = await images.localizeContent(html);
      const cover = onSite(str(post.feature_image));
      const thumbnail = /^https?:\/\//i.test(cover) ? ((await images.local(cover)) ?? cover) : cover || null;
      const id = posts.size + 1;
      posts.set(ghostId, { id, page });
      const author = users.get(authorOf.get(ghostId) ?? str(post.author_id)) ?? null;
      const created = date(post.created_at) ?? now;
      const updated = date(post.updated_at) ?? created;
      const status = str(post.status);
      const slug = str(post.slug) || `ghost-${id}`;
      if (page) {
        out.add('pages', {
          id,
          author_id: author,
          title: str(post.title) || '(untitled)',
          slug,
          content: html,
          type: 'plain',
          template: null,
          status: status === 'published' ? 'published' : 'draft',
          meta_title: str(post.meta_title) || null,
          meta_description: str(post.meta_description) || null,
          created_at: created,
          updated_at: updated,
          deleted_at: null,
        });
        out.add('website_bindings', { website_id: 1, model_type: 'page', model_id: id });
      } else {
        out.add('posts', {
          id,
          type: 'post',
          author_id: author,
          title: str(post.title) || '(untitled)',
          slug,
          excerpt: (keepHtml ? str(post.custom_excerpt) : plainText(str(post.custom_excerpt)).trim()) || null,
          content: html,
          keywords: null,
          thumbnail,
          status: status === 'published' ? 'published' : status === 'scheduled' ? 'scheduled' : 'draft',
          published_at: status === 'published' || status === 'scheduled' ? date(post.published_at) : null,
          meta_title: str(post.meta_title) || null,
          meta_description: str(post.meta_description) || null,
          meta_keywords: null,
          created_at: created,
          updated_at: updated,
          deleted_at: null,
        });
        out.add('website_bindings', { website_id: 1, model_type: 'post', model_id: id });
      }
    }
    for (const link of list('posts_tags')) {
      const post = posts.get(str(link.post_id));
      const tag = tags.get(str(link.tag_id));
      if (post && tag)
        out.add('taggables', {
          tag_id: tag,
          taggable_type: post.page ? 'page' : 'post',
          taggable_id: post.id,
        });
    }
    if (ghostUrls) {
      notes.push({
        kind: 'media',
        id: '__GHOST_URL__',
        reason: `${ghostUrls} post(s) name images at Ghost's own paths (__GHOST_URL__/content/images/…): import again with the Ghost site's address (--site-url) to fetch them`,
      });
    }
    return notes;
  }
}
