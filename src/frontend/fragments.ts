// Fragment caching for themes: `{% cache 'name', key… %}…{% endcache %}` renders its block once and
// then answers the rendered HTML from process memory, for every visitor, signed in or not, whether or
// not the page itself may be cached. It is how a page that is rendered per request (the full-page
// cache is off, or the visitor is signed in) avoids rendering again what does not change with the
// request: menus, a post's article, a comment thread.
//
// - It is part of the website's data cache: with `enabled_data_cache` off, blocks always render.
// - A fragment is identified by the theme, the website, the locale and the locale's base path, plus
//   the tag's own keys: the keys must name everything else the block shows (a post's article:
//   `post.id`). A block must not show anything that belongs to one visitor (their name, a form
//   token): that stays outside, or the block is skipped for signed-in visitors.
// - A fragment carries the cache tags of the whole page it was first rendered in (page-tags.ts:
//   everything the page shows), and is dropped when any of them is flushed, when the settings change,
//   or after FRAGMENT_TTL_MS. It is stored only when no flush happened since the request began
//   (FragmentScope.stamp is null otherwise), so a change made while it rendered is never hidden.
import { LRUCache } from 'lru-cache';
import { Tag, TypeGuards, evalToken, toValueSync } from 'liquidjs';
import type {
  Context,
  Emitter,
  Liquid,
  Parser,
  TagToken,
  Template,
  TopLevelToken,
  ValueToken,
} from 'liquidjs';
import type { TagStamp } from '../cache/cache.js';
import type { CompilableTag, CompiledNode, LiquidCompiler } from './liquid-compiler.js';

/** Where a rendering finds its FragmentScope: a symbol, out of reach of templates. */
export const FRAGMENTS = Symbol('folio.fragments');

const FRAGMENT_TTL_MS = 3600 * 1000;

interface Fragment {
  html: string;
  stamp: TagStamp;
  settings: ReadonlyMap<string, string>;
}

/** The rendered fragments of a process, checked against the cache's tag versions on every use. */
export class FragmentStore {
  private readonly fragments: LRUCache<string, Fragment>;

  /**
   * `isCurrent`: whether a stamp is still current, known without I/O (Cache.isCurrent); `maxBytes`:
   * the fragments' share of the memory budget.
   */
  constructor(
    private readonly isCurrent: (stamp: TagStamp) => boolean,
    maxBytes: number,
  ) {
    this.fragments = new LRUCache<string, Fragment>({
      maxSize: maxBytes,
      sizeCalculation: (fragment) => fragment.html.length * 2 + 256,
      ttl: FRAGMENT_TTL_MS,
    });
  }

  /**
   * `verified`: stamps already found current during this rendering. The fragments of one page share
   * its stamp (a home page's: every post on it), so the page checks it once, not once per fragment.
   */
  get(key: string, settings: ReadonlyMap<string, string>, verified?: Set<TagStamp>): string | undefined {
    const fragment = this.fragments.get(key);
    if (!fragment) return undefined;
    if (verified?.has(fragment.stamp)) return fragment.settings === settings ? fragment.html : undefined;
    if (fragment.settings !== settings || !this.isCurrent(fragment.stamp)) {
      this.fragments.delete(key);
      return undefined;
    }
    verified?.add(fragment.stamp);
    return fragment.html;
  }

  set(key: string, html: string, stamp: TagStamp, settings: ReadonlyMap<string, string>): void {
    this.fragments.set(key, { html, stamp, settings });
  }
}

/** What one rendering tells its cache blocks. */
export interface FragmentScope {
  store: FragmentStore;
  /** Theme, website, locale and base path of the page. */
  prefix: string;
  /** The page's tags, stamped before its data was read; null when nothing may be stored. */
  stamp: TagStamp | null;
  /** The settings snapshot the page renders under. */
  settings: ReadonlyMap<string, string>;
  /** Stamps found current during this rendering (FragmentStore.get). */
  verified?: Set<TagStamp>;
}

/** A fragment's HTML: from the store while current, else rendered (and stored when the page may be). */
function fragment(scope: FragmentScope, keys: unknown[], render: () => string): string {
  const id = scope.prefix + JSON.stringify(keys);
  let html = scope.store.get(id, scope.settings, (scope.verified ??= new Set()));
  if (html === undefined) {
    html = render();
    if (scope.stamp) scope.store.set(id, html, scope.stamp, scope.settings);
  }
  return html;
}

const scopeOf = (ctx: Context) => (ctx.globals as Record<symbol, FragmentScope | undefined>)[FRAGMENTS];

export class CacheBlockTag extends Tag implements CompilableTag {
  private readonly keys: ValueToken[] = [];
  private readonly templates: Template[] = [];

  constructor(token: TagToken, remainTokens: TopLevelToken[], liquid: Liquid, parser: Parser) {
    super(token, remainTokens, liquid);
    const tokenizer = this.tokenizer;
    while (!tokenizer.end()) {
      const key = tokenizer.readValue();
      if (!key) throw tokenizer.error('cache: expected a key');
      this.keys.push(key);
      tokenizer.skipBlank();
      if (tokenizer.peek() === ',') tokenizer.advance();
      tokenizer.skipBlank();
    }
    if (this.keys.length === 0) throw tokenizer.error("cache: name the fragment: {% cache 'name' %}");
    while (remainTokens.length > 0) {
      const next = remainTokens.shift() as TopLevelToken;
      if (TypeGuards.isTagToken(next) && next.name === 'endcache') return;
      this.templates.push(parser.parseToken(next, remainTokens));
    }
    throw new Error(`tag ${token.getText()} not closed`);
  }

  *render(ctx: Context, emitter: Emitter): Generator<unknown, void, unknown> {
    const renderer = this.liquid.renderer;
    const scope = scopeOf(ctx);
    if (!scope) {
      yield renderer.renderTemplates(this.templates, ctx, emitter);
      return;
    }
    const keys: unknown[] = [];
    for (const key of this.keys) keys.push(yield evalToken(key, ctx));
    emitter.write(
      fragment(scope, keys, () => toValueSync(renderer.renderTemplates(this.templates, ctx)) as string),
    );
  }

  /** The same for compiled templates (liquid-compiler.ts). */
  compile(compiler: LiquidCompiler): CompiledNode {
    const keys = this.keys.map((key) => compiler.token(key as never));
    const body = compiler.list(this.templates);
    return (ctx, emitter) => {
      const scope = scopeOf(ctx);
      if (!scope) {
        body(ctx, emitter);
        return;
      }
      const values = keys.map((key) => key(ctx));
      emitter.write(fragment(scope, values, () => compiler.capture(body, ctx)));
    };
  }
}
