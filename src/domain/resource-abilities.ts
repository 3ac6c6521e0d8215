// What the actor may do to each resource a face shows (issue 34 #19): the `can` object API v2 puts
// on posts, pages and menus, so the admin panel offers only the buttons the policy would allow. Every
// answer is the policy's own question (policy.ts: `can`, `editsContent`, `managesMenus`), asked as the
// operation would ask it; the operations still ask again on every write.
//
// Cost: one answer asks about many resources (a page of the post list), so the policy it asks is one
// made for this answer, whose reads of the actor's roles and websites happen once (memoized), however
// many resources and actions are asked about. The facts of each resource are what the read already
// loaded (no query per resource).
import { Policy } from './policy.js';
import type { Actor, PostFacts } from './policy.js';

type PolicyDeps = ConstructorParameters<typeof Policy>[0];

/** A post's actions: change it, make it public (publish, schedule, approve as its writer), delete it. */
export interface PostAbilities {
  update: boolean;
  publish: boolean;
  delete: boolean;
}

/** A page's or a menu's actions: change it, delete it. */
export interface ContentAbilities {
  update: boolean;
  delete: boolean;
}

/** The facts of a post as a list or a detail read holds them. */
export interface PostFactsSource {
  author: { id: number } | null;
  status: string;
  publishedAt: string | null;
  websiteIds: readonly number[];
}

export class ResourceAbilities {
  constructor(private readonly deps: PolicyDeps) {}

  /**
   * A policy for one answer: the actor's roles and websites are read once, at the first question
   * (the shared Policy reads them per question, which is right for one write, not for 100 rows).
   */
  private policyForAnswer(): Policy {
    const roles = new Map<number, ReturnType<PolicyDeps['memberships']['rolesOf']>>();
    const accessible = new Map<number, ReturnType<PolicyDeps['websites']['accessibleIds']>>();
    const { memberships, websites, clock, settings } = this.deps;
    return new Policy({
      clock,
      // The installation's settings (any_account_writes): the operations' policy reads them too.
      settings,
      memberships: {
        rolesOf: (userId) => {
          let known = roles.get(userId);
          if (!known) roles.set(userId, (known = memberships.rolesOf(userId)));
          return known;
        },
      },
      websites: {
        accessibleIds: (userId) => {
          let known = accessible.get(userId);
          if (!known) accessible.set(userId, (known = websites.accessibleIds(userId)));
          return known;
        },
      },
    });
  }

  /** For each post: may the actor change it, publish it, delete it (the rules of update.ts and delete.ts). */
  async ofPosts(actor: Actor, posts: readonly PostFactsSource[]): Promise<PostAbilities[]> {
    const policy = this.policyForAnswer();
    const now = policy.now().getTime();
    // Posts with the same facts get the same answers: asked once per kind of post on the page (whose
    // it is, its status, whether its time has come, its websites), not once per post. Of its author
    // the rules of update, publish and delete read only whether it is the actor (policy.ts,
    // writesPost), so every other writer's posts are one kind: a page of 15 posts by 10 writers asks
    // about 2 kinds, not 10 (test/unit/resource-abilities.test.ts holds the answers to the policy's).
    const kinds = new Map<string, number>();
    const kindFacts: PostFacts[] = [];
    const kindOfPost = new Array<number>(posts.length);
    for (let i = 0; i < posts.length; i++) {
      const post = posts[i]!;
      const authorId = post.author?.id ?? null;
      const due = post.publishedAt === null || Date.parse(post.publishedAt) <= now;
      const own = authorId !== null && authorId === actor.userId;
      const key = `${own}|${authorId === null}|${post.status}|${due}|${idsKey(post.websiteIds)}`;
      let kind = kinds.get(key);
      if (kind === undefined) {
        kind = kindFacts.length;
        kinds.set(key, kind);
        kindFacts.push({
          authorId,
          status: post.status,
          publishedAt: post.publishedAt,
          websiteIds: post.websiteIds,
        });
      }
      kindOfPost[i] = kind;
    }
    // One wait for the kinds' answers (a page of 15 posts awaits 1 or 2 promises, not 15).
    const answers = await Promise.all(kindFacts.map((facts) => this.ask(policy, actor, facts)));
    return kindOfPost.map((kind) => answers[kind]!);
  }

  private async ask(policy: Policy, actor: Actor, facts: PostFacts): Promise<PostAbilities> {
    const [update, publish, remove] = await Promise.all([
      policy.can(actor, 'post.update', { post: facts }),
      policy.can(actor, 'post.publish', { post: facts }),
      policy.can(actor, 'post.delete', { post: facts }),
    ]);
    // Publishing is a change too: update.ts asks both.
    return { update, publish: update && publish, delete: remove };
  }

  /** For each page (by the websites it is on): editors' content (page-operations.ts). */
  async ofPages(
    actor: Actor,
    pages: ReadonlyArray<{ websiteIds: readonly number[] }>,
  ): Promise<ContentAbilities[]> {
    const policy = this.policyForAnswer();
    const byWebsites = new Map<string, Promise<boolean>>();
    return Promise.all(
      pages.map(async (page) => {
        const key = idsKey(page.websiteIds);
        let writes = byWebsites.get(key);
        if (!writes)
          byWebsites.set(key, (writes = policy.can(actor, 'content.write', { websiteIds: page.websiteIds })));
        const allowed = await writes;
        return { update: allowed, delete: allowed };
      }),
    );
  }

  /** For each menu (by its website): whoever manages the website's menus (menu-operations.ts). */
  async ofMenus(actor: Actor, menus: ReadonlyArray<{ websiteId: number }>): Promise<ContentAbilities[]> {
    const policy = this.policyForAnswer();
    const byWebsite = new Map<number, Promise<boolean>>();
    return Promise.all(
      menus.map(async (menu) => {
        let manages = byWebsite.get(menu.websiteId);
        if (!manages)
          byWebsite.set(
            menu.websiteId,
            (manages = policy.can(actor, 'menu.manage', { websiteId: menu.websiteId })),
          );
        const allowed = await manages;
        return { update: allowed, delete: allowed };
      }),
    );
  }
}

/** The ids in ascending order, as one key: no copy or sort for the usual one or two websites. */
export function idsKey(ids: readonly number[]): string {
  if (ids.length === 0) return '';
  if (ids.length === 1) return String(ids[0]);
  if (ids.length === 2) return ids[0]! <= ids[1]! ? `${ids[0]},${ids[1]}` : `${ids[1]},${ids[0]}`;
  return [...ids].sort((a, b) => a - b).join(',');
}
