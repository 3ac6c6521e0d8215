// The admin panel (issue 24): a single-page app over API v2, signed in with the site's session.
// Screens so far: Posts. Everything it does is an API v2 call a script could make too.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { t, useLocale } from './i18n.js';
import { PostsScreen } from './screens/posts.js';
import './styles.css';

interface Me {
  name: string;
  email: string;
}

function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  useEffect(() => {
    void api.GET('/api/v2/me').then(({ data }) => setMe(data ? data.data : null));
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
  return (
    <>
      <a class="skip" href="#content">
        {t('app.skip')}
      </a>
      <header class="bar">
        <strong class="brand">{t('app.title')}</strong>
        <nav aria-label="Admin">
          <a href="/admin/posts" aria-current="page">
            {t('nav.posts')}
          </a>
          <a href="/">{t('app.site')}</a>
        </nav>
        <span class="who">{me.name}</span>
      </header>
      <main id="content">
        <PostsScreen />
      </main>
    </>
  );
}

useLocale(navigator.language);
document.title = t('app.title');
render(<App />, document.getElementById('app')!);
