// Website: the site's name, slogan and search-engine fields in every locale the installation
// writes in, its page and data cache switches (one PATCH for the form), and its domains: the
// primary domain and aliases, added and removed one by one (the API refuses a domain another site
// uses, and the last one).
import { useState } from 'preact/hooks';
import { api, problemText } from '../api.js';
import { t } from '../i18n.js';
import { shownUrl } from '../media-url.js';
import { useForm, useResource } from '../hooks.js';
import { Checkbox, Message } from '../widgets.js';
import type { MessageKey } from '../i18n.js';
import { ME_CHANGED, useMe } from '../session.js';
import type { components } from '../../../clients/typescript/schema.js';
import { AllWebsites, DomainCheckButton } from './website-admin.js';

type Website = components['schemas']['Website'];
const FIELDS = ['site_name', 'site_slogan', 'site_seo_description', 'site_seo_keywords'] as const;
type Field = (typeof FIELDS)[number];
const LOOK_FIELDS = [
  'theme',
  'homepage',
  'site_logo',
  'site_favicon',
  'site_cover',
  'head_code',
  'body_code',
] as const;
type LookField = (typeof LOOK_FIELDS)[number];
const CODE_FIELDS: readonly string[] = ['head_code', 'body_code'];
/** Per field, per locale, the text being edited. */
type Texts = Record<Field, Record<string, string>>;
/** What the form edits (`texts`: null until the website has loaded). */
interface Values {
  texts: Texts | null;
  look: Record<LookField, string>;
  pageCache: boolean;
  dataCache: boolean;
}
type Note = { kind: 'ok' | 'error'; text: string } | null;

const textOf = problemText;

function textsOf(website: Website, defaultLocale: string, locales: string[]): Texts {
  const texts = {} as Texts;
  for (const field of FIELDS) {
    const translated = website.translations[field] ?? {};
    texts[field] = Object.fromEntries(
      locales.map((locale) => [
        locale,
        locale === defaultLocale ? (website.fields[field] ?? '') : (translated[locale] ?? ''),
      ]),
    );
  }
  return texts;
}

export function WebsiteScreen() {
  const me = useMe();
  const id = String(me.website?.id ?? 0);
  const defaultLocale = me.locales.default;
  const locales = [defaultLocale, ...me.locales.supported.filter((locale) => locale !== defaultLocale)];
  const [locale, setLocale] = useState(defaultLocale);
  // What the form edits, from the website as last loaded or saved.
  const valuesOf = (next: Website): Values => ({
    texts: textsOf(next, defaultLocale, locales),
    look: Object.fromEntries(LOOK_FIELDS.map((field) => [field, next.fields[field] ?? ''])) as Record<
      LookField,
      string
    >,
    pageCache: next.enabled_page_cache,
    dataCache: next.enabled_data_cache,
  });
  const site = useResource(
    () =>
      api.GET('/api/v2/websites/{id}', { params: { path: { id } } }).then(({ data, error }) => {
        if (data) form.reset(valuesOf(data.data));
        return { data: data?.data, error };
      }),
    [id],
  );
  const website = site.data;
  /** The website as the server now has it (after a save, or a domain's change): the form shows it. */
  const show = (next: Website) => {
    site.setData(next);
    form.reset(valuesOf(next));
  };
  const form = useForm<Values>(
    {
      texts: null,
      look: {
        theme: 'default',
        homepage: '',
        site_logo: '',
        site_favicon: '',
        site_cover: '',
        head_code: '',
        body_code: '',
      },
      pageCache: false,
      dataCache: false,
    },
    async ({ texts, look, pageCache, dataCache }) => {
      if (!texts) return;
      // Each field as a map of every locale (the default locale's text is the base; an empty
      // translation is removed).
      const body: Record<string, unknown> = { enabled_page_cache: pageCache, enabled_data_cache: dataCache };
      // The page code is sent only by those who see it (the API refuses it to the others).
      for (const field of LOOK_FIELDS) {
        if (field in website!.fields || !CODE_FIELDS.includes(field)) body[field] = look[field] || null;
      }
      body.theme = look.theme || 'default';
      for (const field of FIELDS) {
        body[field] = locales.length > 1 ? texts[field] : (texts[field][defaultLocale] ?? '');
      }
      const { data, error } = await api.PATCH('/api/v2/websites/{id}', {
        params: { path: { id } },
        body: body as never,
      });
      if (error) return { error: textOf(error) };
      show(data.data);
      dispatchEvent(new Event(ME_CHANGED));
      return t('website.saved');
    },
  );
  const { texts, look, pageCache, dataCache } = form.values;
  const setTexts = (next: Texts) => form.set({ texts: next });
  const setLook = (next: Record<LookField, string>) => form.set({ look: next });
  const message: Note = form.error
    ? { kind: 'error', text: form.error }
    : form.saved
      ? { kind: 'ok', text: form.saved }
      : null;

  // The themes; the published pages (one may be the home page instead of the posts); the library's
  // images (the logo, the favicon and the home cover are chosen among them).
  const themes =
    useResource(
      () =>
        api.GET('/api/v2/themes').then(({ data }) => ({ data: data?.data.map((theme) => theme.name) ?? [] })),
      [id],
    ).data ?? [];
  const pages =
    useResource(
      () =>
        api
          .GET('/api/v2/pages', {
            params: { query: { per_page: 100, filter: { status: 'published' } } as never },
          })
          .then(({ data }) => ({
            data: ((data?.data ?? []) as Array<{ slug: string; title: string }>).map(({ slug, title }) => ({
              slug,
              title,
            })),
          })),
      [id],
    ).data ?? [];
  const images =
    useResource(
      () =>
        api
          .GET('/api/v2/media', { params: { query: { per_page: 100, filter: { type: 'image' } } as never } })
          .then(({ data }) => ({
            data: ((data?.data ?? []) as Array<{ url: string; file_name?: string | null }>).map((item) => ({
              url: item.url,
              name: item.file_name ?? item.url,
            })),
          })),
      [id],
    ).data ?? [];

  // The domains: one added (the field is emptied), or one removed; what happened is said under them.
  const domainForm = useForm({ domain: '' }, async ({ domain }) => {
    const { data, error } = await api.POST('/api/v2/websites/{id}/domains', {
      params: { path: { id } },
      body: { domain: domain.trim() },
    });
    if (error) return { error: textOf(error) };
    domainForm.reset();
    show(data.data);
    return t('website.domain.added', { domain: domain.trim() });
  });
  const domain = domainForm.values.domain;
  const domainMessage: Note = domainForm.error
    ? { kind: 'error', text: domainForm.error }
    : domainForm.saved
      ? { kind: 'ok', text: domainForm.saved }
      : null;

  const removeDomain = async (name: string) => {
    const here = name === location.hostname;
    if (
      !confirm(t(here ? 'website.domain.remove.here' : 'website.domain.remove.confirm', { domain: name }))
    ) {
      return;
    }
    const { data, error } = await api.DELETE('/api/v2/websites/{id}/domains/{domain}', {
      params: { path: { id, domain: name } },
    });
    if (error) return domainForm.setError(textOf(error));
    show(data.data);
    domainForm.setError('');
    domainForm.setSaved(t('website.domain.removed', { domain: name }));
  };

  if (!website || !texts) {
    return site.error ? (
      <p class="notice error" role="alert">
        {textOf(site.error)}
      </p>
    ) : (
      <p>{t('app.loading')}</p>
    );
  }
  const domains = [
    { domain: website.domain, primary: true },
    ...website.aliases.map((alias) => ({ domain: alias.domain, primary: false })),
  ];
  return (
    <section aria-labelledby="website-title">
      <h1 id="website-title">{t('website.title')}</h1>
      <form onSubmit={(event) => void form.submit(event)}>
        <fieldset>
          <legend>{t('website.identity')}</legend>
          {locales.length > 1 && (
            <div class="tabs" role="group" aria-label={t('website.locales')}>
              {locales.map((code) => (
                <button
                  key={code}
                  type="button"
                  class={code === locale ? 'tab current' : 'tab'}
                  aria-pressed={code === locale}
                  onClick={() => setLocale(code)}
                >
                  {code}
                  {code === defaultLocale ? ` (${t('website.locale.default')})` : ''}
                </button>
              ))}
            </div>
          )}
          {FIELDS.map((field) => (
            <div key={field}>
              <label for={`website-${field}`}>{t(`website.field.${field}` as MessageKey, { locale })}</label>
              {field === 'site_seo_description' ? (
                <textarea
                  id={`website-${field}`}
                  rows={3}
                  value={texts[field][locale] ?? ''}
                  onInput={(event) =>
                    setTexts({ ...texts, [field]: { ...texts[field], [locale]: event.currentTarget.value } })
                  }
                />
              ) : (
                <input
                  id={`website-${field}`}
                  value={texts[field][locale] ?? ''}
                  required={field === 'site_name' && locale === defaultLocale}
                  placeholder={locale === defaultLocale ? '' : (texts[field][defaultLocale] ?? '')}
                  onInput={(event) =>
                    setTexts({ ...texts, [field]: { ...texts[field], [locale]: event.currentTarget.value } })
                  }
                />
              )}
            </div>
          ))}
          {locale !== defaultLocale && <p class="help">{t('website.locale.help')}</p>}
        </fieldset>
        <fieldset>
          <legend>{t('website.look')}</legend>
          <label for="website-theme">{t('website.theme')}</label>
          <select
            id="website-theme"
            value={look.theme}
            onChange={(event) => setLook({ ...look, theme: event.currentTarget.value })}
          >
            {[...new Set([look.theme, ...themes])].map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
          <label for="website-homepage">{t('website.homepage')}</label>
          <select
            id="website-homepage"
            aria-describedby="website-homepage-help"
            value={look.homepage}
            onChange={(event) => setLook({ ...look, homepage: event.currentTarget.value })}
          >
            <option value="">{t('website.homepage.posts')}</option>
            {look.homepage && !pages.some((page) => page.slug === look.homepage) && (
              <option value={look.homepage}>{look.homepage}</option>
            )}
            {pages.map((page) => (
              <option key={page.slug} value={page.slug}>
                {page.title}
              </option>
            ))}
          </select>
          <p class="help" id="website-homepage-help">
            {t('website.homepage.help')}
          </p>
          {(['site_logo', 'site_favicon', 'site_cover'] as const).map((field) => (
            <div key={field} class="image-choice">
              <label for={`website-${field}`}>{t(`website.${field}` as MessageKey)}</label>
              <select
                id={`website-${field}`}
                value={look[field]}
                onChange={(event) => setLook({ ...look, [field]: event.currentTarget.value })}
              >
                <option value="">{t('website.image.none')}</option>
                {look[field] && !images.some((image) => image.url === look[field]) && (
                  <option value={look[field]}>{look[field]}</option>
                )}
                {images.map((image) => (
                  <option key={image.url} value={image.url}>
                    {image.name}
                  </option>
                ))}
              </select>
              {look[field] && (
                <img
                  src={shownUrl(look[field])}
                  alt=""
                  class="preview"
                  height={field === 'site_cover' ? 64 : 32}
                />
              )}
            </div>
          ))}
          <p class="help">{t('website.image.help')}</p>
          {'head_code' in website.fields &&
            CODE_FIELDS.map((field) => (
              <div key={field}>
                <label for={`website-${field}`}>{t(`website.${field}` as MessageKey)}</label>
                <textarea
                  id={`website-${field}`}
                  class="code"
                  rows={4}
                  spellcheck={false}
                  value={look[field as LookField]}
                  onInput={(event) => setLook({ ...look, [field]: event.currentTarget.value })}
                />
              </div>
            ))}
          {'head_code' in website.fields && <p class="help">{t('website.code.help')}</p>}
        </fieldset>
        <fieldset>
          <legend>{t('website.caches')}</legend>
          <Checkbox checked={pageCache} onChange={(on) => form.set({ pageCache: on })}>
            {t('website.page_cache')}
          </Checkbox>
          <p class="help">{t('website.page_cache.help')}</p>
          <Checkbox checked={dataCache} onChange={(on) => form.set({ dataCache: on })}>
            {t('website.data_cache')}
          </Checkbox>
          <p class="help">{t('website.data_cache.help')}</p>
        </fieldset>
        <Message message={message} />
        <button type="submit" class="primary">
          {t('website.save')}
        </button>
      </form>

      <section aria-labelledby="domains-title">
        <h2 id="domains-title">{t('website.domains')}</h2>
        <ul class="domains">
          {domains.map((entry) => (
            <li key={entry.domain} data-domain={entry.domain}>
              <span class="domain-name">{entry.domain}</span>
              {entry.primary && <span class="status">{t('website.domain.primary')}</span>}
              <DomainCheckButton websiteId={id} domain={entry.domain} />
              <button
                type="button"
                aria-label={t('website.domain.remove.named', { domain: entry.domain })}
                onClick={() => void removeDomain(entry.domain)}
              >
                {t('website.domain.remove')}
              </button>
            </li>
          ))}
        </ul>
        <form class="add-row" onSubmit={(event) => void domainForm.submit(event)}>
          <label for="website-domain">{t('website.domain.add')}</label>
          <div class="inline">
            <input
              id="website-domain"
              value={domain}
              required
              maxLength={255}
              placeholder="www.example.com"
              onInput={(event) => domainForm.set({ domain: event.currentTarget.value })}
            />
            <button type="submit">{t('website.domain.add.button')}</button>
          </div>
          <p class="help">{t('website.domain.help')}</p>
        </form>
        {domainMessage && (
          <p
            class={`notice ${domainMessage.kind}`}
            role={domainMessage.kind === 'error' ? 'alert' : 'status'}
          >
            {domainMessage.text}
          </p>
        )}
      </section>
      {me.is_admin && <AllWebsites />}
    </section>
  );
}
