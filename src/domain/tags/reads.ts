// Cached reads of tag trees for the faces' answers: a face hands over a view (how a tree becomes its
// answer); the answer is kept in the shared cache, with a copy in this process while its tags are
// current, under the tag of the tree's type (any change to a tag of the type flushes it).
import { NearCache } from '../../cache/near-cache.js';
import type { Cache } from '../../cache/cache.js';
import { pageTags } from '../cache-tags.js';
import type { TagNode, TagsService } from './store.js';

/** How long a cached tag tree may live without a change to its type (a safety net: changes flush it). */
const TREE_TTL_SECONDS = 600;

export interface TreeView<Out extends object> {
  /** Names the view in cache keys (answers of different views never mix). */
  name: string;
  build(tree: TagNode[]): Out;
}

export class TagReads {
  private readonly trees: NearCache<object>;

  constructor(
    private readonly tags: TagsService,
    cache: Cache,
  ) {
    this.trees = new NearCache<object>(cache, { max: 1000 });
  }

  /** The tree of a type in a locale, through the view (cached per view, type and locale). */
  async tree<Out extends object>(type: string, locale: string, view: TreeView<Out>): Promise<Out> {
    return (await this.trees.remember(
      `tags:tree:${view.name}:${locale}:${type}`,
      { tags: [pageTags.tagType(type)], ttlSeconds: TREE_TTL_SECONDS },
      async () => view.build(await this.tags.tree(type, locale)),
    )) as Out;
  }
}
