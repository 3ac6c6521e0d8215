// Content changes, announced by the domain services after they commit: a small typed event bus. The
// public site's full-page cache listens and flushes exactly the cache tags a change affects; the tags
// live in the shared cache (Redis on several nodes), so one node's flush is seen by every node.
import { currentWriteScope } from './write-scope.js';

export type ContentChange =
  /** Posts created, updated, deleted or published (their pages, and the listings they show on). */
  | {
      kind: 'post';
      ids: readonly number[];
      /** The websites the posts were bound to before the change, when it moved them (none: global). */
      formerWebsiteIds?: readonly number[];
    }
  /** A tag created or changed. */
  | { kind: 'tag'; id: number; type: string }
  /** A page created or deleted. */
  | { kind: 'page'; id: number }
  /** A website, its fields or its domains changed. */
  | { kind: 'website'; id: number; domainsChanged?: boolean }
  /** The menu of a website was replaced (menu sync). */
  | { kind: 'menu'; websiteId: number }
  /** A link of the directory was created or changed. */
  | { kind: 'link'; id: number }
  /**
   * Items of the media library uploaded, changed or deleted; a forced delete names the posts and
   * pages that showed a deleted item (their pages change).
   */
  | { kind: 'media'; ids: readonly number[]; postIds?: readonly number[]; pageIds?: readonly number[] }
  /** A user's account details changed (their email shows in posts' answers to administrators). */
  | { kind: 'user'; id: number }
  /** Comments of a post changed (the comments module announces it): the post's pages only. */
  | { kind: 'comments'; postId: number }
  /** A user's public name or username changed (pages naming them as an author). */
  | { kind: 'author'; id: number }
  /** Installation settings set or removed (their keys). */
  | { kind: 'settings'; keys: readonly string[] };

export type ChangeListener = (change: ContentChange) => Promise<void>;

export class ContentChanges {
  private readonly listeners: ChangeListener[] = [];

  constructor(private readonly warn: (message: string) => void = () => undefined) {}

  subscribe(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  /**
   * Tells every listener, after the change is committed. Inside an operation (run.ts) the change is
   * kept with the operation's write scope, written to the outbox in its transaction and told after
   * commit; a rolled-back operation tells nothing.
   */
  async announce(change: ContentChange): Promise<void> {
    const scope = currentWriteScope();
    if (scope) {
      scope.changes.push(change);
      return;
    }
    await this.dispatch(change);
  }

  /**
   * Tells every listener now (the runner's, after commit). A listener that fails is logged, never
   * thrown: the change itself has succeeded.
   */
  async dispatch(change: ContentChange): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener(change);
      } catch (error) {
        this.warn(`content change ${change.kind}: listener failed: ${(error as Error).message}`);
      }
    }
  }
}
