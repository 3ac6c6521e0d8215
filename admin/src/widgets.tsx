// Small pieces every list screen shares: the search form, the pager, and a link that moves within
// the panel without reloading.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { t } from './i18n.js';
import { follow } from './nav.js';

/** A search box; `onSearch` gets the trimmed words when the form is sent. */
export function SearchForm({
  id,
  label,
  onSearch,
}: {
  id: string;
  label: string;
  onSearch: (q: string) => void;
}) {
  const [typed, setTyped] = useState('');
  return (
    <form
      class="search"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        onSearch(typed.trim());
      }}
    >
      <label for={id}>{label}</label>
      <input id={id} type="search" value={typed} onInput={(event) => setTyped(event.currentTarget.value)} />
      <button type="submit">{t('posts.search.button')}</button>
    </form>
  );
}

/** Previous / next with "page N of M"; nothing when there is one page. */
export function Pager({
  page,
  pages,
  onPage,
}: {
  page: number;
  pages: number;
  onPage: (page: number) => void;
}) {
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label={t('posts.page', { page, pages })}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('posts.previous')}
      </button>
      <span>{t('posts.page', { page, pages })}</span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        {t('posts.next')}
      </button>
    </nav>
  );
}

/** A link to a screen of the panel (asks first when the current screen has unsaved work). */
export function PanelLink({
  to,
  class: className,
  children,
}: {
  to: string;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <a class={className} href={to} onClick={(event) => follow(event, to, t('app.leave'))}>
      {children}
    </a>
  );
}
