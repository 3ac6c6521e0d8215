// The Website screen's tools: the check that a domain leads to this server (for whoever manages the
// website), and, for administrators, every website: create one, and delete one after reading what
// goes with it and typing its domain.
import { useState } from 'preact/hooks';
import { api, problemText } from '../api.js';
import { useForm, useResource } from '../hooks.js';
import { t } from '../i18n.js';
import type { MessageKey } from '../i18n.js';
import { useMe } from '../session.js';
import { Message, Notices } from '../widgets.js';
import type { components } from '../../../clients/typescript/schema.js';

type Website = components['schemas']['Website'];
type Usage = components['schemas']['WebsiteUsage'];
type Check = components['schemas']['DomainCheck'];

const textOf = problemText;

/** "Check": asks the API whether the domain resolves here, and says so in words. */
export function DomainCheckButton({ websiteId, domain }: { websiteId: string; domain: string }) {
  const [result, setResult] = useState<{ kind: string; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const check = async () => {
    setBusy(true);
    const { data, error } = await api.POST('/api/v2/websites/{id}/domain-check', {
      params: { path: { id: websiteId } },
      body: { domain },
    });
    setBusy(false);
    if (error) return setResult({ kind: 'error', text: textOf(error) });
    setResult({ kind: data.data.verdict === 'here' ? 'ok' : 'error', text: verdictText(data.data) });
  };
  return (
    <span class="domain-check">
      <button
        type="button"
        disabled={busy}
        aria-label={t('website.check.named', { domain })}
        onClick={() => void check()}
      >
        {t('website.check')}
      </button>
      {result && <Message message={result} />}
    </span>
  );
}

function verdictText(check: Check): string {
  const addresses = check.addresses.join(', ');
  if (check.verdict === 'unresolved') return t('website.check.unresolved', { domain: check.domain });
  if (check.verdict === 'here') {
    return check.http === 'matched'
      ? t('website.check.here.http', { domain: check.domain, addresses })
      : t('website.check.here', { domain: check.domain, addresses });
  }
  return t('website.check.elsewhere', { domain: check.domain, addresses });
}

/** Every website (administrators): open its panel, create one, delete one. */
export function AllWebsites() {
  const me = useMe();
  const list = useResource(
    () =>
      api
        .GET('/api/v2/websites', { params: { query: { per_page: 100 } } })
        .then(({ data }) => ({ data: data?.data ?? [] })),
    [],
  );
  const websites = list.data ?? [];
  const load = list.reload;
  const [deleting, setDeleting] = useState<{ website: Website; usage: Usage } | null>(null);
  const [typed, setTyped] = useState('');
  // A new website's name and domain; what the last action did, and what went wrong.
  const form = useForm({ name: '', domain: '' }, async ({ name, domain }) => {
    const { data, error: problem } = await api.POST('/api/v2/websites', {
      body: { site_name: name.trim(), domain: domain.trim() },
    });
    if (problem) return { error: textOf(problem) };
    form.reset();
    load();
    return t('website.created', { name: data.data.fields.site_name ?? '', domain: data.data.domain });
  });
  const { setError } = form;
  const setNotice = form.setSaved;

  const ask = async (website: Website) => {
    setError('');
    setTyped('');
    const { data, error: problem } = await api.GET('/api/v2/websites/{id}/usage', {
      params: { path: { id: String(website.id) } },
    });
    if (problem) return setError(textOf(problem));
    setDeleting({ website, usage: data.data });
  };

  const remove = async (event: Event) => {
    event.preventDefault();
    if (!deleting) return;
    const { error: problem } = await api.DELETE('/api/v2/websites/{id}', {
      params: { path: { id: String(deleting.website.id) } },
    });
    if (problem) return setError(textOf(problem));
    setNotice(t('website.deleted', { domain: deleting.website.domain }));
    setDeleting(null);
    load();
  };

  const confirmed =
    deleting !== null &&
    [deleting.website.domain, deleting.website.fields.site_name ?? ''].includes(typed.trim()) &&
    typed.trim() !== '';
  return (
    <section aria-labelledby="websites-title">
      <h2 id="websites-title">{t('website.all')}</h2>
      <Notices notice={form.saved} error={form.error} />
      <table class="posts websites">
        <thead>
          <tr>
            <th scope="col">{t('website.all.name')}</th>
            <th scope="col">{t('website.all.domain')}</th>
            <th scope="col">
              <span class="visually-hidden">{t('people.actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {websites.map((website) => (
            <tr key={website.id} data-website={website.id}>
              <td data-label={t('website.all.name')}>{website.fields.site_name}</td>
              <td data-label={t('website.all.domain')}>
                <a href={`//${website.domain}${location.port ? `:${location.port}` : ''}/admin`}>
                  {website.domain}
                </a>
                {website.id === me.website?.id && <span class="status"> {t('website.all.here')}</span>}
              </td>
              <td>
                <button
                  type="button"
                  class="danger"
                  aria-label={t('website.delete.named', { domain: website.domain })}
                  onClick={() => void ask(website)}
                >
                  {t('website.delete')}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {deleting && (
        <form class="danger-zone" aria-labelledby="delete-title" onSubmit={(event) => void remove(event)}>
          <h3 id="delete-title">{t('website.delete.title', { domain: deleting.website.domain })}</h3>
          <p>{t('website.delete.goes')}</p>
          <ul class="usage">
            {(['posts', 'pages', 'media', 'comments', 'menus', 'domains'] as const).map((kind) => (
              <li key={kind} data-usage={kind}>
                {t(`website.usage.${kind}` as MessageKey, { n: deleting.usage[kind] })}
              </li>
            ))}
          </ul>
          {deleting.website.id === me.website?.id && <p class="notice error">{t('website.delete.here')}</p>}
          <label for="delete-confirm">{t('website.delete.type', { domain: deleting.website.domain })}</label>
          <input
            id="delete-confirm"
            value={typed}
            autocomplete="off"
            onInput={(event) => setTyped(event.currentTarget.value)}
          />
          <div class="actions">
            <button type="submit" class="danger" disabled={!confirmed}>
              {t('website.delete.confirm')}
            </button>
            <button type="button" onClick={() => setDeleting(null)}>
              {t('website.delete.cancel')}
            </button>
          </div>
        </form>
      )}
      <form class="filters add-member" onSubmit={(event) => void form.submit(event)}>
        <div class="inline-field grow">
          <label for="new-website-name">{t('website.new.name')}</label>
          <input
            id="new-website-name"
            required
            value={form.values.name}
            onInput={(event) => form.set({ name: event.currentTarget.value })}
          />
        </div>
        <div class="inline-field grow">
          <label for="new-website-domain">{t('website.new.domain')}</label>
          <input
            id="new-website-domain"
            required
            placeholder="blog.example.com"
            value={form.values.domain}
            onInput={(event) => form.set({ domain: event.currentTarget.value })}
          />
        </div>
        <button type="submit" class="primary">
          {t('website.new')}
        </button>
      </form>
    </section>
  );
}
