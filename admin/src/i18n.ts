import { communityMessages } from './messages-community.js';
import { editorMessages } from './messages-editor.js';
import { historyMessages } from './messages-history.js';
import { panelMessages } from './messages-panel.js';
import { sitesMessages } from './messages-sites.js';
import { webhooksMessages } from './messages-webhooks.js';
import { transfersMessages } from './messages-transfers.js';
import { ja, zh_CN, zh_TW } from './messages-translations.js';

// The panel's words, one catalogue per locale (English first; zh-TW next). `t('posts.count', { n })`.
const en = {
  'app.title': 'Folio admin',
  'app.skip': 'Skip to the content',
  'app.signin': 'Sign in to use the admin panel.',
  'app.signin.link': 'Sign in',
  'app.norole.title': 'You have no role on {name}',
  'app.norole':
    'Nothing of this website can be managed with your account: ask one of its administrators for a role.',
  'app.norole.elsewhere': 'The panels of your websites:',
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
  'posts.filter.tag': 'Category or tag',
  'posts.filter.tag.any': 'Any',
  'posts.filter.author': 'Author',
  'posts.filter.author.me': '{name} (me)',
  'posts.sort': 'Order',
  'posts.sort.updated_at': 'Last updated',
  'posts.sort.created_at': 'Newest',
  'posts.sort.published_at': 'Last published',
  'posts.sort.title': 'Title A–Z',
  'posts.sort.relevance': 'Best match',
  'posts.bulk': 'Act on the chosen posts',
  'posts.bulk.all': 'Choose every post on this page',
  'posts.bulk.one': 'Choose “{title}”',
  'posts.bulk.chosen': '{n} chosen',
  'posts.bulk.action': 'Action',
  'posts.bulk.publish': 'Publish',
  'posts.bulk.unpublish': 'Unpublish',
  'posts.bulk.delete': 'Delete',
  'posts.bulk.move': 'Move to website…',
  'posts.bulk.target': 'Website',
  'posts.bulk.apply': 'Apply',
  'posts.bulk.delete.confirm': 'Delete {n} posts? They disappear from every website.',
  'posts.bulk.done': 'Done for {n} posts.',
  'posts.bulk.partly': 'Done for {n} posts; {refused} could not be changed (not yours, or not allowed).',
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
  'app.leave': 'You have unsaved changes. Leave anyway?',
  'app.website': 'Website',
  'nav.reviews': 'Reviews',
  'reviews.title': 'Waiting for review',
  'reviews.empty': 'Nothing is waiting for review.',
  'reviews.submitted': 'Submitted {time} by {name}',
  'reviews.open': 'Review',
  'posts.status.new': 'New',
  'editor.new': 'New post',
  'editor.edit': 'Edit post',
  'editor.saving': 'Saving…',
  'editor.unsaved': 'Unsaved changes',
  'editor.saved': 'Saved {time}',
  'editor.autosaved': 'Not saved yet; kept as your autosave {time}',
  'editor.locales': 'Languages',
  'editor.locale.missing': 'missing',
  'editor.title': 'Title',
  'editor.content': 'Content',
  'editor.excerpt': 'Excerpt',
  'editor.settings': 'Post settings',
  'editor.publishing': 'Publishing',
  'editor.publish_at': 'Publish at (empty: now)',
  'editor.publish_at.help': 'Your time zone: {zone}.',
  'editor.save_draft': 'Save draft',
  'editor.save': 'Save',
  'editor.publish': 'Publish',
  'editor.schedule': 'Schedule',
  'editor.submit': 'Submit for review',
  'editor.update': 'Update',
  'editor.unpublish': 'Unpublish',
  'editor.approve': 'Approve and publish',
  'editor.approve.schedule': 'Approve and schedule',
  'editor.note': 'Note for the writer',
  'editor.send_back': 'Send back',
  'editor.preview': 'Preview on the site',
  'editor.preview.saved_only': '(shows the saved version)',
  'editor.delete': 'Delete post',
  'editor.delete.confirm': 'Delete this post? It disappears from every website.',
  'editor.done.draft': 'Draft saved.',
  'editor.done.published': 'Published: the post is on the website.',
  'editor.done.scheduled': 'Scheduled: the post goes public at its time.',
  'editor.done.saved': 'Saved.',
  'editor.done.unpublished': 'Unpublished: the post is a draft again.',
  'editor.done.submitted': 'Submitted: an editor will review it.',
  'editor.done.approved': 'Approved.',
  'editor.done.returned': 'Sent back to the writer with your note.',
  'editor.conflict':
    'Someone else saved this post while you were editing it. Load their version (your changes are lost), or keep yours (theirs are overwritten).',
  'editor.conflict.reload': 'Load their version',
  'editor.conflict.keep': 'Keep mine and save',
  'editor.restore': 'This browser kept changes you had not saved. Restore them?',
  'editor.restore.yes': 'Restore',
  'editor.restore.no': 'Discard',
  'editor.address': 'Address',
  'editor.slug': 'Slug',
  'editor.slug.free': 'This address is free.',
  'editor.slug.taken': 'Already taken; saving would use {suggestion}.',
  'editor.taxonomy': 'Categories and tags',
  'editor.categories': 'Categories',
  'editor.tags': 'Tags',
  'editor.thumbnail': 'Thumbnail',
  'editor.thumbnail.url': 'Image address (https)',
  'editor.websites': 'Websites',
  'editor.seo': 'Search engines',
  'editor.meta_title': 'Title for search engines',
  'editor.meta_description': 'Description for search engines',
  'editor.serp': 'How a search result may show it',
  'editor.placeholder': 'Write here. Markdown shortcuts work: ## heading, - list, > quote, **bold**.',
  'editor.toolbar': 'Formatting',
  'editor.bold': 'Bold',
  'editor.italic': 'Italic',
  'editor.heading2': 'Heading',
  'editor.heading3': 'Subheading',
  'editor.bullets': 'Bulleted list',
  'editor.numbers': 'Numbered list',
  'editor.quote': 'Quote',
  'editor.code': 'Code block',
  'editor.link': 'Link',
  'editor.image': 'Image',
  'editor.video': 'Video (YouTube or Vimeo)',
  'editor.video.short': 'Video',
  'editor.table': 'Table',
  'editor.table.row': 'Add a row',
  'editor.table.column': 'Add a column',
  'editor.table.delete': 'Delete the table',
  'editor.undo': 'Undo',
  'editor.redo': 'Redo',
  'editor.url': 'Address',
  'editor.url.apply': 'Apply',
  'editor.url.cancel': 'Cancel',
  'editor.url.invalid': 'Enter a full http(s) address.',
  'editor.video.invalid': 'Enter the address of a YouTube or Vimeo video.',
  'editor.link.title': 'Link (empty: remove the link)',
  'editor.image.title': 'Image by address',
  'editor.video.title': 'Embed a video',
  'editor.library': 'Image from the library',
  'editor.thumbnail.library': 'Choose from the library',
  'nav.media': 'Media',
  'nav.pages': 'Pages',
  'pages.title': 'Pages',
  'pages.new': 'New page',
  'pages.edit': 'Edit page',
  'pages.search': 'Search pages',
  'pages.empty': 'No page yet.',
  'pages.settings': 'Page settings',
  'pages.template': 'Template',
  'pages.template.plain': 'Plain page',
  'pages.template.name': 'Theme template',
  'pages.template.help':
    'A view in the theme\u2019s templates folder (e.g. full-width); empty: the plain page view.',
  'pages.slug.help': 'Its address on the site; empty: made from the title.',
  'pages.conflict': 'Someone else saved this page while you were editing it: reload to see their version.',
  'pages.done.published': 'Published: the page is on the website.',
  'pages.delete': 'Delete page',
  'pages.delete.confirm': 'Delete this page?',
  'pages.delete.force': 'Delete it anyway? The menu items that link to it go too.',
  'media.title': 'Media library',
  'media.drop': 'Drop images here to upload them, or',
  'media.choose': 'Choose files',
  'media.uploads': 'Uploads',
  'media.progress': 'Upload of {name}',
  'media.uploaded': 'Uploaded',
  'media.search': 'Search the library',
  'media.type': 'Type',
  'media.type.any': 'Any',
  'media.type.image': 'Images',
  'media.type.video': 'Videos',
  'media.type.audio': 'Audio',
  'media.type.document': 'Documents',
  'media.view': 'View',
  'media.view.grid': 'Grid',
  'media.view.list': 'List',
  'media.items': 'Items',
  'media.empty': 'Nothing here yet: upload a file.',
  'media.variants': '{n} WebP and smaller copies',
  'media.alt': 'Alternative text',
  'media.alt.help': 'What the image shows, for people who cannot see it.',
  'media.caption': 'Caption',
  'media.save': 'Save',
  'media.saved': 'Saved.',
  'media.conflict': 'Someone else changed this item meanwhile: open it again to see their version.',
  'media.delete': 'Delete',
  'media.delete.confirm': 'Delete {name}?',
  'media.delete.force': 'Delete it anyway',
  'media.usage': 'Where it is used',
  'media.usage.none': 'Not used anywhere.',
  'media.usage.elsewhere': 'and {n} uses on other websites',
  'media.as.thumbnail': 'thumbnail',
  'media.as.content': 'in the text',
  'media.as.page': 'page',
  'media.pick': 'Choose an image',
  'nav.system': 'System',
  'nav.webhooks': 'Webhooks',
  'nav.links': 'Links',
  'links.title': 'Links directory',
  'links.add': 'Add the link',
  'links.name': 'Name',
  'links.url': 'Address (https)',
  'links.description': 'Description',
  'links.categories': 'Categories (comma-separated)',
  'links.clicks': 'Clicks',
  'links.empty': 'No link yet.',
  'links.added': '{name} is in the directory.',
  'links.deleted': '{name} is deleted.',
  'links.delete': 'Delete',
  'links.delete.named': 'Delete {name}',
  'links.delete.confirm': 'Delete {name}?',
  'system.title': 'System',
  'system.caches': 'Caches',
  'system.caches.help':
    'Pages and data are cached and flushed by every change; flush by hand after editing a theme on disk.',
  'system.flush.site': 'Flush the cache of {name}',
  'system.flush.all': 'Flush every cache',
  'system.flushed.site': 'The website\u2019s cache is flushed.',
  'system.flushed.all': 'Every cache is flushed.',
  'system.settings': 'Settings',
  'system.settings.help':
    'Every setting of the installation (secrets are never shown). The API switches are the toggles named enable_api_…; a change reaches every node at once.',
  'system.settings.filter': 'Show settings containing',
  'system.settings.key': 'Setting',
  'system.settings.value': 'Value',
  'system.settings.save': 'Save the changed values',
  'system.settings.saved': '{n} setting(s) saved.',
  'system.updates': 'Updates',
  'system.update': 'Update Folio now',
  'system.update.confirm': 'Update Folio to the latest version now?',
  'system.update.running': 'An update is running.',
  'system.update.idle': 'No update is running.',
  'system.update.done': 'Updated: version {version}.',
  'picker.remove': 'Remove {name}',
  'picker.create': 'Create “{name}”',
  ...sitesMessages,
  ...communityMessages,
  ...webhooksMessages,
  ...transfersMessages,
  ...editorMessages,
  ...historyMessages,
  ...panelMessages,
} as const;

export type MessageKey = keyof typeof en;
export type Catalogue = Partial<Record<MessageKey, string>>;

/** The panel's languages (issue 41), each named in itself for the language menu. */
export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'zh_TW', name: '繁體中文' },
  { code: 'zh_CN', name: '简体中文' },
  { code: 'ja', name: '日本語' },
] as const;
export type Language = (typeof LANGUAGES)[number]['code'];

/** Every catalogue by language; a key a catalogue lacks reads in English. */
export const PANEL_CATALOGUES: Record<Language, Catalogue> = { en, zh_TW, zh_CN, ja };

let language: Language = 'en';
let current: Catalogue = en;

/**
 * The panel's language for a locale or a browser's language tag: `zh-TW`, `zh-HK` and `zh-Hant` read
 * Traditional Chinese, other Chinese Simplified, `ja-JP` Japanese; anything else English.
 */
export function languageFor(tag: string): Language {
  const lower = tag.trim().replace(/-/g, '_').toLowerCase();
  const exact = LANGUAGES.find((entry) => entry.code.toLowerCase() === lower);
  if (exact) return exact.code;
  const [base = ''] = lower.split('_');
  if (base === 'zh') return /(^|_)(hant|tw|hk|mo)(_|$)/.test(lower) ? 'zh_TW' : 'zh_CN';
  if (base === 'ja') return 'ja';
  return 'en';
}

/** Chooses the panel's language (the account's choice, else the browser's); sets `<html lang>`. */
export function useLocale(locale: string): void {
  language = languageFor(locale);
  current = PANEL_CATALOGUES[language];
  // Read through globalThis: the catalogue check (test/unit/i18n.test.ts) loads this module in Node.
  const page = (globalThis as { document?: { documentElement: { lang: string } } }).document;
  if (page) page.documentElement.lang = language.replace('_', '-');
}

export function currentLanguage(): Language {
  return language;
}

export function t(key: MessageKey, vars: Record<string, string | number> = {}): string {
  const text = current[key] ?? en[key];
  return text.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = vars[name];
    return typeof value === 'number' ? formatNumber(value) : String(value ?? '');
  });
}

/** A number in the panel's language (digits and grouping). */
export function formatNumber(value: number): string {
  return new Intl.NumberFormat(language.replace('_', '-')).format(value);
}

/** A date and time in the editor's own time zone, in the panel's language. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '';
  return new Intl.DateTimeFormat(language.replace('_', '-'), {
    dateStyle: 'medium',
    timeStyle: 'short',
  }).format(new Date(iso));
}
