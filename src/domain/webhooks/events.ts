// The events a webhook may ask for (issue 38), and how the runner's domain events (the audit log's
// actions, told after commit by run.ts) become them. Posts are told by what readers see: a post that
// becomes public is `post.published`, one that stops being public `post.unpublished`, any other change
// `post.updated`; `webhook_public_posts` remembers which posts webhooks last saw public.
import type { DomainEvent } from '../write-scope.js';

export const WEBHOOK_EVENTS = [
  'post.published',
  'post.updated',
  'post.unpublished',
  'post.deleted',
  'page.created',
  'page.updated',
  'page.deleted',
  'tag.created',
  'tag.updated',
  'tag.deleted',
  'menu.changed',
  'website.created',
  'website.updated',
  'website.deleted',
  'website.domain_added',
  'website.domain_removed',
  'website.imported',
  'comment.created',
  'comment.approved',
  'member.added',
  'user.registered',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The event a test delivery carries (never asked for: "Send a test event" sends it to one webhook). */
export const TEST_EVENT = 'webhook.test';

/** Fixed mappings: one domain action, one webhook event (posts are decided by their state). */
const FIXED: Readonly<Record<string, WebhookEvent>> = {
  'page.create': 'page.created',
  'page.update': 'page.updated',
  'page.delete': 'page.deleted',
  'tag.create': 'tag.created',
  'tag.update': 'tag.updated',
  // The merged tag is gone: its posts now carry the other one.
  'tag.merge': 'tag.deleted',
  'tag.delete': 'tag.deleted',
  'menu.create': 'menu.changed',
  'menu.update': 'menu.changed',
  'menu.delete': 'menu.changed',
  'menu.items': 'menu.changed',
  'menu.sync': 'menu.changed',
  'website.create': 'website.created',
  'website.update': 'website.updated',
  'website.delete': 'website.deleted',
  'website.add_domain': 'website.domain_added',
  'website.remove_domain': 'website.domain_removed',
  // One event sums up an import (its counts in the payload), however many records it wrote.
  'import.folio': 'website.imported',
  'import.wordpress': 'website.imported',
  'import.ghost': 'website.imported',
  'comment.create': 'comment.created',
  'comment.reply': 'comment.created',
  'comment.approve': 'comment.approved',
  'membership.grant': 'member.added',
  'invite.accept': 'member.added',
  'user.register': 'user.registered',
  'user.create': 'user.registered',
};

/** Domain actions that change a post (its state decides which event it is). */
const POST_ACTIONS = new Set([
  'post.create',
  'post.update',
  'post.submit',
  'post.approve',
  'post.return',
  'post.restore',
  'post.publish',
  'post.unpublish',
]);

/** What a domain event may become before the post's state is known. */
export function candidateEvents(event: DomainEvent): readonly WebhookEvent[] {
  if (event.resourceType === 'post' || event.action.startsWith('post.')) {
    if (event.action === 'post.delete') return ['post.deleted'];
    if (POST_ACTIONS.has(event.action)) return ['post.published', 'post.updated', 'post.unpublished'];
    return [];
  }
  const fixed = FIXED[event.action];
  return fixed ? [fixed] : [];
}

/** The webhook event of a post change, from whether the post is public now and was before. */
export function postEvent(publicNow: boolean, publicBefore: boolean): WebhookEvent {
  if (publicNow && !publicBefore) return 'post.published';
  if (!publicNow && publicBefore) return 'post.unpublished';
  return 'post.updated';
}

/**
 * Resources of every website when bound to none (posts, pages, tags, menus for all sites): told to
 * every website's webhooks. Other resources bound to none (an account) go to installation-wide ones.
 */
export function sharedContent(resourceType: string): boolean {
  return ['post', 'page', 'tag', 'menu'].includes(resourceType);
}
