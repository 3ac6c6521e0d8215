// The admin panel (issue 24): a single-page app over API v2, signed in with the site's session.
// Screens so far: Posts. Everything it does is an API v2 call a script could make too.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { t, useLocale } from './i18n.js';
import { CommentsScreen } from './screens/comments.js';
import { PostsScreen } from './screens/posts.js';
import './styles.css';

interface Me {
  name: string;
  email: string;
}

const SCREENS = [
  { path: '/admin/posts', label: 'nav.posts', screen: PostsScreen },
  { path: '/admin/comments', label: 'nav.comments', screen: CommentsScreen },
] as const;

/** The screen of a path (`/admin` is the posts). */
const screenOf = (path: string) => SCREENS.find((entry) => path.startsWith(entry.path)) ?? SCREENS[0];

function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    void api.GET('/api/v2/me').then(({ data }) => setMe(data ? data.data : null));
    // Moving between screens changes the address without reloading; Back and Forward follow.
    const follow = () => setPath(location.pathname);
    addEventListener('popstate', follow);
    return () => removeEventListener('popstate', follow);
  }, []);
  const go = (event: MouseEvent, to: string) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    history.pushState(null, '', to);
    setPath(to);
  };
  const current = screenOf(path);
  const Screen = current.screen;

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
  return (
    <>
      <a class="skip" href="#content">
        {t('app.skip')}
      </a>
      <header class="bar">
        <strong class="brand">{t('app.title')}</strong>
        <nav aria-label="Admin">
          {SCREENS.map((entry) => (
            <a
              key={entry.path}
              href={entry.path}
              aria-current={entry === current ? 'page' : undefined}
              onClick={(event) => go(event, entry.path)}
            >
              {t(entry.label)}
            </a>
          ))}
          <a href="/">{t('app.site')}</a>
        </nav>
        <span class="who">{me.name}</span>
      </header>
      <main id="content">
        <Screen />
      </main>
    </>
  );
}

useLocale(navigator.language);
document.title = t('app.title');
render(<App />, document.getElementById('app')!);
