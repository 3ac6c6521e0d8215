// The links directory: the website's links with their categories and outbound clicks, page by page;
// add one (name, address, description, categories by name: missing ones are created), or delete one.
import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../clients/typescript/schema.js';
import { api } from '../api.js';
import { t } from '../i18n.js';
import { Notices, Pager } from '../widgets.js';

type Link = components['schemas']['Link'];

export function LinksScreen() {
  const [links, setLinks] = useState<Link[] | null>(null);
  const [page, setPage] = useState(1);
  const [pages, setPages] = useState(1);
  const [reloads, setReloads] = useState(0);
  const [form, setForm] = useState({ name: '', url: '', description: '', categories: '' });
  const [notice, setNotice] = useState('');
  const [error, setError] = useState('');

  useEffect(() => {
    void api
      .GET('/api/v2/links', { params: { query: { page, per_page: 25 } } })
      .then(({ data, error: problem }) => {
        if (problem) return setError(problem.detail ?? problem.title);
        setLinks(data.data);
        setPages(data.meta.pagination.total_pages);
      });
  }, [page, reloads]);

  const add = async (event: Event) => {
    event.preventDefault();
    setError('');
    const categories = form.categories
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    const { error: problem } = await api.POST('/api/v2/links', {
      body: {
        name: form.name.trim(),
        url: form.url.trim(),
        ...(form.description.trim() ? { description: form.description.trim() } : {}),
        ...(categories.length ? { categories } : {}),
      },
    });
    if (problem)
      return setError(Object.values(problem.errors ?? {})[0]?.[0] ?? problem.detail ?? problem.title);
    setNotice(t('links.added', { name: form.name.trim() }));
    setForm({ name: '', url: '', description: '', categories: '' });
    setPage(1);
    setReloads((n) => n + 1);
  };
  const remove = async (link: Link) => {
    if (!confirm(t('links.delete.confirm', { name: link.name }))) return;
    const { error: problem } = await api.DELETE('/api/v2/links/{id}', {
      params: { path: { id: String(link.id) } },
    });
    if (problem) return setError(problem.detail ?? problem.title);
    setNotice(t('links.deleted', { name: link.name }));
    setReloads((n) => n + 1);
  };
  const field = (name: keyof typeof form, label: string, type = 'text', required = false) => (
    <div class="inline-field grow">
      <label for={`link-${name}`}>{label}</label>
      <input
        id={`link-${name}`}
        type={type}
        required={required}
        value={form[name]}
        onInput={(event) => setForm({ ...form, [name]: event.currentTarget.value })}
      />
    </div>
  );

  return (
    <section aria-labelledby="links-title">
      <h1 id="links-title">{t('links.title')}</h1>
      <Notices notice={notice} error={error} />
      <form class="filters" onSubmit={(event) => void add(event)} aria-label={t('links.add')}>
        {field('name', t('links.name'), 'text', true)}
        {field('url', t('links.url'), 'url', true)}
        {field('description', t('links.description'))}
        {field('categories', t('links.categories'))}
        <button type="submit" class="primary">
          {t('links.add')}
        </button>
      </form>
      {links === null ? (
        <p aria-live="polite">{t('app.loading')}</p>
      ) : links.length === 0 ? (
        <p>{t('links.empty')}</p>
      ) : (
        <table class="posts">
          <thead>
            <tr>
              <th scope="col">{t('links.name')}</th>
              <th scope="col">{t('links.categories')}</th>
              <th scope="col">{t('links.clicks')}</th>
              <th scope="col">
                <span class="visually-hidden">{t('people.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {links.map((link) => (
              <tr key={link.id} data-link={link.id}>
                <td data-label={t('links.name')}>
                  <a href={link.url} rel="noopener noreferrer" target="_blank">
                    {link.name}
                  </a>
                </td>
                <td data-label={t('links.categories')}>
                  {link.categories.map((category) => category.name).join(', ')}
                </td>
                <td data-label={t('links.clicks')}>{link.clicks}</td>
                <td>
                  <button
                    type="button"
                    onClick={() => void remove(link)}
                    aria-label={t('links.delete.named', { name: link.name })}
                  >
                    {t('links.delete')}
                  </button>
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
