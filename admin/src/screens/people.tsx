// People: the website's members with their roles (change a role, remove a member, add an existing
// account by its email), for whoever may manage them; and the website's audit log, filtered by
// person, kind of thing and dates, page by page, for whoever may read it. The API decides each
// change again: a refusal is shown as it comes.
import type { Problem } from '../api.js';
import { useState } from 'preact/hooks';
import { api, problemText } from '../api.js';
import { useForm, useResource } from '../hooks.js';
import { formatDateTime, t } from '../i18n.js';
import { Notices } from '../widgets.js';
import type { MessageKey } from '../i18n.js';
import { useAbilities, useMe } from '../session.js';
import type { components } from '../../../clients/typescript/schema.js';
import { Accounts } from './accounts.js';

type Member = components['schemas']['Member'];
type Role = Member['role'];
type Entry = components['schemas']['AuditEntry'];
const ROLES: Role[] = ['site_admin', 'editor', 'author', 'contributor', 'reader'];
const RESOURCE_TYPES = [
  'post',
  'page',
  'tag',
  'menu',
  'media',
  'comment',
  'link',
  'membership',
  'website',
  'user',
  'api_key',
  'setting',
  'cache',
  'update',
];

const textOf = (problem: Problem) => (problem.status === 403 ? t('people.forbidden') : problemText(problem));

export function PeopleScreen() {
  const can = useAbilities();
  const me = useMe();
  const [members, setMembers] = useState<Member[]>([]);
  return (
    <section aria-labelledby="people-title">
      <h1 id="people-title">{t('people.title')}</h1>
      {can.manage_members && <Members members={members} setMembers={setMembers} />}
      {can.manage_members && <Invites />}
      {me.is_admin && <Accounts />}
      {can.read_audit && <AuditLog members={members} />}
    </section>
  );
}

function Members({ members, setMembers }: { members: Member[]; setMembers: (members: Member[]) => void }) {
  const me = useMe();
  const websiteId = String(me.website?.id ?? 0);
  const list = useResource(
    () =>
      api
        .GET('/api/v2/websites/{id}/members', { params: { path: { id: websiteId } } })
        .then(({ data, error: problem }) => {
          // The members go up to the screen: the audit log is filtered by them.
          if (data) setMembers(data.data);
          return { data: data ? true : undefined, error: problem };
        }),
    [],
  );
  const loaded = list.data === true;
  const form = useForm<{ email: string; role: Role }>({ email: '', role: 'author' }, async (values) => {
    const { data, error: problem } = await api.POST('/api/v2/websites/{id}/members', {
      params: { path: { id: websiteId } },
      body: { email: values.email.trim(), role: values.role },
    });
    if (problem) return { error: textOf(problem) };
    form.reset({ ...values, email: '' });
    list.reload();
    return t('people.added', {
      name: data.data.user.name,
      role: t(`people.role.${data.data.role}` as MessageKey),
    });
  });
  const { setError } = form;
  const error = form.error || (list.error ? textOf(list.error) : '');

  const done = (text: string) => {
    setError('');
    form.setSaved(text);
    list.reload();
  };

  const change = async (member: Member, next: Role) => {
    const { error: problem } = await api.PUT('/api/v2/websites/{id}/members/{user}', {
      params: { path: { id: websiteId, user: String(member.user.id) } },
      body: { role: next },
    });
    if (problem) {
      setError(textOf(problem));
      return list.reload(); // the select shows the role kept
    }
    done(t('people.changed', { name: member.user.name, role: t(`people.role.${next}` as MessageKey) }));
  };

  const remove = async (member: Member) => {
    if (!confirm(t('people.remove.confirm', { name: member.user.name }))) return;
    const { error: problem } = await api.DELETE('/api/v2/websites/{id}/members/{user}', {
      params: { path: { id: websiteId, user: String(member.user.id) } },
    });
    if (problem) return setError(textOf(problem));
    done(t('people.removed', { name: member.user.name }));
  };

  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">{t('people.members')}</h2>
      <Notices notice={form.saved} error={error} />
      {!loaded ? (
        <p>{t('app.loading')}</p>
      ) : (
        <table class="posts members">
          <thead>
            <tr>
              <th scope="col">{t('people.name')}</th>
              <th scope="col">{t('people.email')}</th>
              <th scope="col">{t('people.role')}</th>
              <th scope="col">
                <span class="visually-hidden">{t('people.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.map((member) => (
              <tr key={member.user.id} data-member={member.user.id}>
                <td data-label={t('people.name')}>
                  {member.user.name}
                  {!member.user.is_active && <span class="status"> {t('people.disabled')}</span>}
                </td>
                <td data-label={t('people.email')}>{member.user.email}</td>
                <td data-label={t('people.role')}>
                  <select
                    aria-label={t('people.role.of', { name: member.user.name })}
                    value={member.role}
                    onChange={(event) => void change(member, event.currentTarget.value as Role)}
                  >
                    {ROLES.map((name) => (
                      <option key={name} value={name}>
                        {t(`people.role.${name}` as MessageKey)}
                      </option>
                    ))}
                  </select>
                </td>
                <td>
                  {member.user.id !== me.id && (
                    <button
                      type="button"
                      aria-label={t('people.remove.named', { name: member.user.name })}
                      onClick={() => void remove(member)}
                    >
                      {t('people.remove')}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <EmailRoleForm
        prefix="member"
        emailLabel={t('people.add.email')}
        submitLabel={t('people.add')}
        email={form.values.email}
        setEmail={(email) => form.set({ email })}
        role={form.values.role}
        setRole={(role) => form.set({ role })}
        onSubmit={(event) => void form.submit(event)}
      />
      <p class="help">{t('people.add.help')}</p>
    </section>
  );
}

/**
 * Invitations: an address and a role; the mail's one-time link makes the person's account (or takes
 * their sign-in) and joins them. The ones not yet accepted are listed, each can be withdrawn.
 */
function Invites() {
  const me = useMe();
  const websiteId = String(me.website?.id ?? 0);
  const list = useResource(
    () =>
      api
        .GET('/api/v2/websites/{id}/invites', { params: { path: { id: websiteId } } })
        .then(({ data }) => ({ data: data?.data ?? [] })),
    [websiteId],
  );
  const invites = list.data ?? [];
  const load = list.reload;
  const form = useForm<{ email: string; role: Role }>({ email: '', role: 'author' }, async (values) => {
    const { error: problem } = await api.POST('/api/v2/websites/{id}/invites', {
      params: { path: { id: websiteId } },
      body: { email: values.email.trim(), role: values.role },
    });
    if (problem) return { error: textOf(problem) };
    form.reset({ ...values, email: '' });
    load();
    return t('people.invite.sent', { email: values.email.trim() });
  });
  const { setError } = form;
  const setNotice = form.setSaved;
  const withdraw = async (id: number) => {
    const { error: problem } = await api.DELETE('/api/v2/websites/{id}/invites/{invite}', {
      params: { path: { id: websiteId, invite: String(id) } },
    });
    if (problem) return setError(textOf(problem));
    setNotice(t('people.invite.withdrawn'));
    load();
  };

  return (
    <section aria-labelledby="invites-title">
      <h2 id="invites-title">{t('people.invites')}</h2>
      <Notices notice={form.saved} error={form.error} />
      <EmailRoleForm
        prefix="invite"
        emailLabel={t('people.invite.email')}
        submitLabel={t('people.invite')}
        email={form.values.email}
        setEmail={(email) => form.set({ email })}
        role={form.values.role}
        setRole={(role) => form.set({ role })}
        onSubmit={(event) => void form.submit(event)}
      />
      <p class="help">{t('people.invite.help')}</p>
      {invites.length > 0 && (
        <ul class="cards" aria-label={t('people.invites.waiting')}>
          {invites.map((item) => (
            <li key={item.id} data-invite={item.id}>
              {item.email} · {t(`people.role.${item.role}` as MessageKey)} ·{' '}
              <span class="help">{t('people.invite.until', { time: formatDateTime(item.expires_at) })}</span>{' '}
              <button type="button" onClick={() => void withdraw(item.id)}>
                {t('people.invite.withdraw')}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** `YYYY-MM-DD` from a date field as the start (or, `end`, the end) of that day in the user's time zone. */
function isoOf(day: string, end = false): string | undefined {
  if (!day) return undefined;
  const date = new Date(`${day}T${end ? '23:59:59.999' : '00:00:00'}`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function AuditLog({ members }: { members: Member[] }) {
  const me = useMe();
  const [applied, setApplied] = useState({ user: '', type: '', action: '', since: '', until: '' });
  const page = (before: number | null) =>
    api.GET('/api/v2/audit', {
      params: {
        query: {
          per_page: 25,
          ...(before ? { before } : {}),
          ...(isoOf(applied.since) ? { since: isoOf(applied.since) } : {}),
          ...(isoOf(applied.until, true) ? { until: isoOf(applied.until, true) } : {}),
          filter: {
            website: me.website?.id ?? 0,
            ...(applied.user ? { user: Number(applied.user) } : {}),
            ...(applied.type ? { resource_type: applied.type } : {}),
            ...(applied.action ? { action: applied.action } : {}),
          },
        },
      },
    });
  // The first page, loaded again when the filters are applied; "more" appends the next ones to it.
  const log = useResource(() => page(null), [applied]);
  // The filters as typed; applying them sets what the log loads. "More" reports here too.
  const filters = useForm({ user: '', type: '', action: '', since: '', until: '' }, async (values) => {
    setApplied({ ...values, action: values.action.trim() });
  });
  const more = (before: number) =>
    filters.run(async () => {
      const { data, error: problem } = await page(before);
      if (problem) return { error: textOf(problem) };
      log.setData((current) => ({ ...data, data: [...(current?.data ?? []), ...data.data] }));
    });
  const entries = log.loading || log.error ? null : (log.data?.data ?? null);
  const next = log.data?.meta.next_before ?? null;
  const error = log.error ? textOf(log.error) : filters.error;
  const { user, type, action, since, until } = filters.values;

  const names = new Map(members.map((member) => [member.user.id, member.user.name]));
  if (!names.has(me.id)) names.set(me.id, me.name);
  const who = (entry: Entry) =>
    entry.user_id === null ? t('people.audit.system') : (names.get(entry.user_id) ?? `#${entry.user_id}`);

  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">{t('people.audit')}</h2>
      <form class="filters" onSubmit={(event) => void filters.submit(event)}>
        {members.length > 0 && (
          <div class="inline-field">
            <label for="audit-user">{t('people.audit.user')}</label>
            <select
              id="audit-user"
              value={user}
              onChange={(event) => filters.set({ user: event.currentTarget.value })}
            >
              <option value="">{t('people.audit.anyone')}</option>
              {members.map((member) => (
                <option key={member.user.id} value={String(member.user.id)}>
                  {member.user.name}
                </option>
              ))}
            </select>
          </div>
        )}
        <div class="inline-field">
          <label for="audit-type">{t('people.audit.type')}</label>
          <select
            id="audit-type"
            value={type}
            onChange={(event) => filters.set({ type: event.currentTarget.value })}
          >
            <option value="">{t('people.audit.any')}</option>
            {RESOURCE_TYPES.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div class="inline-field">
          <label for="audit-action">{t('people.audit.action')}</label>
          <input
            id="audit-action"
            value={action}
            placeholder="post."
            aria-describedby="audit-action-help"
            onInput={(event) => filters.set({ action: event.currentTarget.value })}
          />
          <span id="audit-action-help" class="visually-hidden">
            {t('people.audit.action.help')}
          </span>
        </div>
        <div class="inline-field">
          <label for="audit-since">{t('people.audit.since')}</label>
          <input
            id="audit-since"
            type="date"
            value={since}
            onInput={(event) => filters.set({ since: event.currentTarget.value })}
          />
        </div>
        <div class="inline-field">
          <label for="audit-until">{t('people.audit.until')}</label>
          <input
            id="audit-until"
            type="date"
            value={until}
            onInput={(event) => filters.set({ until: event.currentTarget.value })}
          />
        </div>
        <button type="submit">{t('people.audit.filter')}</button>
      </form>
      {error && (
        <p class="notice error" role="alert">
          {error}
        </p>
      )}
      {entries === null ? (
        <p>{t('app.loading')}</p>
      ) : entries.length === 0 ? (
        <p>{t('people.audit.empty')}</p>
      ) : (
        <table class="posts audit">
          <thead>
            <tr>
              <th scope="col">{t('people.audit.when')}</th>
              <th scope="col">{t('people.audit.who')}</th>
              <th scope="col">{t('people.audit.action')}</th>
              <th scope="col">{t('people.audit.what')}</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id} data-entry={entry.id}>
                <td data-label={t('people.audit.when')}>
                  <time dateTime={entry.created_at}>{formatDateTime(entry.created_at)}</time>
                </td>
                <td data-label={t('people.audit.who')}>{who(entry)}</td>
                <td data-label={t('people.audit.action')}>
                  <code>{entry.action}</code>
                  {entry.summary && <span class="help"> {entry.summary.split(',').join(', ')}</span>}
                </td>
                <td data-label={t('people.audit.what')}>
                  {entry.resource_type}
                  {entry.resource_id ? ` #${entry.resource_id}` : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next !== null && (
        <div class="pager">
          <button type="button" onClick={() => void more(next)}>
            {t('people.audit.more')}
          </button>
        </div>
      )}
    </section>
  );
}

/** An address and a role, sent together: adding a member, or inviting someone. */
function EmailRoleForm(props: {
  prefix: string;
  emailLabel: string;
  submitLabel: string;
  email: string;
  setEmail: (email: string) => void;
  role: Role;
  setRole: (role: Role) => void;
  onSubmit: (event: Event) => void;
}) {
  return (
    <form class="filters add-member" onSubmit={props.onSubmit}>
      <div class="inline-field grow">
        <label for={`${props.prefix}-email`}>{props.emailLabel}</label>
        <input
          id={`${props.prefix}-email`}
          type="email"
          required
          value={props.email}
          autocomplete="off"
          onInput={(event) => props.setEmail(event.currentTarget.value)}
        />
      </div>
      <div class="inline-field">
        <label for={`${props.prefix}-role`}>{t('people.role')}</label>
        <select
          id={`${props.prefix}-role`}
          value={props.role}
          onChange={(event) => props.setRole(event.currentTarget.value as Role)}
        >
          {ROLES.map((name) => (
            <option key={name} value={name}>
              {t(`people.role.${name}` as MessageKey)}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" class="primary">
        {props.submitLabel}
      </button>
    </form>
  );
}
