// The public website of every hosted site (spec 4.8). Routes live in routes/, one module per area;
// each registers its pages through the FrontendKit, which gives them the spec's middleware in order
// (`is_installed`, `has_website`, then the locale and the visitor, then `full_page_cache`) and a
// renderer for the website's theme. Localized routes are registered twice: as they are, for the
// default locale, and under a `/{locale}` prefix for every other supported locale (R-F3).
import fastifyStatic from '@fastify/static';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestAsyncHookHandler,
  preHandlerAsyncHookHandler,
} from 'fastify';
import { INSTALLED_SETTING } from '../domain/system/settings.js';
import { localeSettings, prefixLocale } from '../domain/locales.js';
import type { User } from '../domain/people/users.js';
import { translate } from '../domain/translations.js';
import { HEADER_MENU } from '../domain/menus/store.js';
import type { MenuTreeItem, SiteMenus } from '../domain/menus/store.js';
import { TRANSLATABLE_WEBSITE_FIELDS } from '../domain/websites/store.js';
import type { Website } from '../domain/websites/store.js';
import { errorPage } from '../http/html.js';
import { addRoute } from '../http/multipart.js';
import { currentWebsite } from '../http/website-context.js';
import type { FaceServices } from '../services.js';
import { siteContentSecurityPolicy } from './csp.js';
import { SESSION_COOKIE, frontendState, maybeFrontendState, setFrontendState, urlFor } from './context.js';
import type { FrontendState } from './context.js';
import { csrfToken } from '../http/csrf.js';
import type { SeoInput } from './seo.js';
import { FragmentStore } from './fragments.js';
import type { FragmentScope } from './fragments.js';
import { PageCache, baseTags, pageTagsOf } from './page-cache.js';
import { buildSeo, htmlLang, siteOrigin } from './seo.js';
import { accountRoutes } from './routes/accounts/index.js';
import { authoringRoutes } from './routes/authoring.js';
import { clickRoutes } from './routes/clicks.js';
import { commentRoutes } from './routes/comments.js';
import { homeRoutes } from './routes/home.js';
import { linkRoutes } from './routes/links.js';
import { pageRoutes } from './routes/pages.js';
import { previewRoutes } from './routes/previews.js';
import { postRoutes } from './routes/posts.js';
import { sitemapRoutes } from './routes/sitemaps.js';
import { feedLinks, feedRoutes } from './routes/feeds.js';
import { THEMES_DIR, ThemeRenderer } from './themes.js';
import { formatDate, validTimeZone } from './dates.js';
import { postTagTypes, shortNameOf } from './tag-types.js';

export { htmlLang } from './seo.js';

export interface PageOptions {
  /** The spec's route name without the `frontend.` prefix, e.g. `pages.home` (R-F1). */
  name: string;
  /** Served under `/{locale}` too (default true); sitemaps and form posts usually are not. */
  localized?: boolean;
  /** Eligible for the full-page cache (GET/HEAD, 200, no visitor session). Default false. */
  cacheable?: boolean;
  /** Takes a multipart body with a file (the post form's thumbnail); other routes refuse one (415). */
  acceptsFiles?: boolean;
}

export type PageHandler = (
  request: FastifyRequest,
  reply: FastifyReply,
  state: FrontendState,
) => Promise<unknown>;

export interface FrontendKit {
  services: FaceServices;
  themes: ThemeRenderer;
  /** Registers a public route with the frontend middleware. */
  page(
    methods: 'GET' | 'POST' | ('GET' | 'POST')[],
    path: string,
    options: PageOptions,
    handler: PageHandler,
  ): void;
  /** Renders a template of the website's theme with the data every page has (site, menus, locale…). */
  render(
    request: FastifyRequest,
    reply: FastifyReply,
    template: string,
    data?: Record<string, unknown>,
  ): Promise<string>;
  /**
   * The page's words in the visitor's locale, from the website's theme catalogues (the same as the
   * templates' `t` filter): titles, headings and messages a route hands to its template.
   */
  t(request: FastifyRequest, key: string, vars?: Record<string, unknown>): string;
  /**
   * A form posted to a route without a locale prefix (the comment forms) names the locale it was sent
   * from: the answer renders in it when it is supported. Returns the request's state, updated.
   */
  adoptLocale(request: FastifyRequest, locale: unknown): FrontendState;
  /** A date in the visitor's locale and the website's time zone. */
  date(request: FastifyRequest, value: unknown, style?: 'date' | 'datetime'): Promise<string>;
  /** The themed 404 page, status 404. */
  notFound(request: FastifyRequest, reply: FastifyReply): Promise<string>;
  /**
   * Finds the signed-in visitor of a request (the accounts module installs the session lookup);
   * until one is installed, nobody is signed in.
   */
  setVisitorLookup(lookup: (request: FastifyRequest) => Promise<User | null>): void;
  /**
   * Adds data to every rendering of a template from another module (the comments under a post):
   * the provider sees the data so far and returns what to merge in.
   */
  addTemplateData(template: string, provider: TemplateDataProvider): void;
}

export type TemplateDataProvider = (
  request: FastifyRequest,
  reply: FastifyReply,
  state: FrontendState,
  data: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Route name of a public page (R-F1), e.g. `frontend.pages.home`. */
    name?: string;
    /** The page may be served from the full-page cache. */
    cacheable?: boolean;
  }
}

export type FrontendModule = (kit: FrontendKit) => void;

/** The modules that make up the public site, in registration order. */
const MODULES: FrontendModule[] = [
  homeRoutes,
  accountRoutes,
  authoringRoutes,
  postRoutes,
  pageRoutes,
  previewRoutes,
  sitemapRoutes,
  feedRoutes,
  commentRoutes,
  clickRoutes,
  linkRoutes,
];

interface Registered {
  methods: ('GET' | 'POST')[];
  path: string;
  options: PageOptions;
  handler: PageHandler;
}

/** The public site's plugin, and its themed 404 page for unknown paths of a known website. */
export interface FrontendPlugin {
  (app: FastifyInstance): Promise<void>;
  /**
   * Renders the themed 404 of the request's website (status 404), or null when there is no website
   * or the site is not installed; the app's not-found handler calls it.
   */
  notFoundPage(request: FastifyRequest, reply: FastifyReply): Promise<string | null>;
}

export function frontend(services: FaceServices, themes = new ThemeRenderer()): FrontendPlugin {
  const fragments = new FragmentStore(
    (stamp) => services.cachedPages.isCurrent(stamp),
    services.memory.fragments,
  );
  let notFoundPage: FrontendPlugin['notFoundPage'] = async () => null;
  const plugin = async function frontendPlugin(app: FastifyInstance): Promise<void> {
    const registered: Registered[] = [];
    let visitorLookup: (request: FastifyRequest) => Promise<User | null> = async () => null;
    const providers = new Map<string, TemplateDataProvider[]>();

    const kit: FrontendKit = {
      services,
      themes,
      page(methods, path, options, handler) {
        registered.push({ methods: Array.isArray(methods) ? methods : [methods], path, options, handler });
      },
      async render(request, reply, template, data = {}) {
        // Other modules' data for this template (the comments under a post), in registration order.
        for (const provider of providers.get(template) ?? []) {
          data = { ...data, ...(await provider(request, reply, frontendState(request), data)) };
        }
        return renderPage(services, themes, fragments, request, reply, template, data);
      },
      t(request, key, vars) {
        return frontendState(request).t(key, vars);
      },
      adoptLocale(request, wanted) {
        const state = frontendState(request);
        const locale = typeof wanted === 'string' ? wanted : '';
        if (locale === state.locale || !state.locales.supported.includes(locale)) return state;
        const adopted = { ...state, locale, t: themes.translator(state.website.fields.theme ?? '', locale) };
        setFrontendState(request, adopted);
        return adopted;
      },
      async date(request, value, style = 'date') {
        return formatDate(value, frontendState(request).locale, style, await siteTimeZone(services));
      },
      async notFound(request, reply) {
        reply.code(404);
        return renderPage(services, themes, fragments, request, reply, '404', {
          seo: { title: kit.t(request, 'error.not_found.title'), noindex: true },
        });
      },
      setVisitorLookup(lookup) {
        visitorLookup = lookup;
      },
      addTemplateData(template, provider) {
        providers.set(template, [...(providers.get(template) ?? []), provider]);
      },
    };
    for (const module of MODULES) module(kit);

    // Theme assets: /themes/{theme}/assets/…, nothing else of a theme folder. Pages link them with
    // `?v=<hash of the content>` (the `asset` filter, issue 36 #4): the file asked for with its current
    // version is kept a year, immutable; asked for without it (or with an old one), it is revalidated.
    await app.register(async (assets) => {
      assets.addHook('onSend', async (request, reply, payload) => {
        if (reply.statusCode !== 200 && reply.statusCode !== 304) return payload;
        const [pathname = '', search = ''] = request.url.split('?', 2);
        const match = /^\/themes\/([a-z0-9][a-z0-9_-]*)\/assets\/(.+)$/.exec(pathname);
        const version = new URLSearchParams(search).get('v') ?? '';
        let file = '';
        try {
          file = match === null ? '' : decodeURIComponent(match[2]!);
        } catch {
          // A malformed escape names no asset.
        }
        const current = file !== '' && themes.isCurrentAsset(match![1]!, file, version);
        reply.header(
          'cache-control',
          current ? 'public, max-age=31536000, immutable' : 'public, max-age=0, must-revalidate',
        );
        return payload;
      });
      await assets.register(fastifyStatic, {
        root: THEMES_DIR,
        prefix: '/themes/',
        decorateReply: false,
        index: false,
        list: false,
        dotfiles: 'deny',
        allowedPath: (pathName) => /^\/[a-z0-9][a-z0-9_-]*\/assets\//.test(pathName),
        cacheControl: false,
      });
    });

    // is_installed: the first start has run (it creates the first website and the admin).
    const isInstalled: preHandlerAsyncHookHandler = async (request, reply) => {
      if ((await services.settings.get(INSTALLED_SETTING)) !== undefined) return;
      reply.code(503).type('text/html; charset=utf-8');
      return reply.send(
        errorPage(503, 'Not installed', 'Folio is not installed yet: run `folio start` once.'),
      );
    };

    // has_website, then the locale and the visitor: the FrontendState every handler reads.
    const withState = (localized: boolean): preHandlerAsyncHookHandler =>
      async function resolveState(request, reply) {
        const flushCount = services.cachedPages.flushCount;
        const website = await currentWebsite(services, request);
        if (!website) {
          reply.code(404).type('text/html; charset=utf-8');
          return reply.send(
            errorPage(404, 'Website not found', `No website is configured for ${request.hostname}.`),
          );
        }
        const locales = await localeSettings(services.settings);
        let locale = locales.defaultLocale;
        if (localized) {
          const prefixed = prefixLocale((request.params as { locale: string }).locale, locales);
          if (prefixed === null) return reply.callNotFound();
          locale = prefixed;
        }
        const user = await visitorLookup(request);
        setFrontendState(request, {
          website,
          locale,
          locales,
          user,
          flushCount,
          t: themes.translator(website.fields.theme ?? '', locale),
        });
      };

    // A page that depends on a session (the request carries one) or starts or ends one (it sets a
    // cookie) is for this visitor only: no shared cache may keep it, nor the browser's history store.
    app.addHook('onSend', (request, reply, payload, done) => {
      if (
        request.routeOptions.config?.name?.startsWith('frontend.') &&
        (request.cookies[SESSION_COOKIE] !== undefined || reply.getHeader('set-cookie') !== undefined)
      ) {
        reply.header('cache-control', 'private, no-store');
      }
      done(null, payload);
    });

    // full_page_cache: a hit is answered here, before the handler; a miss is stored on send.
    const pageCache = new PageCache(services);
    const fullPageCache: preHandlerAsyncHookHandler = async (request, reply) =>
      pageCache.lookup(request, reply);
    // Ready pages in process memory are answered even before is_installed and has_website.
    const hotPages: onRequestAsyncHookHandler = async (request, reply) => pageCache.serveHot(request, reply);
    app.addHook('onSend', (request, reply, payload, done) => {
      // Cache hits (they set the ETag) and other routes pass straight through.
      if (!request.routeOptions.config?.name?.startsWith('frontend.') || reply.hasHeader('etag')) {
        done(null, payload);
        return;
      }
      pageCache.onSend(request, reply, payload).then(
        (result) => done(null, result),
        (error: Error) => done(error),
      );
    });

    // Unknown paths of a known website: the themed 404, in the locale of the path's prefix.
    notFoundPage = async (request, reply) => {
      if ((await services.settings.get(INSTALLED_SETTING)) === undefined) return null;
      const website = await currentWebsite(services, request);
      if (!website) return null;
      // An old URL (an imported WordPress permalink) answers with a 301 to what it became.
      if (request.method === 'GET' || request.method === 'HEAD') {
        const moved = await services.redirects.resolve(website.id, request.url);
        if (moved) {
          void reply.code(301).header('location', moved).send();
          return null;
        }
      }
      if (!maybeFrontendState(request)) {
        const flushCount = services.cachedPages.flushCount;
        const locales = await localeSettings(services.settings);
        const prefixed = prefixLocale(request.url.split(/[/?]/)[1] ?? '', locales);
        const locale = prefixed ?? locales.defaultLocale;
        setFrontendState(request, {
          website,
          locale,
          locales,
          user: await visitorLookup(request),
          flushCount,
          t: themes.translator(website.fields.theme ?? '', locale),
        });
      }
      return kit.notFound(request, reply);
    };

    for (const route of registered) {
      const variants = route.options.localized === false ? [false] : [false, true];
      for (const prefixed of variants) {
        const url = prefixed ? `/:locale${route.path === '/' ? '' : route.path}` : route.path;
        addRoute(app, services.config, {
          method: route.methods.includes('GET') ? [...route.methods, 'HEAD'] : route.methods,
          url,
          exposeHeadRoute: false,
          config: {
            name: `frontend.${route.options.name}`,
            cacheable: route.options.cacheable === true,
            acceptsFiles: route.options.acceptsFiles === true,
          },
          ...(route.options.cacheable ? { onRequest: hotPages } : {}),
          preHandler: [isInstalled, withState(prefixed), fullPageCache],
          handler: (request, reply) => route.handler(request, reply, frontendState(request)),
        });
      }
    }
  };
  return Object.assign(plugin, {
    notFoundPage: (request: FastifyRequest, reply: FastifyReply) => notFoundPage(request, reply),
  });
}

// A website's fields as templates see them, by locale: website objects are shared while current (the
// host lookup keeps them), so their translated fields are worked out once per object and locale.
const translatedFields = new WeakMap<Website, Map<string, Record<string, unknown>>>();

function siteFields(website: Website, locale: string): Record<string, unknown> {
  let byLocale = translatedFields.get(website);
  if (!byLocale) translatedFields.set(website, (byLocale = new Map<string, Record<string, unknown>>()));
  let fields = byLocale.get(locale);
  if (!fields) {
    fields = {};
    for (const [field, value] of Object.entries(website.fields)) {
      fields[field] = (TRANSLATABLE_WEBSITE_FIELDS as readonly string[]).includes(field)
        ? translate(value ?? '', website.translations, field, locale)
        : value;
    }
    if (byLocale.size < 100) byLocale.set(locale, fields);
  }
  return fields;
}

/**
 * The website's menus with the URL of each tag item (the public path of its tag type, in the page's
 * locale); a tag item whose tag is gone or whose type has no pages is left out.
 */
function siteMenuLinks(menus: SiteMenus, state: FrontendState, tagTypes: Map<string, string>): SiteMenus {
  const link = (items: MenuTreeItem[]): MenuTreeItem[] =>
    items.flatMap((item) => {
      if (item.type !== 'tag')
        return item.children.length ? [{ ...item, children: link(item.children) }] : [item];
      const short = item.tag ? shortNameOf(tagTypes, item.tag.type) : undefined;
      if (!item.tag || !short) return [];
      const url = urlFor(state, `/post/${short}/${encodeURIComponent(item.tag.slug)}`);
      return [{ ...item, url, children: link(item.children) }];
    });
  return Object.fromEntries(Object.entries(menus).map(([handle, items]) => [handle, link(items)]));
}

async function renderPage(
  services: FaceServices,
  themes: ThemeRenderer,
  fragments: FragmentStore,
  request: FastifyRequest,
  reply: FastifyReply,
  template: string,
  data: Record<string, unknown>,
): Promise<string> {
  const state = frontendState(request);
  const { website, locale } = state;
  const theme = themes.resolve(website.fields.theme);
  const site: Record<string, unknown> = {
    id: website.id,
    domain: website.domain,
    theme,
    ...siteFields(website, locale),
  };
  const menusByHandle = siteMenuLinks(
    await services.menuReads.siteMenus(website.id, locale),
    state,
    await postTagTypes(services.settings),
  );
  const seoInput: SeoInput = data.seo ?? {};
  const seo = buildSeo(services, request, state, seoInput, {
    description: typeof site.site_seo_description === 'string' ? site.site_seo_description : '',
    slogan: typeof site.site_slogan === 'string' ? site.site_slogan : '',
    name: typeof site.site_name === 'string' ? site.site_name : '',
  });
  const homeUrl = urlFor(state, '/');
  const html = await themes.render(
    theme,
    template,
    {
      site,
      /** The `header` menu (the one menu themes knew before menus had names). */
      menus: menusByHandle[HEADER_MENU] ?? [],
      /** Every menu of the website by its handle: `menus_by_handle.footer`. */
      menus_by_handle: menusByHandle,
      locale,
      lang: htmlLang(locale),
      /** The website's time zone (setting `timezone`), for `local_date`. */
      time_zone: await siteTimeZone(services),
      user: state.user
        ? {
            id: state.user.id,
            name: state.user.name,
            username: state.user.username,
            // Whether the header offers "Write" (no role, no writing: issue 34 #1).
            can_write: await services.authoring.mayWrite(state.user, website.id),
          }
        : null,
      home_url: homeUrl,
      search_url: urlFor(state, '/post/search'),
      feeds: feedLinks(siteOrigin(services, state), state),
      /** The locale prefix of this page's links (`` or `/fr`): `{{ base_path }}/user/login`. */
      // (homeUrl is `/` or `/fr/`: without its last slash, or links read `/fr//user/login`.)
      base_path: homeUrl.replace(/\/$/, ''),
      // A signed-in visitor's pages are never cached, so they may carry the form token (the header's
      // logout form needs it on every page).
      csrf_token: state.user ? await csrfToken(services, request, reply) : null,
      ...data,
      seo,
    },
    // A preview (`preview_ribbon`: the editor's, or a shared link's draft or autosave) is not what
    // readers see: its blocks are neither answered from the fragment cache nor stored in it (a
    // post's article is keyed by its id alone, so a preview would show, or leave, the wrong text).
    data.preview_ribbon === true
      ? undefined
      : await fragmentScope(services, fragments, request, `${theme} ${website.id} ${locale} ${homeUrl} `),
  );
  reply.type('text/html; charset=utf-8');
  reply.header('content-security-policy', siteContentSecurityPolicy(website));
  return html;
}

/** The IANA time zone the site prints dates in: setting `timezone` when Intl knows it, else UTC. */
export async function siteTimeZone(services: FaceServices): Promise<string> {
  const zone = (await services.settings.get('timezone'))?.trim() ?? '';
  return validTimeZone(zone) ? zone : 'UTC';
}

/**
 * The fragment cache of one rendering (fragments.ts), part of the website's data cache (none when its
 * switch `enabled_data_cache` is off): its fragments may be stored only when no flush happened since
 * the request began, stamped with the tags of everything the page shows.
 */
async function fragmentScope(
  services: FaceServices,
  store: FragmentStore,
  request: FastifyRequest,
  prefix: string,
): Promise<FragmentScope | undefined> {
  const cache = services.cachedPages;
  const state = frontendState(request);
  if (!state.website.enabledDataCache) return undefined;
  const settings = await services.settings.all();
  const tags = [...pageTagsOf(request), ...baseTags(state.website.id)];
  let stamp = state.flushCount === cache.flushCount ? await cache.stamp(tags) : null;
  if (cache.flushCount !== state.flushCount) stamp = null;
  return { store, prefix, stamp, settings };
}
