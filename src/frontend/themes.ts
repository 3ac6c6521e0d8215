// Theme rendering with LiquidJS. A website's `theme` names a folder under themes/ holding Liquid
// templates (`*.liquid`), `partials/` and public `assets/`. Templates missing from a theme fall back
// to the default theme's. Every output is HTML-escaped unless a template asks for `| raw` (post
// content, head_code and body_code are the only raw outputs of the default theme), and a theme can
// run no code of its own: Liquid is sandboxed.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Liquid } from 'liquidjs';
import type { Context, FS } from 'liquidjs';
import { PAGE_LOCALE, PAGE_TIME_ZONE, formatDate } from './dates.js';
import { formatNumber } from '../lib/messages.js';
import { ThemeTranslations } from './theme-i18n.js';
import type { Translate } from './theme-i18n.js';
import { memoized } from '../lib/memo.js';
import { CacheBlockTag, FRAGMENTS } from './fragments.js';
import type { FragmentScope } from './fragments.js';
import { LiquidCompiler } from './liquid-compiler.js';

/** A compiled template rendered other than LiquidJS would have (only checked with crossCheck). */
export class CompiledMismatchError extends Error {
  constructor(template: string, expected: string, actual: string) {
    let at = 0;
    while (at < expected.length && expected[at] === actual[at]) at++;
    super(
      `compiled template ${template} differs from LiquidJS at ${at}: ` +
        `expected ${JSON.stringify(expected.slice(Math.max(0, at - 60), at + 60))}, ` +
        `got ${JSON.stringify(actual.slice(Math.max(0, at - 60), at + 60))}`,
    );
  }
}

export const DEFAULT_THEME = 'default';

/** themes/ of the installation: one level above src/ (development) and dist/ (production) alike. */
export const THEMES_DIR = fileURLToPath(new URL('../../themes', import.meta.url));

const THEME_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export interface ThemeOptions {
  /**
   * Remember which theme files exist (and that they lie inside the theme folder) for the life of the
   * process. LiquidJS looks every template, layout and partial up again on each render (a stat and two
   * realpath calls per candidate folder), which costs more than rendering a page. On by default in
   * production, where themes change only with a deployment (a restart); off in development, where
   * templates are edited live.
   */
  cacheLookups?: boolean;
  /**
   * Render through compiled templates (liquid-compiler.ts) rather than LiquidJS's interpreter: the
   * same output, several times faster. On by default.
   */
  compiled?: boolean;
  /**
   * Render every page both ways, without fragments, and fail when they differ (tests turn it on with
   * FOLIO_THEME_CROSSCHECK=1, so every page the suite renders checks the compiler).
   */
  crossCheck?: boolean;
}

/** Liquid's file access with memoized lookups (see ThemeOptions.cacheLookups). */
function memoizedFs(): FS {
  const exists = new Map<string, boolean>();
  const contained = new Map<string, boolean>();
  const existsSync = (file: string) => {
    let found = exists.get(file);
    if (found === undefined) exists.set(file, (found = fs.existsSync(file)));
    return found;
  };
  const containsSync = (root: string, file: string) => {
    const key = `${root}\0${file}`;
    let inside = contained.get(key);
    if (inside === undefined) {
      try {
        const realRoot = fs.realpathSync(root);
        inside = fs
          .realpathSync(file)
          .startsWith(realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep);
      } catch {
        inside = false;
      }
      contained.set(key, inside);
    }
    return inside;
  };
  return {
    existsSync,
    exists: async (file) => existsSync(file),
    readFileSync: (file) => fs.readFileSync(file, 'utf8'),
    readFile: (file) => fs.promises.readFile(file, 'utf8'),
    resolve: (dir, file, ext) => path.resolve(dir, path.extname(file) ? file : file + ext),
    containsSync,
    contains: async (root, file) => containsSync(root, file),
    dirname: (file) => path.dirname(file),
    sep: path.sep,
  };
}

export class ThemeRenderer {
  private readonly engines = new Map<string, Liquid>();
  /** Each asset's version (a hash of its content) and the file's size and mtime it was made from. */
  private readonly versions = new Map<string, { stamp: string; version: string }>();
  private readonly assetUrls = new Map<string, string>();
  private readonly files: FS | undefined;
  private readonly exists: (file: string) => boolean;
  private readonly compilers = new Map<Liquid, LiquidCompiler | null>();
  private readonly compiled: boolean;
  private readonly crossCheck: boolean;
  /** The themes' catalogues (locales/{locale}.json): the `t` filter and the pages' own words. */
  readonly translations: ThemeTranslations;

  constructor(
    private readonly root: string = THEMES_DIR,
    options: ThemeOptions = {},
  ) {
    this.files = (options.cacheLookups ?? process.env.NODE_ENV === 'production') ? memoizedFs() : undefined;
    this.exists = this.files ? this.files.existsSync : fs.existsSync;
    this.compiled = options.compiled ?? true;
    this.crossCheck = options.crossCheck ?? process.env.FOLIO_THEME_CROSSCHECK === '1';
    this.translations = new ThemeTranslations(this.root, this.files !== undefined);
  }

  /** A theme's words in a locale (the same catalogues as the `t` filter): for the pages' own text. */
  translator(theme: string, locale: string): Translate {
    return this.translations.translator(this.resolve(theme), locale);
  }

  /** The theme that will render: the named one when it exists, else the default theme. */
  resolve(theme: string | null | undefined): string {
    const name = (theme ?? '').trim().toLowerCase();
    if (name !== DEFAULT_THEME && THEME_NAME.test(name) && this.exists(path.join(this.root, name)))
      return name;
    return DEFAULT_THEME;
  }

  /** Whether the theme (or the default theme) has a template of this name, e.g. a page's custom view. */
  has(theme: string, template: string): boolean {
    if (!/^[a-z0-9][a-z0-9/_-]*$/i.test(template) || template.includes('..')) return false;
    const resolved = this.resolve(theme);
    return [resolved, DEFAULT_THEME].some((name) =>
      this.exists(path.join(this.root, name, `${template}.liquid`)),
    );
  }

  /**
   * Renders synchronously: every value a template sees is computed before (data providers are async),
   * and LiquidJS's async mode costs about a third more per page for nothing (each tag goes through
   * promises). Parsed templates are cached, so files are read once per engine. With a fragment scope,
   * `{% cache %}` blocks are answered from it (fragments.ts); without one they always render.
   */
  async render(
    theme: string,
    template: string,
    data: Record<string, unknown>,
    fragments?: FragmentScope,
  ): Promise<string> {
    const engine = this.engine(this.resolve(theme));
    // The page's locale and time zone as globals: partials rendered with `render` see globals, not the
    // page's data.
    const locale = {
      [PAGE_LOCALE]: typeof data.locale === 'string' ? data.locale : '',
      [PAGE_TIME_ZONE]: typeof data.time_zone === 'string' ? data.time_zone : '',
    };
    const plain = { ...engine.options.globals, ...locale };
    const globals = fragments ? { [FRAGMENTS]: fragments, ...locale } : plain;
    const compiler = this.compiled ? this.compiler(engine) : null;
    if (!compiler) return engine.renderFileSync(template, data, { globals }) as string;
    if (this.crossCheck) {
      const expected = engine.renderFileSync(template, data, { globals: plain }) as string;
      const actual = compiler.renderFile(template, data, plain);
      if (actual !== expected) throw new CompiledMismatchError(template, expected, actual);
    }
    return compiler.renderFile(template, data, globals);
  }

  /** What the theme's compiled templates handed to LiquidJS so far (tests expect nothing). */
  fallbacks(theme: string): readonly string[] {
    return this.compiler(this.engine(this.resolve(theme)))?.fallbacks ?? ['no compiler for this engine'];
  }

  private compiler(engine: Liquid): LiquidCompiler | null {
    let compiler = this.compilers.get(engine);
    if (compiler === undefined) {
      compiler = LiquidCompiler.supports(engine) ? new LiquidCompiler(engine) : null;
      this.compilers.set(engine, compiler);
    }
    return compiler;
  }

  /**
   * URL of a theme asset, `/themes/{theme}/assets/{file}?v={version}`: from the theme when it has the
   * file, else from the default theme; the version is a hash of the file's content (issue 36 #4), so
   * the URL names one content and is cached immutable (see isCurrentAsset). '' when there is no such
   * asset.
   */
  assetUrl(theme: string, file: string): string {
    if (!this.files) return this.findAsset(theme, file);
    // With lookups remembered (production), so are asset URLs: files change only with a deployment.
    // Bounded: a theme may pass data to `asset`.
    return memoized(this.assetUrls, `${theme}\0${file}`, 1000, () => this.findAsset(theme, file));
  }

  private findAsset(theme: string, file: string): string {
    const clean = file.replace(/^\/+/, '');
    if (!/^[a-z0-9][a-z0-9/._-]*$/i.test(clean) || clean.includes('..')) return '';
    const owner = [theme, DEFAULT_THEME].find((name) =>
      this.exists(path.join(this.root, name, 'assets', clean)),
    );
    if (!owner) return '';
    const full = path.join(this.root, owner, 'assets', clean);
    const stat = fs.statSync(full);
    const stamp = `${stat.mtimeMs}:${stat.size}`;
    let known = this.versions.get(full);
    if (known?.stamp !== stamp) {
      const version = createHash('sha256').update(fs.readFileSync(full)).digest('hex').slice(0, 16);
      known = { stamp, version };
      this.versions.set(full, known);
    }
    return `/themes/${owner}/assets/${clean}?v=${known.version}`;
  }

  /**
   * Whether `/themes/{theme}/assets/{file}?v={version}` names the asset's current content (then it may
   * be cached for good): the theme's own file (not the default theme's stand-in) at that version.
   */
  isCurrentAsset(theme: string, file: string, version: string): boolean {
    if (version === '' || !THEME_NAME.test(theme)) return false;
    return this.assetUrl(theme, file) === `/themes/${theme}/assets/${file}?v=${version}`;
  }

  private engine(theme: string): Liquid {
    let engine = this.engines.get(theme);
    if (!engine) {
      const dirs = [...new Set([theme, DEFAULT_THEME])].map((name) => path.join(this.root, name));
      engine = new Liquid({
        root: dirs,
        partials: dirs.map((dir) => path.join(dir, 'partials')),
        layouts: dirs,
        extname: '.liquid',
        cache: true,
        outputEscape: 'escape',
        strictFilters: true,
        ownPropertyOnly: true,
        ...(this.files ? { fs: this.files } : {}),
      });
      engine.registerFilter('asset', (file: unknown) => this.assetUrl(theme, String(file)));
      // `{{ post.published_at | local_date }}`: the page's locale's long date (`'datetime'`: with the time).
      engine.registerFilter(
        'local_date',
        function (this: { context: Context }, value: unknown, style?: unknown) {
          const globals = this.context.globals as Record<symbol, unknown>;
          const page = globals[PAGE_LOCALE];
          const zone = globals[PAGE_TIME_ZONE];
          return formatDate(
            value,
            typeof page === 'string' ? page : '',
            style === 'datetime' ? 'datetime' : 'date',
            typeof zone === 'string' ? zone : null,
          );
        },
      );
      // `{{ 'comments.count' | t: count: comments.count }}`: the theme's words in the page's locale
      // (theme-i18n.ts); keyword arguments are the message's variables. Escaped like every output.
      const translations = this.translations;
      engine.registerFilter('t', function (this: { context: Context }, key: unknown, ...args: unknown[]) {
        const page = (this.context.globals as Record<symbol, unknown>)[PAGE_LOCALE];
        const vars: Record<string, unknown> = {};
        for (const arg of args) if (Array.isArray(arg) && typeof arg[0] === 'string') vars[arg[0]] = arg[1];
        return translations.translator(theme, typeof page === 'string' ? page : 'en')(String(key), vars);
      });
      // `{{ post.views | number }}`: digits and grouping of the page's locale.
      engine.registerFilter('number', function (this: { context: Context }, value: unknown) {
        const page = (this.context.globals as Record<symbol, unknown>)[PAGE_LOCALE];
        return formatNumber(value, typeof page === 'string' && page !== '' ? page : 'en');
      });
      engine.registerTag('cache', CacheBlockTag);
      this.engines.set(theme, engine);
    }
    return engine;
  }
}
