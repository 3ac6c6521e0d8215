// System: the caches (a website's, for those who manage it; everything, for administrators), every
// setting of the installation with the API switches as toggles (administrators; secrets are never
// shown), and the core update with its progress (administrators).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { useForm, useResource } from '../hooks.js';
import type { Outcome } from '../hooks.js';
import { t } from '../i18n.js';
import { Message, PanelLink } from '../widgets.js';
import type { MessageKey } from '../i18n.js';
import { useAbilities, useMe } from '../session.js';
import {
  announceSettings,
  ApiSwitches,
  MailTest,
  SettingsSection,
  useSettingsChanges,
} from './settings-sections.js';
import type { Field } from './settings-sections.js';
import { JobsSection } from './webhooks.js';

/** A setting shown as a toggle: the API switches and other on/off flags. */
const isSwitch = (key: string, value: string) =>
  /^(enable|disable)_/.test(key) && /^(0|1|true|false)?$/.test(value);
const isOn = (value: string) => value === '1' || value === 'true';

function Caches() {
  const me = useMe();
  const can = useAbilities();
  const [notice, setNotice] = useState('');
  const flush = async (all: boolean) => {
    const { error } = await api.POST('/api/v2/cache/flush', {
      body: all ? {} : { website_id: me.website?.id },
    });
    setNotice(error ? (error.detail ?? error.title) : t(all ? 'system.flushed.all' : 'system.flushed.site'));
  };
  return (
    <section aria-labelledby="caches-title">
      <h2 id="caches-title">{t('system.caches')}</h2>
      <p class="help">{t('system.caches.help')}</p>
      <div class="actions">
        {can.manage_website && (
          <button type="button" onClick={() => void flush(false)}>
            {t('system.flush.site', { name: me.website?.name ?? '' })}
          </button>
        )}
        {me.is_admin && (
          <button type="button" onClick={() => void flush(true)}>
            {t('system.flush.all')}
          </button>
        )}
      </div>
      <p class="notice" role="status">
        {notice}
      </p>
    </section>
  );
}

function Settings() {
  const stored = useResource(
    () => api.GET('/api/v2/settings').then(({ data }) => ({ data: data?.data ?? {} })),
    [],
  );
  const settings = stored.data;
  useSettingsChanges(stored.setData);
  const [filter, setFilter] = useState('');
  /** Saves some settings: the edited ones (the form), or a toggle's at once (beside the form). */
  const send = async (changes: Record<string, string>): Promise<Outcome> => {
    const { data, error: problem } = await api.PATCH('/api/v2/settings', { body: changes });
    if (problem)
      return { error: Object.values(problem.errors ?? {})[0]?.[0] ?? problem.detail ?? problem.title };
    form.reset();
    announceSettings(data.data);
    return t('system.settings.saved', { n: Object.keys(changes).length });
  };
  // The settings changed in their fields and not saved yet.
  const form = useForm<Record<string, string>>({}, send);
  const edited = form.values;
  const { saved: notice, error } = form;
  if (settings === null) return <p>{t('app.loading')}</p>;
  const keys = Object.keys(settings)
    .filter((key) => key.includes(filter.trim()))
    .sort();
  return (
    <section aria-labelledby="settings-title">
      <h2 id="settings-title">{t('system.settings')}</h2>
      <p class="help">{t('system.settings.help')}</p>
      <div class="inline-field">
        <label for="settings-filter">{t('system.settings.filter')}</label>
        <input
          id="settings-filter"
          type="search"
          value={filter}
          onInput={(event) => setFilter(event.currentTarget.value)}
        />
      </div>
      {error && (
        <p class="notice error" role="alert">
          {error}
        </p>
      )}
      <p class="notice" role="status">
        {notice}
      </p>
      <table class="posts settings">
        <thead>
          <tr>
            <th scope="col">{t('system.settings.key')}</th>
            <th scope="col">{t('system.settings.value')}</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => {
            const value = settings[key] ?? '';
            return (
              <tr key={key} data-setting={key}>
                <td data-label={t('system.settings.key')}>
                  <code id={`setting-${key}`}>{key}</code>
                </td>
                <td data-label={t('system.settings.value')}>
                  {isSwitch(key, value) ? (
                    <input
                      type="checkbox"
                      aria-labelledby={`setting-${key}`}
                      checked={isOn(value)}
                      onChange={(event) => {
                        const next = event.currentTarget.checked ? '1' : '0';
                        // Shown at once: the save's "saving" redraw would otherwise put the box back
                        // until the answer; a refused save puts the stored value back.
                        const shown = (text: string) =>
                          stored.setData((current) => current && { ...current, [key]: text });
                        shown(next);
                        void form.run(async () => {
                          const outcome = await send({ [key]: next });
                          if (typeof outcome !== 'string') shown(value);
                          return outcome;
                        });
                      }}
                    />
                  ) : (
                    <input
                      aria-labelledby={`setting-${key}`}
                      value={edited[key] ?? value}
                      onInput={(event) => form.set({ [key]: event.currentTarget.value })}
                    />
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <div class="actions">
        <button
          type="button"
          class="primary"
          disabled={Object.keys(edited).length === 0}
          onClick={() => void form.submit()}
        >
          {t('system.settings.save')}
        </button>
      </div>
    </section>
  );
}

function Updates() {
  const [running, setRunning] = useState(false);
  const [seconds, setSeconds] = useState(0);
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  useEffect(() => {
    void api.GET('/api/v2/updates/progress').then(({ data }) => setRunning(data?.data.running ?? false));
  }, []);
  // While an update runs (here or started by another administrator), the progress endpoint is asked
  // every second: the live state, on every node, comes from the update lock.
  useEffect(() => {
    if (!running) return;
    const started = Date.now();
    const timer = setInterval(() => {
      setSeconds(Math.round((Date.now() - started) / 1000));
      void api.GET('/api/v2/updates/progress').then(({ data }) => {
        if (data && !data.data.running) setRunning(false);
      });
    }, 1000);
    return () => clearInterval(timer);
  }, [running]);
  const update = async () => {
    if (!confirm(t('system.update.confirm'))) return;
    setRunning(true);
    setMessage(null);
    // The call answers when the update is done; the progress endpoint says so to other admins meanwhile.
    const { data, error } = await api.POST('/api/v2/updates', { body: {} });
    setRunning(false);
    setMessage(
      error
        ? { kind: 'error', text: error.detail ?? error.title }
        : { kind: 'ok', text: t('system.update.done', { version: data.data.version }) },
    );
  };
  return (
    <section aria-labelledby="updates-title">
      <h2 id="updates-title">{t('system.updates')}</h2>
      <p aria-live="polite">
        {running
          ? seconds > 0
            ? t('system.update.progress', { seconds })
            : t('system.update.running')
          : t('system.update.idle')}
      </p>
      {running && <progress aria-label={t('system.update.running')} />}
      <button type="button" disabled={running} onClick={() => void update()}>
        {t('system.update')}
      </button>
      <Message message={message} />
    </section>
  );
}

/** The installation's settings by subject: each section saves its own fields. */
const SECTIONS: Array<{
  id: string;
  title: MessageKey;
  fields: Field[];
}> = [
  {
    id: 'general',
    title: 'settings.general',
    fields: [
      { key: 'frontend_posts_per_page', kind: 'number' },
      { key: 'frontend_tag_types', kind: 'text' },
      { key: 'feed_full_content', kind: 'flag' },
      { key: 'default_website_id', kind: 'number' },
      { key: 'audit_retention_days', kind: 'number' },
    ],
  },
  {
    id: 'locales',
    title: 'settings.locales',
    fields: [
      { key: 'default_locale', kind: 'text' },
      { key: 'supported_locales', kind: 'text' },
    ],
  },
  {
    id: 'accounts',
    title: 'settings.accounts',
    fields: [
      { key: 'enable_registration', kind: 'flag' },
      // The server's list (accounts.ts REGISTRATION_ROLES); another value is refused with a 422.
      {
        key: 'registration_role',
        kind: 'choice',
        choices: ['reader', 'contributor', 'author'],
        fallback: 'reader',
      },
      { key: 'session_lifetime', kind: 'number' },
      { key: 'password_reset_lifetime', kind: 'number' },
      { key: 'registration_confirm_lifetime', kind: 'number' },
    ],
  },
];

export function SystemScreen() {
  const me = useMe();
  const can = useAbilities();
  return (
    <section aria-labelledby="system-title">
      <h1 id="system-title">{t('system.title')}</h1>
      {can.manage_website && (
        <section aria-labelledby="site-settings-title">
          <h2 id="site-settings-title">{t('settings.site')}</h2>
          <p class="help">{t('settings.site.help')}</p>
          <PanelLink to="/admin/website">{t('settings.site.link')}</PanelLink>
        </section>
      )}
      {me.is_admin &&
        SECTIONS.map((section) => (
          <SettingsSection
            key={section.id}
            id={section.id}
            title={t(section.title)}
            fields={section.fields}
          />
        ))}
      {me.is_admin && (
        <section aria-labelledby="comments-settings-title">
          <h2 id="comments-settings-title">{t('settings.comments')}</h2>
          <p class="help">{t('settings.comments.help')}</p>
          <PanelLink to="/admin/comments">{t('settings.comments.link')}</PanelLink>
        </section>
      )}
      {me.is_admin && <MailTest />}
      {me.is_admin && <ApiSwitches />}
      {me.is_admin && (
        <SettingsSection
          id="ttl"
          title={t('settings.caches.ttl')}
          fields={[{ key: 'page_cache_ttl', kind: 'number' }]}
        />
      )}
      <Caches />
      {me.is_admin && <Updates />}
      {me.is_admin && <JobsSection />}
      {me.is_admin && <Settings />}
    </section>
  );
}
