// Small pieces every list screen shares: the search form, the pager, and a link that moves within
// the panel without reloading.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from './i18n.js';
import { follow } from './nav.js';

/** A search box; `onSearch` gets the trimmed words when the form is sent. */
export function SearchForm({
  id,
  label,
  onSearch,
  initial = '',
}: {
  id: string;
  label: string;
  onSearch: (q: string) => void;
  /** The words searched now (from the address: Back and a bookmark show them). */
  initial?: string;
}) {
  const [typed, setTyped] = useState(initial);
  useEffect(() => setTyped(initial), [initial]);
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

/**
 * What the last action did (a live status, always present so screen readers hear each change) and
 * what went wrong (an alert), as every screen shows them.
 */
export function Notices({ notice, error }: { notice: string; error?: string | null }) {
  return (
    <>
      <p class="notice" role="status">
        {notice}
      </p>
      {error && (
        <p class="notice error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

/** One message of either kind: an alert when it is an error, a status otherwise. */
export function Message({ message }: { message: { kind: string; text: string } | null }) {
  if (!message) return null;
  return (
    <p class={`notice ${message.kind}`} role={message.kind === 'error' ? 'alert' : 'status'}>
      {message.text}
    </p>
  );
}

/** A checkbox with its label around it: `onChange` gets whether it is now checked. */
export function Checkbox({
  checked,
  onChange,
  children,
  ...rest
}: {
  checked: boolean;
  onChange: (checked: boolean) => void;
  children: ComponentChildren;
  /** Extra attributes of the label (`data-…` markers the tests find it by). */
  [attribute: `data-${string}`]: string;
}) {
  return (
    <label class="check" {...rest}>
      <input type="checkbox" checked={checked} onChange={(event) => onChange(event.currentTarget.checked)} />{' '}
      {children}
    </label>
  );
}
