// Cached reads of posts for the API's answers: a face hands over a view (how it turns a page or a post
// into its answer, and the answer's size), the read keeps answers in process (LocalAnswers, one share
// of the memory budget for every view),
// under the cache tags of what the store read (POST_READ_CACHE_TAGS), flushed by every post, tag,
// website or user change. The face never names a cache key or tag.
import type { Cache } from '../../cache/cache.js';
import { LocalAnswers } from '../../cache/answers.js';
import { MAX_SLUG_LENGTH } from '../text/slugs.js';
import { POST_READ_CACHE_TAGS } from './model.js';
import type { Page, PostDetail, PostListQuery, PostSummary } from './model.js';
import type { PostsService } from './store.js';

/**
 * How long a cached answer may be served. Every change that could alter one flushes it sooner; this
 * bounds what a change made behind the operations' back could do.
 */
const ANSWER_TTL_SECONDS = 60;

export interface AnswerView<In, Out extends object> {
  /** Names the view in cache keys (answers of different views never mix). */
  name: string;
  build(value: In): Out;
  /** Bytes an answer holds in memory (for the process's bound). */
  size(answer: Out): number;
}

export class PostReads {
  /** Every view's answers: keys name the view, so answers of different views never mix. */
  private readonly local: LocalAnswers<object>;
  private readonly options = { tags: POST_READ_CACHE_TAGS, ttlSeconds: ANSWER_TTL_SECONDS };

  constructor(
    private readonly store: PostsService,
    private readonly cache: Cache,
    /** Keys of answers made for this base URL (nodes with another APP_URL must not share them). */
    private readonly keyPrefix: string,
    /** Bytes of answers this process keeps (its share of the memory budget). */
    answerBytes: number,
  ) {
    this.local = new LocalAnswers<object>(answerBytes);
  }

  /** A page of the list through the view: the same for every caller who may ask for it. */
  async listPage<Out extends object>(
    query: PostListQuery,
    view: AnswerView<Page<PostSummary>, Out>,
  ): Promise<Out> {
    const compute = async () => view.build(await this.store.list(query));
    const key = this.store.listCacheKey(query);
    if (key === null) return compute();
    // compute() always answers: so does the cache.
    return this.remember(view, `list:${key}`, compute) as Promise<Out>;
  }

  /** The post named by an id or slug through the view (undefined: none), whatever its status. */
  async post<Out extends object>(ref: string, view: AnswerView<PostDetail, Out>): Promise<Out | undefined> {
    const compute = async () => {
      const post = await this.store.findDetailByRef(ref);
      return post ? view.build(post) : undefined;
    };
    // A reference longer than any slug names nothing that could be cached usefully.
    if (ref.length > MAX_SLUG_LENGTH) return compute();
    return this.remember(view, `show:${ref}`, compute);
  }

  /** The view's answer under `key` (undefined: none, never kept), kept in process. */
  private remember<Out extends object>(
    view: Pick<AnswerView<unknown, Out>, 'name' | 'size'>,
    key: string,
    compute: () => Promise<Out | undefined>,
  ): Promise<Out | undefined> {
    return this.local.remember(
      this.cache,
      `${this.keyPrefix}${view.name}:${key}`,
      this.options,
      compute,
      (answer) => view.size(answer as Out),
    ) as Promise<Out | undefined>;
  }
}
