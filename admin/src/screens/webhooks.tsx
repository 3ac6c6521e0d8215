// Webhooks (issue 38): this website's (its site admins and administrators) and the installation's
// (administrators). Add one (its secret is shown once, then never again), send a test event, turn it
// off or on (a webhook Folio disabled says why), delete it, and read its delivery log with a
// "Send again" per message. Also "System → Jobs" (administrators): background jobs with their
// errors, and "Run again" for a failed one.
import { useState } from 'preact/hooks';
import { api, problemText } from '../api.js';
import type { Problem } from '../api.js';
import { useForm, useResource } from '../hooks.js';
import { t } from '../i18n.js';
import { useAbilities, useMe } from '../session.js';
import { Checkbox, Message } from '../widgets.js';
import type { components } from '../../../clients/typescript/schema.js';

type Webhook = components['schemas']['Webhook'];
type Delivery = components['schemas']['WebhookDelivery'];
type Job = components['schemas']['Job'];
type HookEvent = Webhook['events'][number];

// The API's list (its OpenAPI enum): a name it does not know fails to compile, and so does one left out.
const EVENTS = [
  'post.published',
  'post.updated',
  'post.unpublished',
  'post.deleted',
  'page.created',
  'page.updated',
  'page.deleted',
  'tag.created',
  'tag.updated',
  'tag.deleted',
  'menu.changed',
  'website.created',
  'website.updated',
  'website.deleted',
  'website.domain_added',
  'website.domain_removed',
  'website.imported',
  'comment.created',
  'comment.approved',
  'member.added',
  'user.registered',
] as const satisfies readonly HookEvent[];
const everyEventListed: Exclude<HookEvent, (typeof EVENTS)[number]> extends never ? true : never = true;
void everyEventListed;

type Note = { kind: 'ok' | 'error'; text: string } | null;
const fail = (problem: Problem): Note => ({ kind: 'error', text: problemText(problem) });
const when = (iso: string) => new Date(iso).toLocaleString();

function Deliveries({ hook }: { hook: Webhook }) {
  const deliveries = useResource(
    () =>
      api
        .GET('/api/v2/webhooks/{id}/deliveries', { params: { path: { id: String(hook.id) }, query: {} } })
        .then(({ data }) => ({ data: data?.data ?? [] })),
    [hook.id],
  );
  const list = deliveries.data;
  const [note, setNote] = useState<Note>(null);
  const again = async (delivery: Delivery) => {
    const { error } = await api.POST('/api/v2/webhooks/{id}/deliveries/{delivery}/redeliver', {
      params: { path: { id: String(hook.id), delivery: String(delivery.id) } },
    });
    setNote(error ? fail(error) : { kind: 'ok', text: t('webhooks.redelivered') });
  };
  if (list === null) return <p>{t('app.loading')}</p>;
  if (list.length === 0) return <p>{t('webhooks.deliveries.empty')}</p>;
  return (
    <div>
      <Message message={note} />
      <table class="posts deliveries">
        <caption>{t('webhooks.deliveries', { url: hook.url })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('webhooks.col.time')}</th>
            <th scope="col">{t('webhooks.col.event')}</th>
            <th scope="col">{t('webhooks.col.attempt')}</th>
            <th scope="col">{t('webhooks.col.answer')}</th>
            <th scope="col">{t('webhooks.col.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {list.map((delivery) => (
            <tr key={delivery.id} data-delivery={delivery.id}>
              <td data-label={t('webhooks.col.time')}>
                {t('webhooks.col.time.value', { time: when(delivery.created_at), ms: delivery.duration_ms })}
              </td>
              <td data-label={t('webhooks.col.event')}>
                <code>{delivery.event}</code>
              </td>
              <td data-label={t('webhooks.col.attempt')}>{delivery.attempt}</td>
              <td data-label={t('webhooks.col.answer')}>
                {delivery.status_code === null ? (
                  <span class="error">{delivery.error}</span>
                ) : (
                  <>
                    <strong>{delivery.status_code}</strong>{' '}
                    <code>{(delivery.response_body ?? '').slice(0, 200)}</code>
                  </>
                )}
              </td>
              <td data-label={t('webhooks.col.actions')}>
                <button type="button" onClick={() => void again(delivery)}>
                  {t('webhooks.redeliver')}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function HookRow({ hook, changed }: { hook: Webhook; changed: () => void }) {
  const [note, setNote] = useState<Note>(null);
  const [open, setOpen] = useState(false);
  const path = { params: { path: { id: String(hook.id) } } };
  const test = async () => {
    setNote(null);
    const { data, error } = await api.POST('/api/v2/webhooks/{id}/test', path);
    if (error) return setNote(fail(error));
    const delivery = data.data;
    const ok = delivery.status_code !== null && delivery.status_code < 300 && delivery.status_code >= 200;
    setNote({
      kind: ok ? 'ok' : 'error',
      text: ok
        ? t('webhooks.test.ok', { status: delivery.status_code ?? 0 })
        : t('webhooks.test.failed', { why: delivery.error ?? `HTTP ${delivery.status_code}` }),
    });
  };
  const toggle = async () => {
    const { error } = await api.PATCH('/api/v2/webhooks/{id}', { ...path, body: { active: !hook.active } });
    if (error) return setNote(fail(error));
    changed();
  };
  const remove = async () => {
    if (!confirm(t('webhooks.delete.confirm', { url: hook.url }))) return;
    const { error } = await api.DELETE('/api/v2/webhooks/{id}', path);
    if (error) return setNote(fail(error));
    changed();
  };
  return (
    <li class="webhook" data-webhook={hook.id}>
      <p>
        <code>{hook.url}</code> — {hook.active ? t('webhooks.active') : t('webhooks.inactive')}
        {hook.failures > 0 && <> · {t('webhooks.failures', { n: hook.failures })}</>}
      </p>
      {hook.disabled_reason && (
        <p class="notice error" role="alert">
          {hook.disabled_reason}
        </p>
      )}
      <p class="help">{hook.events.join(', ')}</p>
      <div class="actions">
        <button type="button" onClick={() => void test()}>
          {t('webhooks.test')}
        </button>
        <button type="button" onClick={() => void toggle()}>
          {hook.active ? t('webhooks.disable') : t('webhooks.enable')}
        </button>
        <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
          {t('webhooks.log')}
        </button>
        <button type="button" class="danger" onClick={() => void remove()}>
          {t('webhooks.delete')}
        </button>
      </div>
      <Message message={note} />
      {open && <Deliveries hook={hook} />}
    </li>
  );
}

/** The webhooks of a website (`websiteId`) or of the installation (null). */
function HookList({ websiteId, title }: { websiteId: number | null; title: string }) {
  const id = websiteId === null ? 'installation' : `site-${websiteId}`;
  const list = useResource(() => {
    const request =
      websiteId === null
        ? api.GET('/api/v2/webhooks')
        : api.GET('/api/v2/websites/{id}/webhooks', { params: { path: { id: String(websiteId) } } });
    return request.then(({ data }) => ({ data: data?.data ?? [] }));
  }, [websiteId]);
  const hooks = list.data;
  const load = list.reload;
  // The new webhook's secret, shown once.
  const [secret, setSecret] = useState('');
  const form = useForm<{ url: string; events: HookEvent[] }>(
    { url: '', events: ['post.published', 'post.updated', 'post.unpublished', 'post.deleted'] },
    async (values) => {
      setSecret('');
      const body = { url: values.url, events: values.events };
      const { data, error } =
        websiteId === null
          ? await api.POST('/api/v2/webhooks', { body })
          : await api.POST('/api/v2/websites/{id}/webhooks', {
              params: { path: { id: String(websiteId) } },
              body,
            });
      if (error) return { error: problemText(error) };
      setSecret(data.data.secret);
      form.reset({ ...values, url: '' });
      load();
    },
  );
  const { url, events } = form.values;
  const note: Note = form.error ? { kind: 'error', text: form.error } : null;
  const choose = (name: HookEvent, on: boolean) =>
    form.set({ events: on ? [...events, name] : events.filter((entry) => entry !== name) });
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      {hooks === null ? (
        <p>{t('app.loading')}</p>
      ) : hooks.length === 0 ? (
        <p>{t('webhooks.empty')}</p>
      ) : (
        <ul class="webhooks">
          {hooks.map((hook) => (
            <HookRow key={hook.id} hook={hook} changed={load} />
          ))}
        </ul>
      )}
      <form onSubmit={(event) => void form.submit(event)}>
        <h3>{t('webhooks.add')}</h3>
        <div class="inline-field">
          <label for={`${id}-url`}>{t('webhooks.url')}</label>
          <input
            id={`${id}-url`}
            type="url"
            required
            value={url}
            placeholder="https://example.com/folio-hook"
            onInput={(event) => form.set({ url: event.currentTarget.value })}
          />
        </div>
        <fieldset>
          <legend>{t('webhooks.events')}</legend>
          {EVENTS.map((name) => (
            <Checkbox key={name} checked={events.includes(name)} onChange={(on) => choose(name, on)}>
              <code>{name}</code>
            </Checkbox>
          ))}
        </fieldset>
        <div class="actions">
          <button type="submit" class="primary">
            {t('webhooks.add.button')}
          </button>
        </div>
      </form>
      <Message message={note} />
      {secret && (
        <div class="notice ok" role="status">
          <p>{t('webhooks.secret')}</p>
          <p>
            <code data-secret>{secret}</code>
          </p>
        </div>
      )}
    </section>
  );
}

export function WebhooksScreen() {
  const me = useMe();
  const can = useAbilities();
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">{t('webhooks.title')}</h1>
      <p class="help">{t('webhooks.help')}</p>
      {can.manage_members && me.website && (
        <HookList websiteId={me.website.id} title={t('webhooks.site', { name: me.website.name })} />
      )}
      {me.is_admin && <HookList websiteId={null} title={t('webhooks.installation')} />}
    </section>
  );
}

/** System → Jobs: the background queue (administrators). */
export function JobsSection() {
  const [status, setStatus] = useState<'' | Job['status']>('');
  const list = useResource(
    () =>
      api
        .GET('/api/v2/jobs', { params: { query: status ? { status } : {} } })
        .then(({ data }) => ({ data: data?.data ?? [] })),
    [status],
  );
  const jobs = list.data;
  const load = list.reload;
  const [note, setNote] = useState<Note>(null);
  const retry = async (job: Job) => {
    const { error } = await api.POST('/api/v2/jobs/{id}/retry', { params: { path: { id: String(job.id) } } });
    setNote(error ? fail(error) : { kind: 'ok', text: t('jobs.retried', { id: job.id }) });
    load();
  };
  return (
    <section aria-labelledby="jobs-title">
      <h2 id="jobs-title">{t('jobs.title')}</h2>
      <p class="help">{t('jobs.help')}</p>
      <div class="inline-field">
        <label for="jobs-status">{t('jobs.status')}</label>
        <select
          id="jobs-status"
          value={status}
          onChange={(event) => setStatus(event.currentTarget.value as '' | Job['status'])}
        >
          <option value="">{t('jobs.status.any')}</option>
          <option value="queued">{t('jobs.status.queued')}</option>
          <option value="running">{t('jobs.status.running')}</option>
          <option value="failed">{t('jobs.status.failed')}</option>
          <option value="done">{t('jobs.status.done')}</option>
        </select>
      </div>
      <Message message={note} />
      {jobs === null ? (
        <p>{t('app.loading')}</p>
      ) : jobs.length === 0 ? (
        <p>{t('jobs.empty')}</p>
      ) : (
        <table class="posts jobs">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">{t('jobs.col.queue')}</th>
              <th scope="col">{t('jobs.status')}</th>
              <th scope="col">{t('jobs.col.attempts')}</th>
              <th scope="col">{t('jobs.col.next')}</th>
              <th scope="col">{t('jobs.col.error')}</th>
              <th scope="col">{t('webhooks.col.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((job) => (
              <tr key={job.id} data-job={job.id}>
                <td>{job.id}</td>
                <td data-label={t('jobs.col.queue')}>
                  <code>{job.queue}</code>
                </td>
                <td data-label={t('jobs.status')}>{t(`jobs.status.${job.status}`)}</td>
                <td data-label={t('jobs.col.attempts')}>
                  {job.attempts} / {job.max_attempts}
                </td>
                <td data-label={t('jobs.col.next')}>{when(job.run_at)}</td>
                <td data-label={t('jobs.col.error')}>{job.last_error ?? ''}</td>
                <td data-label={t('webhooks.col.actions')}>
                  {(job.status === 'failed' || job.status === 'queued') && (
                    <button type="button" onClick={() => void retry(job)}>
                      {t('jobs.retry')}
                    </button>
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
