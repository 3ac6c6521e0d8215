// The links directory: the website's links with their categories and outbound clicks, page by page;
// add one (name, address, description, categories by name: missing ones are created), or delete one.
import { useState } from 'preact/hooks';
import type { components } from '../../../clients/typescript/schema.js';
import { api } from '../api.js';
import { useForm, useResource } from '../hooks.js';
import { t } from '../i18n.js';
import { Notices, Pager } from '../widgets.js';

type Link = components['schemas']['Link'];

export function LinksScreen() {
  const [page, setPage] = useState(1);
  const list = useResource(
    () => api.GET('/api/v2/links', { params: { query: { page, per_page: 25 } } }),
    [page],
  );
  const links: Link[] | null = list.data?.data ?? null;
  const pages = list.data?.meta.pagination.total_pages ?? 1;
  const form = useForm({ name: '', url: '', description: '', categories: '' }, async (values) => {
    const categories = values.categories
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    const { error: problem } = await api.POST('/api/v2/links', {
      body: {
        name: values.name.trim(),
        url: values.url.trim(),
        ...(values.description.trim() ? { description: values.description.trim() } : {}),
        ...(categories.length ? { categories } : {}),
      },
    });
    if (problem)
      return { error: Object.values(problem.errors ?? {})[0]?.[0] ?? problem.detail ?? problem.title };
    form.reset();
    setPage(1);
    list.reload();
    return t('links.added', { name: values.name.trim() });
  });
  const remove = async (link: Link) => {
    if (!confirm(t('links.delete.confirm', { name: link.name }))) return;
    const { error: problem } = await api.DELETE('/api/v2/links/{id}', {
      params: { path: { id: String(link.id) } },
    });
    if (problem) return form.setError(problem.detail ?? problem.title);
    form.setSaved(t('links.deleted', { name: link.name }));
    list.reload();
  };
  const error = form.error || (list.error ? (list.error.detail ?? list.error.title) : '');
  const field = (name: keyof typeof form.values, label: string, type = 'text', required = false) => (
    <div class="inline-field grow">
      <label for={`link-${name}`}>{label}</label>
      <input
        id={`link-${name}`}
        type={type}
        required={required}
        value={form.values[name]}
        onInput={(event) => form.set({ [name]: event.currentTarget.value })}
      />
    </div>
  );

  return (
    <section aria-labelledby="links-title">
      <h1 id="links-title">{t('links.title')}</h1>
      <Notices notice={form.saved} error={error} />
      <form class="filters" onSubmit={(event) => void form.submit(event)} aria-label={t('links.add')}>
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
