// The admin panel (issue 24): a single-page app over API v2, signed in with the site's session.
// Screens: Posts (list and editor), Reviews, Comments. Everything it does is an API v2 call a script could make too.
import { render } from 'preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, csrfToken } from './api.js';
import { LANGUAGES, currentLanguage, t, useLocale } from './i18n.js';
import type { Language } from './i18n.js';
import type { MessageKey } from './i18n.js';
import { follow, mayLeave, onNavigate, setLeaveGuard } from './nav.js';
import { CommentsScreen } from './screens/comments.js';
import { DashboardScreen } from './screens/dashboard.js';
import { LinksScreen } from './screens/links.js';
import { MediaScreen } from './screens/media.js';
import { MenusScreen } from './screens/menus.js';
import { PeopleScreen } from './screens/people.js';
import type * as PageEditorModule from './screens/page-editor.js';
import type * as PostEditorModule from './screens/post-editor/editor.js';
import { PagesScreen } from './screens/pages.js';
import { PostsScreen } from './screens/posts.js';
import { ReviewsScreen } from './screens/reviews.js';
import { SystemScreen } from './screens/system.js';
import { WebhooksScreen } from './screens/webhooks.js';
import { TransfersScreen } from './screens/transfers.js';
import { TagsScreen } from './screens/tags.js';
import { WebsiteScreen } from './screens/website.js';
import { ME_CHANGED, SessionContext } from './session.js';
import type { Abilities, Me } from './session.js';
// ProseMirror's own rules (TipTap would inject them as an inline <style>, which the CSP forbids).
import 'prosemirror-view/style/prosemirror.css';
import 'prosemirror-gapcursor/style/gapcursor.css';
// uPlot's rules (1.6 kB) go in the panel's stylesheet: the manifest names one stylesheet, and the
// chart's code is the lazily loaded part.
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import './styles-sites.css';
import './styles-community.css';

/**
 * The editors (TipTap and ProseMirror, most of the panel's code) load when first opened, so the lists
 * load without them.
 */
type EditorsModule = typeof PostEditorModule & typeof PageEditorModule;
let editorsModule: Promise<EditorsModule> | null = null;

function LazyEditor({ kind, id }: { kind: 'post' | 'page'; id: number | null }) {
  const [module, setModule] = useState<EditorsModule | null>(null);
  useEffect(() => {
    editorsModule ??= Promise.all([
      import('./screens/post-editor/editor.js'),
      import('./screens/page-editor.js'),
    ]).then(([posts, pages]) => ({ ...posts, ...pages }));
    void editorsModule.then(setModule);
  }, []);
  if (!module) return <p aria-live="polite">{t('app.loading')}</p>;
  return kind === 'post' ? <module.PostEditor id={id} /> : <module.PageEditor id={id} />;
}

interface Route {
  /** The navigation entry it belongs to. */
  section: string;
  view: () => ComponentChildren;
  /** Whether the user's abilities let them use the screen (absent: its section's). */
  allowed?: (can: Abilities) => boolean;
}

/** The screen of an address (`/admin`, and any address it does not know, is the dashboard). */
function routeOf(path: string): Route {
  const editing = /^\/admin\/(posts|pages)\/(new|\d{1,15})\/?$/.exec(path);
  if (editing) {
    const kind = editing[1] === 'posts' ? 'post' : 'page';
    const id = editing[2] === 'new' ? null : Number(editing[2]);
    return {
      section: `/admin/${editing[1]}`,
      view: () => <LazyEditor key={`${kind}:${id ?? 'new'}`} kind={kind} id={id} />,
      // A new post needs the right to write one; an existing one says itself what may be done to it.
      ...(kind === 'post' && id === null ? { allowed: (can: Abilities) => can.create_posts } : {}),
    };
  }
  if (path.startsWith('/admin/pages')) return { section: '/admin/pages', view: () => <PagesScreen /> };
  if (path.startsWith('/admin/comments'))
    return { section: '/admin/comments', view: () => <CommentsScreen /> };
  if (path.startsWith('/admin/media')) return { section: '/admin/media', view: () => <MediaScreen /> };
  if (path.startsWith('/admin/menus')) return { section: '/admin/menus', view: () => <MenusScreen /> };
  if (path.startsWith('/admin/people')) return { section: '/admin/people', view: () => <PeopleScreen /> };
  if (path.startsWith('/admin/website')) return { section: '/admin/website', view: () => <WebsiteScreen /> };
  if (path.startsWith('/admin/links')) return { section: '/admin/links', view: () => <LinksScreen /> };
  if (path.startsWith('/admin/webhooks'))
    return { section: '/admin/webhooks', view: () => <WebhooksScreen /> };
  if (path.startsWith('/admin/transfers'))
    return { section: '/admin/transfers', view: () => <TransfersScreen /> };
  if (path.startsWith('/admin/system')) return { section: '/admin/system', view: () => <SystemScreen /> };
  if (path.startsWith('/admin/tags')) return { section: '/admin/tags', view: () => <TagsScreen /> };
  if (path.startsWith('/admin/reviews')) return { section: '/admin/reviews', view: () => <ReviewsScreen /> };
  if (/^\/admin\/posts\/?$/.test(path)) return { section: '/admin/posts', view: () => <PostsScreen /> };
  return { section: '/admin', view: () => <DashboardScreen /> };
}

/** The navigation, with the entries the user's abilities on this website make useful. */
const SECTIONS: Array<{ path: string; label: MessageKey; shown: (can: Abilities) => boolean }> = [
  { path: '/admin', label: 'nav.dashboard', shown: () => true },
  { path: '/admin/posts', label: 'nav.posts', shown: () => true },
  { path: '/admin/pages', label: 'nav.pages', shown: (can) => can.manage_pages },
  { path: '/admin/media', label: 'nav.media', shown: (can) => can.upload_media },
  { path: '/admin/reviews', label: 'nav.reviews', shown: (can) => can.review_posts },
  { path: '/admin/comments', label: 'nav.comments', shown: (can) => can.moderate_comments },
  { path: '/admin/tags', label: 'nav.tags', shown: (can) => can.manage_tags },
  { path: '/admin/links', label: 'nav.links', shown: (can) => can.manage_pages },
  { path: '/admin/menus', label: 'nav.menus', shown: (can) => can.manage_menus },
  { path: '/admin/website', label: 'nav.website', shown: (can) => can.manage_website },
  { path: '/admin/people', label: 'nav.people', shown: (can) => can.manage_members || can.read_audit },
  { path: '/admin/webhooks', label: 'nav.webhooks', shown: (can) => can.manage_members },
  { path: '/admin/transfers', label: 'nav.transfers', shown: (can) => can.manage_website },
  { path: '/admin/system', label: 'nav.system', shown: (can) => can.manage_website },
];

/** Whether the user may use a screen: its own rule, else its navigation entry's. */
function allowedOn(route: Route, can: Abilities): boolean {
  if (route.allowed) return route.allowed(can);
  return SECTIONS.find((entry) => entry.path === route.section)?.shown(can) ?? true;
}

/** A screen the user's role does not open: one clear state, never a frame with failing parts. */
function NoAccess() {
  useEffect(() => {
    document.getElementById('no-access-title')?.focus();
  }, []);
  return (
    <section class="no-access" aria-labelledby="no-access-title">
      <h1 id="no-access-title" tabIndex={-1}>
        {t('app.noaccess.title')}
      </h1>
      <p>{t('app.noaccess')}</p>
      <a href="/admin" onClick={(event) => follow(event, '/admin', t('app.leave'))}>
        {t('app.noaccess.back')}
      </a>
    </section>
  );
}

/** Signs out through the site's own logout form (with the session's CSRF token). */
async function signOut(): Promise<void> {
  if (!mayLeave(t('app.leave'))) return;
  const form = document.createElement('form');
  form.method = 'post';
  form.action = '/user/logout';
  const token = document.createElement('input');
  token.type = 'hidden';
  token.name = '_token';
  token.value = await csrfToken();
  form.append(token);
  document.body.append(form);
  setLeaveGuard(null);
  form.submit();
}

/**
 * The navigation: a row of links, and on a phone a "Menu" button that opens them (aria-expanded;
 * Escape or a choice closes it), so a screen's own buttons are near the top.
 */
function Navigation({ can, section }: { can: Abilities | undefined; section: string }) {
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      toggle.current?.focus();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [open]);
  useEffect(() => setOpen(false), [section]);
  return (
    <>
      <button
        ref={toggle}
        type="button"
        class="nav-toggle"
        aria-expanded={open}
        aria-controls="admin-nav"
        onClick={() => setOpen(!open)}
      >
        {t('app.menu')}
      </button>
      <nav id="admin-nav" aria-label={t('app.nav')} class={open ? 'open' : undefined}>
        {SECTIONS.filter((entry) => !can || entry.shown(can)).map((entry) => (
          <a
            key={entry.path}
            href={entry.path}
            aria-current={entry.path === section ? 'page' : undefined}
            onClick={(event) => {
              setOpen(false);
              follow(event, entry.path, t('app.leave'));
            }}
          >
            {t(entry.label)}
          </a>
        ))}
        <a href="/">{t('app.site')}</a>
      </nav>
    </>
  );
}

/**
 * The website the panel works on is the one of the domain it is opened on; the switcher opens the
 * panel on another website's domain (sessions are per domain: the user signs in there once).
 */
function SiteSwitcher({ me }: { me: Me }) {
  const [sites, setSites] = useState<Array<{ id: number; name: string; domain: string }>>(() =>
    me.roles.map((role) => ({ id: role.website_id, name: role.name, domain: role.domain })),
  );
  useEffect(() => {
    // Administrators and site managers reach websites beyond their roles.
    void api.GET('/api/v2/websites', { params: { query: { per_page: 100 } } }).then(({ data }) => {
      const managed = (data?.data ?? []).map((site) => ({
        id: site.id,
        name: site.fields.site_name ?? site.domain,
        domain: site.domain,
      }));
      setSites((current) => [
        ...current,
        ...managed.filter((site) => !current.some((known) => known.id === site.id)),
      ]);
    });
  }, []);
  const here = me.website;
  if (!here) return <strong class="brand">{t('app.title')}</strong>;
  const others = sites.filter((site) => site.id !== here.id);
  if (others.length === 0) return <strong class="brand">{here.name}</strong>;
  return (
    <span class="brand">
      <label for="site-switcher" class="visually-hidden">
        {t('app.website')}
      </label>
      <select
        id="site-switcher"
        value={String(here.id)}
        onChange={(event) => {
          const site = sites.find((entry) => String(entry.id) === event.currentTarget.value);
          if (!site) return;
          const port = location.port ? `:${location.port}` : '';
          location.href = `${location.protocol}//${site.domain}${port}/admin`;
        }}
      >
        <option value={String(here.id)}>{here.name}</option>
        {others.map((site) => (
          <option key={site.id} value={String(site.id)}>
            {site.name} ({site.domain})
          </option>
        ))}
      </select>
    </span>
  );
}

/** A user with no role on this website: nothing of it to show, and where they can go instead. */
function NoRole({ me }: { me: Me }) {
  const port = location.port ? `:${location.port}` : '';
  return (
    <section class="signin" aria-labelledby="no-role-title">
      <h1 id="no-role-title">{t('app.norole.title', { name: me.website?.name ?? '' })}</h1>
      <p>{t('app.norole')}</p>
      {me.roles.length > 0 && <p>{t('app.norole.elsewhere')}</p>}
      {me.roles.length > 0 && (
        <ul>
          {me.roles.map((role) => (
            <li key={role.website_id}>
              <a href={`${location.protocol}//${role.domain}${port}/admin`}>
                {role.name} ({role.domain})
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * The panel's language, stored on the account (PUT /api/v2/me/language): every screen and the mails
 * to this person follow it. The page reloads in the chosen language.
 */
function LanguageMenu() {
  const [saving, setSaving] = useState(false);
  const choose = async (language: Language) => {
    setSaving(true);
    const { error } = await api.PUT('/api/v2/me/language', { body: { language } });
    if (error) {
      setSaving(false);
      return;
    }
    useLocale(language);
    location.reload();
  };
  return (
    <label class="language">
      <span class="visually-hidden">{t('app.language')}</span>
      <select
        value={currentLanguage()}
        disabled={saving}
        aria-label={t('app.language')}
        onChange={(event) => void choose((event.target as HTMLSelectElement).value as Language)}
      >
        {LANGUAGES.map((language) => (
          <option key={language.code} value={language.code} lang={language.code.replace('_', '-')}>
            {language.name}
          </option>
        ))}
      </select>
    </label>
  );
}

function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const load = () =>
      void api.GET('/api/v2/me').then(({ data }) => {
        // The account's language when it chose one (issue 41), else the browser's (set below).
        if (data?.data.language) useLocale(data.data.language);
        document.title = t('app.title');
        setMe(data ? data.data : null);
      });
    load();
    // A screen that changed what /me says (the website's name) asks for it again.
    addEventListener(ME_CHANGED, load);
    // A screen's filters live in the address's query (posts): the screen is the path's.
    const stop = onNavigate((next) => setPath(next.split('?')[0]));
    return () => {
      removeEventListener(ME_CHANGED, load);
      stop();
    };
  }, []);

  if (me === undefined) return <p class="loading">{t('app.loading')}</p>;
  if (me === null) {
    return (
      <main id="content" class="signin">
        <h1>{t('app.title')}</h1>
        <p>{t('app.signin')}</p>
        <a class="button" href={`/user/login?redirect=${encodeURIComponent(location.pathname)}`}>
          {t('app.signin.link')}
        </a>
      </main>
    );
  }
  const route = routeOf(path);
  const can = me.website?.can;
  return (
    <SessionContext.Provider value={me}>
      <a class="skip" href="#content">
        {t('app.skip')}
      </a>
      <header class="bar">
        <SiteSwitcher me={me} />
        <Navigation can={can} section={route.section} />
        <span class="who">{me.name}</span>
        <LanguageMenu />
        <button type="button" class="sign-out" onClick={() => void signOut()}>
          {t('app.signout')}
        </button>
      </header>
      <main id="content">
        {can && !Object.values(can).some(Boolean) ? (
          <NoRole me={me} />
        ) : can && !allowedOn(route, can) ? (
          <NoAccess />
        ) : (
          route.view()
        )}
      </main>
    </SessionContext.Provider>
  );
}

useLocale(navigator.language);
document.title = t('app.title');
render(<App />, document.getElementById('app')!);
