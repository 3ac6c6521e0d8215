// The post editor's form: what it holds, how a post of API v2 becomes one and one becomes the body
// of a save, and which fields two versions differ in (a conflict lists them).
import type { components } from '../../../../clients/typescript/schema.js';
import { hasText } from '../../editor/locale-tabs.js';
import { t } from '../../i18n.js';
import type { MessageKey } from '../../i18n.js';
import type { TagOption } from '../tag-picker.js';

export interface LocaleText {
  title: string;
  excerpt: string;
  content: string;
}

export interface Form {
  text: Record<string, LocaleText>;
  slug: string;
  thumbnail_url: string;
  tags: TagOption[];
  categories: TagOption[];
  meta_title: string;
  meta_description: string;
  website_ids: number[];
  /** A `datetime-local` value in the editor's time zone ('' : now). */
  publish_at: string;
}

export interface Loaded {
  id: number;
  status: string;
  etag: string;
  updated_at: string;
  published_at: string | null;
  author_id: number | null;
}

export type Problem = { title: string; detail?: string; status: number; errors?: Record<string, string[]> };
export type PostData = components['schemas']['Post'];
export type ReviewStep = components['schemas']['ReviewStep'];

/** Someone else saved first: the version they saved (its ETag) and what keeping ours overwrites. */
export interface Conflict {
  etag: string;
  /** Labels of the fields where their version differs from ours (null: their version could not be read). */
  fields: string[] | null;
}

/** A new post becomes a draft by itself this long after it has a title and content. */
export const FIRST_SAVE_MS = 4000;
/**
 * The server's autosave of unsaved work (issue 37 #2): this user's one copy of the post, in every
 * locale. It never changes the post, so it writes no revision: only Save and Publish do.
 */
export const SERVER_AUTOSAVE_MS = 1500;
export const copyKey = (id: number | null) => `folio-admin:post:${id ?? 'new'}`;

/** `2026-11-25T21:30` in the browser's time zone, from an ISO time. */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function emptyForm(locales: string[], websiteId: number | null): Form {
  return {
    text: Object.fromEntries(locales.map((locale) => [locale, { title: '', excerpt: '', content: '' }])),
    slug: '',
    thumbnail_url: '',
    tags: [],
    categories: [],
    meta_title: '',
    meta_description: '',
    website_ids: websiteId ? [websiteId] : [],
    publish_at: '',
  };
}

const sameIds = (a: Array<{ id: number }> | number[], b: Array<{ id: number }> | number[]) => {
  const ids = (list: Array<{ id: number }> | number[]) =>
    list
      .map((item) => (typeof item === 'number' ? item : item.id))
      .sort((x, y) => x - y)
      .join(',');
  return ids(a) === ids(b);
};

/** HTML as the browser reads it (`<img …/>` and `<img …>` alike), to compare two versions' content. */
function normalHtml(html: string): string {
  const template = document.createElement('template');
  template.innerHTML = html.trim();
  return template.innerHTML;
}

/** The fields where `theirs` differs from `ours`: what saving ours over theirs replaces. */
export function differingFields(ours: Form, theirs: Form, locales: string[]): string[] {
  const fields: string[] = [];
  const named = (key: MessageKey, code: string) => (locales.length > 1 ? `${t(key)} (${code})` : t(key));
  const textKeys = { title: 'editor.title', content: 'editor.content', excerpt: 'editor.excerpt' } as const;
  for (const [field, key] of Object.entries(textKeys) as Array<[keyof LocaleText, MessageKey]>) {
    for (const code of locales) {
      const mine = (ours.text[code]?.[field] ?? '').trim();
      const other = (theirs.text[code]?.[field] ?? '').trim();
      const differ = field === 'content' ? normalHtml(mine) !== normalHtml(other) : mine !== other;
      if (differ) fields.push(named(key, code));
    }
  }
  const plain: Array<
    ['slug' | 'thumbnail_url' | 'meta_title' | 'meta_description' | 'publish_at', MessageKey]
  > = [
    ['slug', 'editor.slug'],
    ['thumbnail_url', 'editor.thumbnail'],
    ['meta_title', 'editor.meta_title'],
    ['meta_description', 'editor.meta_description'],
    ['publish_at', 'editor.publish_at'],
  ];
  for (const [field, key] of plain) {
    if (ours[field].trim() !== theirs[field].trim()) fields.push(t(key));
  }
  if (!sameIds(ours.categories, theirs.categories)) fields.push(t('editor.categories'));
  if (!sameIds(ours.tags, theirs.tags)) fields.push(t('editor.tags'));
  if (!sameIds(ours.website_ids, theirs.website_ids)) fields.push(t('editor.websites'));
  return fields;
}

/** A locale has what a reader needs: a title and some content. */
export const complete = (text: LocaleText | undefined) =>
  !!text && text.title.trim() !== '' && hasText(text.content);

/** The form of a post as API v2 answers it (`locales`: the installation's, `base`: its default one). */
export function formOf(post: PostData, locales: string[], base: string): Form {
  const translations = post.translations ?? {};
  const text: Record<string, LocaleText> = {};
  for (const code of locales) {
    const isBase = code === base;
    text[code] = {
      title: translations.title?.[code] ?? (isBase ? (post.title ?? '') : ''),
      excerpt: translations.excerpt?.[code] ?? (isBase ? (post.excerpt ?? '') : ''),
      content: translations.content?.[code] ?? (isBase ? (post.content ?? '') : ''),
    };
  }
  return {
    text,
    slug: post.slug ?? '',
    thumbnail_url: post.thumbnail ?? '',
    tags: (post.tags ?? []).filter((tag) => tag.type !== 'post_category'),
    categories: post.categories ?? [],
    meta_title: post.meta_title ?? '',
    meta_description: post.meta_description ?? '',
    website_ids: post.website_ids ?? [],
    publish_at: post.status === 'scheduled' ? toLocalInput(post.published_at) : '',
  };
}

/** The body of a save of `current` (with `status` when given): every locale's text as a map. */
export function bodyOf(current: Form, locales: string[], status?: string) {
  const map = (field: keyof LocaleText) =>
    Object.fromEntries(locales.map((code) => [code, current.text[code]?.[field] ?? '']));
  const scheduled = current.publish_at !== '' ? new Date(current.publish_at).toISOString() : null;
  return {
    title: map('title'),
    content: map('content'),
    excerpt: map('excerpt'),
    ...(current.slug.trim() ? { slug: current.slug.trim() } : {}),
    thumbnail_url: current.thumbnail_url.trim() || null,
    tags: current.tags.map((tag) => tag.id),
    categories: current.categories.map((tag) => tag.id),
    meta_title: current.meta_title.trim() || null,
    meta_description: current.meta_description.trim() || null,
    website_id: current.website_ids,
    ...(status ? { status } : {}),
    ...(status === 'scheduled'
      ? { published_at: scheduled }
      : status === 'published'
        ? { published_at: null }
        : {}),
  };
}
