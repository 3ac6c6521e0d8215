// Accounts (administrators): every user of the installation, searched by name or email; disable or
// enable one (a disabled user is signed out and their keys refused at once), send a password reset
// link, and see and revoke their API keys.
import { useState } from 'preact/hooks';
import { api, problemText } from '../api.js';
import { useResource } from '../hooks.js';
import { formatDateTime, t } from '../i18n.js';
import { useMe } from '../session.js';
import { Notices, Pager, SearchForm } from '../widgets.js';
import type { components } from '../../../clients/typescript/schema.js';

type User = components['schemas']['User'];
type Key = components['schemas']['UserApiKey'];

const textOf = problemText;

export function Accounts() {
  const me = useMe();
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const [keysOf, setKeysOf] = useState<{ user: User; keys: Key[] } | null>(null);
  const [notice, setNotice] = useState('');
  const [actionError, setError] = useState('');
  const list = useResource(
    () => api.GET('/api/v2/users', { params: { query: { page, per_page: 20, ...(q ? { q } : {}) } } }),
    [q, page],
  );
  const users: User[] | null = list.data?.data ?? null;
  const pages = list.data?.meta.pagination.total_pages ?? 1;
  const error = actionError || (list.error ? textOf(list.error) : '');

  const setActive = async (user: User, active: boolean) => {
    if (!active && !confirm(t('people.account.disable.confirm', { name: user.name }))) return;
    const { error: problem } = await api.PATCH('/api/v2/users/{id}', {
      params: { path: { id: String(user.id) } },
      body: { is_active: active },
    });
    if (problem) return setError(textOf(problem));
    setError('');
    setNotice(t(active ? 'people.account.enabled' : 'people.account.disabled', { name: user.name }));
    list.reload();
  };

  const reset = async (user: User) => {
    const { data, error: problem } = await api.POST('/api/v2/users/{id}/password-reset', {
      params: { path: { id: String(user.id) } },
    });
    if (problem) return setError(textOf(problem));
    setError('');
    setNotice(t('people.account.reset.sent', { email: data.data.email }));
  };

  const showKeys = async (user: User) => {
    const { data, error: problem } = await api.GET('/api/v2/users/{id}/keys', {
      params: { path: { id: String(user.id) } },
    });
    if (problem) return setError(textOf(problem));
    setKeysOf({ user, keys: data.data });
  };

  const revoke = async (key: Key) => {
    if (!keysOf) return;
    const { error: problem } = await api.DELETE('/api/v2/users/{id}/keys/{key}', {
      params: { path: { id: String(keysOf.user.id), key: String(key.id) } },
    });
    if (problem) return setError(textOf(problem));
    setNotice(t('people.account.keys.done', { name: key.name }));
    await showKeys(keysOf.user);
  };

  return (
    <section aria-labelledby="accounts-title">
      <h2 id="accounts-title">{t('people.accounts')}</h2>
      <SearchForm
        id="accounts-search"
        label={t('people.accounts.search')}
        onSearch={(words) => {
          setQ(words);
          setPage(1);
        }}
      />
      <Notices notice={notice} error={error} />
      {users === null ? (
        <p>{t('app.loading')}</p>
      ) : (
        <table class="posts accounts">
          <thead>
            <tr>
              <th scope="col">{t('people.name')}</th>
              <th scope="col">{t('people.email')}</th>
              <th scope="col">{t('people.account.status')}</th>
              <th scope="col">
                <span class="visually-hidden">{t('people.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.map((user) => (
              <tr key={user.id} data-account={user.id}>
                <td data-label={t('people.name')}>{user.name}</td>
                <td data-label={t('people.email')}>{user.email}</td>
                <td data-label={t('people.account.status')}>
                  {user.is_active ? t('people.account.active') : t('people.disabled')}
                </td>
                <td class="actions">
                  {user.id !== me.id &&
                    (user.is_active ? (
                      <button
                        type="button"
                        aria-label={t('people.account.disable.named', { name: user.name })}
                        onClick={() => void setActive(user, false)}
                      >
                        {t('people.account.disable')}
                      </button>
                    ) : (
                      <button
                        type="button"
                        aria-label={t('people.account.enable.named', { name: user.name })}
                        onClick={() => void setActive(user, true)}
                      >
                        {t('people.account.enable')}
                      </button>
                    ))}
                  {user.is_active && (
                    <button
                      type="button"
                      aria-label={t('people.account.reset.named', { name: user.name })}
                      onClick={() => void reset(user)}
                    >
                      {t('people.account.reset')}
                    </button>
                  )}
                  <button
                    type="button"
                    aria-label={t('people.account.keys.named', { name: user.name })}
                    onClick={() => void showKeys(user)}
                  >
                    {t('people.account.keys')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager page={page} pages={pages} onPage={setPage} />
      {keysOf && (
        <section aria-labelledby="account-keys-title">
          <h3 id="account-keys-title">{t('people.account.keys.named', { name: keysOf.user.name })}</h3>
          {keysOf.keys.length === 0 ? (
            <p>{t('people.account.keys.none')}</p>
          ) : (
            <ul class="cards">
              {keysOf.keys.map((key) => (
                <li key={key.id} data-key={key.id}>
                  <strong>{key.name}</strong> <code>{key.prefix}…</code> ·{' '}
                  <span class="help">{formatDateTime(key.created_at)}</span>{' '}
                  {key.revoked ? (
                    <span class="status">{t('people.account.keys.revoked')}</span>
                  ) : (
                    <button
                      type="button"
                      aria-label={t('people.account.keys.revoke.named', { name: key.name })}
                      onClick={() => void revoke(key)}
                    >
                      {t('people.account.keys.revoke')}
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </section>
  );
}
