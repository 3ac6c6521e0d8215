// The panel's words, one catalogue per locale (English first; zh-TW next). `t('posts.count', { n })`.
const en = {
  'app.title': 'Folio admin',
  'app.skip': 'Skip to the content',
  'app.signin': 'Sign in to use the admin panel.',
  'app.signin.link': 'Sign in',
  'app.site': 'View the site',
  'app.loading': 'Loading…',
  'app.error': 'Something went wrong: {message}',
  'nav.posts': 'Posts',
  'posts.title': 'Posts',
  'posts.search': 'Search posts',
  'posts.search.button': 'Search',
  'posts.status.any': 'All',
  'posts.status.draft': 'Drafts',
  'posts.status.pending': 'Waiting for review',
  'posts.status.published': 'Published',
  'posts.status.scheduled': 'Scheduled',
  'posts.column.title': 'Title',
  'posts.column.status': 'Status',
  'posts.column.author': 'Author',
  'posts.column.updated': 'Updated',
  'posts.empty': 'No post here yet.',
  'posts.new': 'Write a post',
  'posts.page': 'Page {page} of {pages}',
  'posts.previous': 'Previous page',
  'posts.next': 'Next page',
  'posts.untitled': '(untitled)',
  'nav.comments': 'Comments',
  'comments.title': 'Comments',
  'comments.status.pending': 'Waiting',
  'comments.status.approved': 'Approved',
  'comments.status.spam': 'Spam',
  'comments.empty': 'No comment here.',
  'comments.anonymous': 'Anonymous',
  'comments.approve': 'Approve',
  'comments.spam': 'Spam',
  'comments.delete': 'Delete',
  'comments.done.approve': 'The comment is approved: it shows under the post.',
  'comments.done.spam': 'The comment is marked as spam.',
  'comments.done.delete': 'The comment is deleted.',
} as const;

export type MessageKey = keyof typeof en;
const catalogues: Record<string, Partial<Record<MessageKey, string>>> = { en };

let current: Partial<Record<MessageKey, string>> = en;

/** Chooses the catalogue for the browser's language (English when there is none for it). */
export function useLocale(locale: string): void {
  current = catalogues[locale] ?? catalogues[locale.split('-')[0] ?? ''] ?? en;
}

export function t(key: MessageKey, vars: Record<string, string | number> = {}): string {
  const text = current[key] ?? en[key];
  return text.replace(/\{(\w+)\}/g, (_, name: string) => String(vars[name] ?? ''));
}

/** A date and time in the editor's own time zone and language. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '';
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(iso),
  );
}
