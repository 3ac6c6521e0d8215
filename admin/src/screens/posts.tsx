// Posts: the website's posts the editor may see, by status (with counts), searchable, filtered by a
// category or tag, sorted, page by page; rows chosen with their checkboxes take one action together
// (publish, unpublish, delete, move to another website) through API v2's bulk call, which applies
// each post's own rules and says what happened to each. Titles open the post's editor. The filters
// live in the address (`?status=&q=&tag=&author=&sort=&page=`): a bookmark or a shared link opens the
// same list, Back returns to the one before. Each row's `can` (API v2, the policy's answer) decides
// which rows may be chosen and which actions are offered for them (issue 34 #19). A search lists the
// best match first (API v2's `sort=relevance`, the search index's rank) unless another order is chosen.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { useResource } from '../hooks.js';
import { formatDateTime, t } from '../i18n.js';
import { PanelLink, Pager, SearchForm } from '../widgets.js';
import type { MessageKey } from '../i18n.js';
import { follow, navigate, onNavigate } from '../nav.js';
import { useAbilities, useMe } from '../session.js';

const STATUSES = ['any', 'draft', 'pending', 'published', 'scheduled'] as const;
type Status = (typeof STATUSES)[number];
const SORTS = ['relevance', '-updated_at', '-created_at', '-published_at', 'title'] as const;
type Sort = (typeof SORTS)[number];
type BulkAction = 'publish' | 'unpublish' | 'delete' | 'move';
const PER_PAGE = 20;

interface Row {
  id?: number;
  title?: string;
  status?: string;
  updated_at?: string;
  author?: { id: number; name: string } | null;
  can?: { update: boolean; publish: boolean; delete: boolean };
  /** With a search: the text around the match (escaped, matches in <mark>). */
  highlight?: string | null;
}

/** The list's filters as the address holds them (unknown values: the defaults). */
interface Filters {
  status: Status;
  query: string;
  sort: Sort;
  tag: string;
  author: string;
  page: number;
}
const defaultSort = (query: string): Sort => (query.trim() ? 'relevance' : '-updated_at');

function filtersOf(search: string): Filters {
  const params = new URLSearchParams(search);
  const status = params.get('status') ?? '';
  const sort = params.get('sort') ?? '';
  const tag = params.get('tag') ?? '';
  const author = params.get('author') ?? '';
  const page = Number(params.get('page'));
  const query = (params.get('q') ?? '').slice(0, 100);
  // Best match is the order of a search (and only of a search: without one there is nothing to rank).
  const chosen = (SORTS as readonly string[]).includes(sort) && (sort !== 'relevance' || query.trim());
  return {
    status: (STATUSES as readonly string[]).includes(status) ? (status as Status) : 'any',
    query,
    sort: chosen ? (sort as Sort) : defaultSort(query),
    tag: /^\d{1,15}$/.test(tag) ? tag : '',
    author: /^\d{1,15}$/.test(author) ? author : '',
    page: Number.isInteger(page) && page > 1 ? page : 1,
  };
}
function addressOf(filters: Filters): string {
  const params = new URLSearchParams();
  if (filters.status !== 'any') params.set('status', filters.status);
  if (filters.query) params.set('q', filters.query);
  if (filters.tag) params.set('tag', filters.tag);
  if (filters.author) params.set('author', filters.author);
  if (filters.sort !== defaultSort(filters.query)) params.set('sort', filters.sort);
  if (filters.page > 1) params.set('page', String(filters.page));
  const search = params.toString();
  return search ? `/admin/posts?${search}` : '/admin/posts';
}

/** Which bulk actions a row's `can` allows. */
const allows = (row: Row, action: BulkAction): boolean =>
  action === 'publish' ? !!row.can?.publish : action === 'delete' ? !!row.can?.delete : !!row.can?.update;
interface TagNode {
  id: number;
  name: string;
  type: string;
  children: TagNode[];
}

const flatten = (nodes: TagNode[]): TagNode[] => nodes.flatMap((node) => [node, ...flatten(node.children)]);

export function PostsScreen() {
  const me = useMe();
  const can = useAbilities();
  const [search, setSearch] = useState(location.search);
  useEffect(() => onNavigate(() => setSearch(location.search)), []);
  const filters = filtersOf(search);
  const { status, query, sort, tag, author, page } = filters;
  /** A change of filters is a new address (a step Back returns from); any change but the page's starts at page 1. */
  const show = (changes: Partial<Filters>) => {
    const next = { ...filters, page: 1, ...changes };
    // A new search keeps an order chosen by hand; the default order follows it (best match, or latest).
    if (changes.query !== undefined && changes.sort === undefined) {
      if (filters.sort === defaultSort(filters.query) || (next.sort === 'relevance' && !next.query.trim()))
        next.sort = defaultSort(next.query);
    }
    const address = addressOf(next);
    if (address !== location.pathname + location.search) navigate(address);
  };
  const setPage = (next: number) => show({ page: next });
  // Authors to filter by: the user, and the writers the lists have shown so far.
  const [authors, setAuthors] = useState<Map<number, string>>(() => new Map([[me.id, me.name]]));
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  const [action, setAction] = useState<BulkAction>('publish');
  const [target, setTarget] = useState('');
  const [notice, setNotice] = useState('');
  const [bulkError, setError] = useState<string | null>(null);

  // The categories and tags to filter by, and the websites a post can move to.
  const tags =
    useResource(
      () =>
        Promise.all(
          ['post_category', 'post_tag'].map((type) =>
            api.GET('/api/v2/tags', { params: { query: { filter: { type } } } }),
          ),
        ).then((answers) => ({
          data: answers.flatMap(({ data }) => flatten((data?.data ?? []) as TagNode[])),
        })),
      [],
    ).data ?? [];
  const websites =
    useResource(
      () =>
        api.GET('/api/v2/websites', { params: { query: { per_page: 100 } } }).then(({ data }) => ({
          data: (data?.data ?? []).map((site) => ({
            id: site.id,
            name: site.fields.site_name ?? site.domain,
          })),
        })),
      [],
    ).data ?? [];

  const list = useResource(
    () =>
      api.GET('/api/v2/posts', {
        params: {
          query: {
            page,
            per_page: PER_PAGE,
            // Equal matches: the latest edited first.
            sort: sort === 'relevance' ? 'relevance,-updated_at' : sort,
            include: 'author',
            fields: query
              ? 'id,title,status,updated_at,author,can,highlight'
              : 'id,title,status,updated_at,author,can',
            ...(query ? { q: query } : {}),
            filter: { status, ...(tag ? { tag } : {}), ...(author ? { author: Number(author) } : {}) },
          },
        },
      }),
    [status, query, page, sort, tag, author],
  );
  // Each load shows "Loading" instead of the rows, and starts with none chosen.
  const rows: Row[] | null = list.loading || list.error ? null : (list.data?.data ?? null);
  const pages = list.data?.meta.pagination.total_pages ?? 1;
  const error = bulkError || list.error?.title || null;
  useEffect(() => setChosen(new Set()), [status, query, page, sort, tag, author]);
  useEffect(() => {
    if (!list.data) return;
    const answer = list.data.data;
    setAuthors((known) => {
      const next = new Map(known);
      for (const row of answer) if (row.author) next.set(row.author.id, row.author.name);
      return next.size === known.size ? known : next;
    });
  }, [list.data]);

  // The count of each status: one small request each (the list's total).
  const counting = useResource(
    () =>
      Promise.all(
        STATUSES.map(async (name) => {
          const { data } = await api.GET('/api/v2/posts', {
            params: {
              query: {
                per_page: 1,
                fields: 'id',
                filter: {
                  status: name,
                  ...(tag ? { tag } : {}),
                  ...(author ? { author: Number(author) } : {}),
                },
                ...(query ? { q: query } : {}),
              },
            },
          });
          // A search's count past its cap is a lower bound (total_exact false, issue 40 #2): "1000+".
          const pagination = data?.meta.pagination;
          return [name, `${pagination?.total ?? 0}${pagination?.total_exact === false ? '+' : ''}`] as const;
        }),
      ).then((entries) => ({ data: Object.fromEntries(entries) })),
    [query, tag, author],
  );
  const counts: Partial<Record<Status, string>> = counting.data ?? {};

  const choose = (next: Status) => show({ status: next });
  const toggle = (id: number, on: boolean) =>
    setChosen((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  // Only rows the user may do something to can be chosen; only actions some chosen row allows are offered.
  const ids = (rows ?? []).filter((row) => row.can?.update || row.can?.delete).map((row) => row.id!);
  const chosenRows = (rows ?? []).filter((row) => chosen.has(row.id!));
  const offered = (['publish', 'unpublish', 'delete', 'move'] as const).filter(
    (name) => (name !== 'move' || websites.length > 1) && chosenRows.some((row) => allows(row, name)),
  );
  const chosenAction = offered.includes(action) ? action : (offered[0] ?? action);
  const allChosen = ids.length > 0 && ids.every((id) => chosen.has(id));

  const apply = async (event: Event) => {
    event.preventDefault();
    const action = chosenAction;
    // The rows this action is for (the others chosen are left as they are).
    const targets = chosenRows.filter((row) => allows(row, action)).map((row) => row.id!);
    if (targets.length === 0) return;
    if (action === 'delete' && !confirm(t('posts.bulk.delete.confirm', { n: targets.length }))) return;
    const { data, error: problem } = await api.POST('/api/v2/posts/bulk', {
      body: {
        ids: targets,
        action,
        ...(action === 'move' ? { website_ids: [Number(target)] } : {}),
      },
    });
    if (problem || !data) return setError(problem?.detail ?? problem?.title ?? '');
    const done = data.data.filter((result) => result.outcome === 'done').length;
    const refused = data.data.length - done;
    setNotice(
      refused === 0 ? t('posts.bulk.done', { n: done }) : t('posts.bulk.partly', { n: done, refused }),
    );
    setChosen(new Set());
    list.reload();
    counting.reload();
  };

  return (
    <section aria-labelledby="posts-title">
      <div class="screen-head">
        <h1 id="posts-title">{t('posts.title')}</h1>
        {can.create_posts && (
          <a
            class="button"
            href="/admin/posts/new"
            onClick={(event) => follow(event, '/admin/posts/new', t('app.leave'))}
          >
            {t('posts.new')}
          </a>
        )}
      </div>
      <div class="filters">
        <SearchForm
          id="post-search"
          label={t('posts.search')}
          initial={query}
          onSearch={(words) => show({ query: words })}
        />
        <div class="inline-field">
          <label for="post-tag">{t('posts.filter.tag')}</label>
          <select id="post-tag" value={tag} onChange={(event) => show({ tag: event.currentTarget.value })}>
            <option value="">{t('posts.filter.tag.any')}</option>
            {tags.map((node) => (
              <option key={node.id} value={String(node.id)}>
                {node.name}
              </option>
            ))}
          </select>
        </div>
        <div class="inline-field">
          <label for="post-author">{t('posts.filter.author')}</label>
          <select
            id="post-author"
            value={author}
            onChange={(event) => show({ author: event.currentTarget.value })}
          >
            <option value="">{t('posts.filter.tag.any')}</option>
            {[...authors].map(([id, name]) => (
              <option key={id} value={String(id)}>
                {id === me.id ? t('posts.filter.author.me', { name }) : name}
              </option>
            ))}
          </select>
        </div>
        <div class="inline-field">
          <label for="post-sort">{t('posts.sort')}</label>
          <select
            id="post-sort"
            value={sort}
            onChange={(event) => show({ sort: event.currentTarget.value as Sort })}
          >
            {SORTS.filter((name) => name !== 'relevance' || query.trim()).map((name) => (
              <option key={name} value={name}>
                {t(`posts.sort.${name.replace('-', '')}` as MessageKey)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <nav class="tabs" aria-label={t('posts.column.status')}>
        {STATUSES.map((name) => (
          <button
            key={name}
            type="button"
            class={name === status ? 'tab current' : 'tab'}
            aria-pressed={name === status}
            onClick={() => choose(name)}
          >
            {t(`posts.status.${name}` as MessageKey)} <span class="count">{counts[name] ?? ''}</span>
          </button>
        ))}
      </nav>
      {error && <p role="alert">{t('app.error', { message: error })}</p>}
      <p class="notice" role="status">
        {notice}
      </p>
      {chosen.size > 0 && offered.length > 0 && (
        <form class="bulk" onSubmit={(event) => void apply(event)} aria-label={t('posts.bulk')}>
          <span>{t('posts.bulk.chosen', { n: chosen.size })}</span>
          <label for="bulk-action" class="visually-hidden">
            {t('posts.bulk.action')}
          </label>
          <select
            id="bulk-action"
            value={chosenAction}
            onChange={(event) => setAction(event.currentTarget.value as BulkAction)}
          >
            {offered.map((name) => (
              <option key={name} value={name}>
                {t(`posts.bulk.${name}`)}
              </option>
            ))}
          </select>
          {chosenAction === 'move' && (
            <>
              <label for="bulk-target" class="visually-hidden">
                {t('posts.bulk.target')}
              </label>
              <select
                id="bulk-target"
                value={target}
                required
                onChange={(event) => setTarget(event.currentTarget.value)}
              >
                <option value="">{t('posts.bulk.target')}</option>
                {websites
                  .filter((site) => site.id !== me.website?.id)
                  .map((site) => (
                    <option key={site.id} value={String(site.id)}>
                      {site.name}
                    </option>
                  ))}
              </select>
            </>
          )}
          <button type="submit" class="primary">
            {t('posts.bulk.apply')}
          </button>
        </form>
      )}
      {rows === null ? (
        <p aria-live="polite">{t('app.loading')}</p>
      ) : rows.length === 0 ? (
        <p>{t('posts.empty')}</p>
      ) : (
        <table class="posts">
          <thead>
            <tr>
              <th scope="col" class="pick">
                <input
                  type="checkbox"
                  aria-label={t('posts.bulk.all')}
                  checked={allChosen}
                  onChange={(event) => setChosen(event.currentTarget.checked ? new Set(ids) : new Set())}
                />
              </th>
              <th scope="col">{t('posts.column.title')}</th>
              <th scope="col">{t('posts.column.status')}</th>
              <th scope="col">{t('posts.column.author')}</th>
              <th scope="col">{t('posts.column.updated')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} data-post={row.id}>
                <td class="pick">
                  {(row.can?.update || row.can?.delete) && (
                    <input
                      type="checkbox"
                      aria-label={t('posts.bulk.one', { title: row.title || t('posts.untitled') })}
                      checked={chosen.has(row.id!)}
                      onChange={(event) => toggle(row.id!, event.currentTarget.checked)}
                    />
                  )}
                </td>
                <td data-label={t('posts.column.title')}>
                  <PanelLink to={`/admin/posts/${row.id}`}>{row.title || t('posts.untitled')}</PanelLink>
                  {row.highlight ? (
                    <p class="search-highlight">
                      {highlightParts(row.highlight).map((part, i) =>
                        part.mark ? <mark key={i}>{part.text}</mark> : part.text,
                      )}
                    </p>
                  ) : null}
                </td>
                <td data-label={t('posts.column.status')}>
                  <span class={`status status-${row.status}`}>
                    {t(`post.status.${row.status}` as MessageKey)}
                  </span>
                </td>
                <td data-label={t('posts.column.author')}>{row.author?.name ?? ''}</td>
                <td data-label={t('posts.column.updated')}>
                  <time dateTime={row.updated_at}>{formatDateTime(row.updated_at)}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager page={page} pages={pages} onPage={setPage} />
    </section>
  );
}

/**
 * The parts of a search highlight (API v2's `highlight`: escaped text, matches in <mark>) as text and
 * marked text, for Preact to render as text nodes: no HTML from the server is put in the page as such.
 */
export function highlightParts(html: string): Array<{ text: string; mark: boolean }> {
  const decode = (text: string) =>
    text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
  return html
    .split(/(<mark>[\s\S]*?<\/mark>)/)
    .filter((part) => part !== '')
    .map((part) =>
      part.startsWith('<mark>')
        ? { text: decode(part.slice(6, -7)), mark: true }
        : { text: decode(part), mark: false },
    );
}
