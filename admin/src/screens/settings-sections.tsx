// Sections of the Settings (System) screen, administrators': a group of named settings saved
// together, the API switches and auth modes as a table of toggles by the spec's names, and the test
// mail. Every value is a setting of PATCH /api/v2/settings; the API decides again.
import { useEffect, useState } from 'preact/hooks';
import { api, problemText } from '../api.js';
import { useForm, useResource } from '../hooks.js';
import { t } from '../i18n.js';
import type { MessageKey } from '../i18n.js';
import { Checkbox, Message, Notices } from '../widgets.js';
import type { components } from '../../../clients/typescript/schema.js';

type Switch = components['schemas']['ApiSwitch'];
/**
 * A setting's field. A `choice` is a select among the values the server accepts (it refuses others:
 * 422), showing the value in effect: `fallback` when the setting is unset or holds another value.
 */
export type Field =
  | { key: string; kind: 'text' | 'number' | 'flag' }
  | { key: string; kind: 'choice'; choices: readonly string[]; fallback: string };

const textOf = problemText;

/**
 * Every place that shows settings shows their current value: a save anywhere on the screen tells the
 * others what the server now holds (the event's detail: every setting), so none shows a stale value.
 */
const SETTINGS_CHANGED = 'folio:settings-changed';
export function announceSettings(values: Record<string, string>): void {
  dispatchEvent(new CustomEvent(SETTINGS_CHANGED, { detail: values }));
}
/** Calls `apply` with every setting after any save on the screen. */
export function useSettingsChanges(apply: (values: Record<string, string>) => void): void {
  useEffect(() => {
    const listener = (event: Event) => apply((event as CustomEvent<Record<string, string>>).detail);
    addEventListener(SETTINGS_CHANGED, listener);
    return () => removeEventListener(SETTINGS_CHANGED, listener);
  }, []);
}
const isOn = (value: string | undefined) => value === '1' || value === 'true';

/** A titled group of settings with one Save. */
export function SettingsSection({ id, title, fields }: { id: string; title: string; fields: Field[] }) {
  // The settings, and the value in effect of a setting nobody set: shown as its value, marked "default".
  const settings = useResource(
    () =>
      api.GET('/api/v2/settings').then(({ data }) => ({
        data: { values: data?.data ?? {}, defaults: data?.meta.defaults ?? {} },
      })),
    [],
  );
  const values = settings.data?.values ?? null;
  const defaults = settings.data?.defaults ?? {};
  useSettingsChanges((next) =>
    settings.setData((current) => ({ values: next, defaults: current?.defaults ?? {} })),
  );
  // The settings changed here and not saved yet.
  const form = useForm<Record<string, string>>({}, async (changes) => {
    const { data, error: problem } = await api.PATCH('/api/v2/settings', { body: changes });
    if (problem) return { error: textOf(problem) };
    form.reset();
    announceSettings(data.data);
    return t('system.settings.saved', { n: Object.keys(changes).length });
  });
  const edited = form.values;
  if (values === null) return null;
  const valueOf = (key: string) => edited[key] ?? values[key] ?? defaults[key] ?? '';
  const byDefault = (key: string) =>
    edited[key] === undefined && values[key] === undefined && defaults[key] !== undefined ? (
      <span class="help"> {t('settings.is_default')}</span>
    ) : null;
  return (
    <form
      class="settings-section"
      aria-labelledby={`settings-${id}-title`}
      onSubmit={(event) => void form.submit(event)}
    >
      <h2 id={`settings-${id}-title`}>{title}</h2>
      {fields.map((field) => {
        const label = t(`settings.field.${field.key}` as MessageKey);
        const inputId = `setting-field-${field.key}`;
        if (field.kind === 'choice') {
          const stored = (edited[field.key] ?? values[field.key] ?? '').trim().toLowerCase();
          const inEffect = field.choices.includes(stored) ? stored : field.fallback;
          return (
            <div key={field.key} class="inline-field" data-setting-field={field.key}>
              <label for={inputId}>
                {label} <code class="help">{field.key}</code>
                {byDefault(field.key)}
              </label>
              <select
                id={inputId}
                value={inEffect}
                onChange={(event) => form.set({ [field.key]: event.currentTarget.value })}
              >
                {field.choices.map((choice) => (
                  <option key={choice} value={choice}>
                    {t(`settings.${field.key}.${choice}` as MessageKey)}
                  </option>
                ))}
              </select>
              {stored !== '' && stored !== inEffect && (
                <p class="help">{t('settings.default', { value: field.fallback })}</p>
              )}
            </div>
          );
        }
        return field.kind === 'flag' ? (
          <Checkbox
            key={field.key}
            data-setting-field={field.key}
            checked={isOn(valueOf(field.key))}
            onChange={(on) => form.set({ [field.key]: on ? '1' : '0' })}
          >
            {label} <code class="help">{field.key}</code>
            {byDefault(field.key)}
          </Checkbox>
        ) : (
          <div key={field.key} class="inline-field" data-setting-field={field.key}>
            <label for={inputId}>
              {label} <code class="help">{field.key}</code>
              {byDefault(field.key)}
            </label>
            <input
              id={inputId}
              type={field.kind === 'number' ? 'number' : 'text'}
              min={field.kind === 'number' ? 0 : undefined}
              value={valueOf(field.key)}
              onInput={(event) => form.set({ [field.key]: event.currentTarget.value })}
            />
          </div>
        );
      })}
      <Notices notice={form.saved} error={form.error} />
      <button type="submit" class="primary" disabled={Object.keys(edited).length === 0}>
        {t('settings.save', { section: title })}
      </button>
    </form>
  );
}

/** Every endpoint's switch and auth mode, changed one at a time. */
export function ApiSwitches() {
  const list = useResource(
    () =>
      api
        .GET('/api/v2/api-switches')
        .then(({ data, error: problem }) => ({ data: data?.data, error: problem })),
    [],
  );
  const switches = list.data;
  const setSwitches = list.setData;
  const load = list.reload;
  const [notice, setNotice] = useState('');
  const [saveError, setError] = useState('');
  const error = saveError || (list.error ? textOf(list.error) : '');
  // The row shows the change at once (a controlled input would otherwise snap back until the answer
  // comes); a refusal puts the stored values back.
  const save = async (key: string, shown: Partial<Switch>, changes: Record<string, string>) => {
    setSwitches(
      (current) => current?.map((entry) => (entry.key === key ? { ...entry, ...shown } : entry)) ?? null,
    );
    const { error: problem } = await api.PATCH('/api/v2/settings', { body: changes });
    if (problem) {
      load();
      return setError(textOf(problem));
    }
    setError('');
    setNotice(t('system.settings.saved', { n: Object.keys(changes).length }));
    load();
  };
  return (
    <section aria-labelledby="api-switches-title">
      <h2 id="api-switches-title">{t('settings.api')}</h2>
      <p class="help">{t('settings.api.help')}</p>
      <Notices notice={notice} error={error} />
      {switches && (
        <table class="posts api-switches">
          <thead>
            <tr>
              <th scope="col">{t('settings.api.endpoint')}</th>
              <th scope="col">{t('settings.api.enabled')}</th>
              <th scope="col">{t('settings.api.auth')}</th>
            </tr>
          </thead>
          <tbody>
            {switches.map((entry) => (
              <tr key={entry.key} data-switch={entry.key}>
                <td data-label={t('settings.api.endpoint')}>
                  <code>{entry.key}</code>
                </td>
                <td data-label={t('settings.api.enabled')}>
                  {entry.enabled !== null && (
                    <input
                      type="checkbox"
                      aria-label={t('settings.api.switch.of', { key: entry.key })}
                      checked={entry.enabled}
                      onChange={(event) => {
                        const enabled = event.currentTarget.checked;
                        void save(entry.key, { enabled }, { [entry.key]: enabled ? '1' : '0' });
                      }}
                    />
                  )}
                </td>
                <td data-label={t('settings.api.auth')}>
                  {entry.auth_mode !== null && (
                    <select
                      aria-label={t('settings.api.auth.of', { key: entry.key })}
                      value={entry.auth_mode}
                      onChange={(event) => {
                        const mode = event.currentTarget.value as NonNullable<Switch['auth_mode']>;
                        void save(entry.key, { auth_mode: mode }, { [`${entry.key}_should_auth`]: mode });
                      }}
                    >
                      {(['none', 'simple', 'basic'] as const).map((mode) => (
                        <option key={mode} value={mode}>
                          {mode}
                        </option>
                      ))}
                    </select>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** "Send a test mail" to the signed-in administrator, and what happened. */
export function MailTest() {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: string; text: string } | null>(null);
  const send = async () => {
    setBusy(true);
    const { data, error } = await api.POST('/api/v2/mail/test');
    setBusy(false);
    if (error) return setMessage({ kind: 'error', text: textOf(error) });
    const result = data.data;
    setMessage(
      result.sent
        ? {
            kind: 'ok',
            text: t(result.transport === 'smtp' ? 'settings.mail.sent.smtp' : 'settings.mail.sent.log', {
              to: result.to,
            }),
          }
        : { kind: 'error', text: t('settings.mail.failed', { to: result.to, error: result.error ?? '' }) },
    );
  };
  return (
    <section aria-labelledby="mail-title">
      <h2 id="mail-title">{t('settings.mail')}</h2>
      <p class="help">{t('settings.mail.help')}</p>
      <button type="button" disabled={busy} onClick={() => void send()}>
        {t('settings.mail.test')}
      </button>
      <Message message={message} />
    </section>
  );
}
